package dev.parallax.core.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link TlsConfig}: off by default, its files required only when a port runs TLS, carried by {@link ReplicaConfig}. */
class TlsConfigTest {

    @Test
    void offByDefaultAndFilesRequiredOnlyWhenOn() {
        assertThat(TlsConfig.OFF.enabled()).isFalse();
        assertThat(TlsConfig.OFF.caFile()).isEmpty();
        assertThat(TlsConfig.OFF.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> TlsConfig.builder().replicaPort(true).build()).hasMessageContaining("CA certificate");
        assertThatThrownBy(() -> TlsConfig.builder().clientPorts(true).trust(Path.of("ca.crt")).build())
                .hasMessageContaining("certificate and key");
        assertThatThrownBy(() -> TlsConfig.builder().handshakeTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TlsConfig.replicaIdentity(7)).isEqualTo("parallax-replica-7");
        assertThatThrownBy(() -> TlsConfig.replicaIdentity(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aReplicaConfigCarriesIt() {
        ReplicaConfig plain = ReplicaConfig.builder().id(0).members(ClusterMembers.parse("0=h:1,1=h:2,2=h:3")).build();
        assertThat(plain.tls()).isSameAs(TlsConfig.OFF);
        TlsConfig tls = TlsConfig.builder().replicaPort(true).trust(Path.of("ca.crt"))
                .identity(Path.of("replica-0.crt"), Path.of("replica-0.key")).handshakeTimeout(Duration.ofSeconds(3)).build();
        ReplicaConfig secured = plain.toBuilder().tls(tls).build();
        assertThat(secured.toBuilder().build().tls()).isSameAs(tls);
        assertThat(secured.toString()).contains("replicaPort=mutual", "clientPorts=off", "replica-0.key");
        assertThat(tls.enabled()).isTrue();
        assertThat(tls.clientPorts()).isFalse();
    }
}
