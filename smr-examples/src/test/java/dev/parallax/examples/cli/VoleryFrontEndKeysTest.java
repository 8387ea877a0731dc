package dev.parallax.examples.cli;

import dev.parallax.core.wire.tls.ClusterCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster-file keys of the ZooKeeper front ends: {@code zookeeper.secure} (TLS ports, which need
 * the replicas' certificates and serve Volery only) and {@code zookeeper.max.connections}.
 */
class VoleryFrontEndKeysTest {
    @TempDir
    Path dir;

    private static Properties volery() {
        Properties p = new Properties();
        p.setProperty("members", "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        p.setProperty("ordering", "multi-ring");
        p.setProperty("multiring.rings", "1");
        p.setProperty("execution", "s-smr");
        p.setProperty("service", "volery");
        return p;
    }

    @Test
    void aSecurePortNeedsTheCertificates() throws Exception {
        Properties p = volery();
        p.setProperty("zookeeper.secure", "0=127.0.0.1:2281,1=127.0.0.1:2282,2=127.0.0.1:2283");
        assertThatThrownBy(() -> ClusterFile.of(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zookeeper.secure").hasMessageContaining("tls.ca");
        p.putAll(ClusterFile.tlsSettings(ClusterCertificates.generate(dir, 3), false));
        ClusterFile f = ClusterFile.of(p);
        assertThat(f.zookeeperSecure()).isPresent();
        assertThat(f.zookeeperSecure().get().member(1).port()).isEqualTo(2282);
        assertThat(f.zookeeper()).isEmpty();
        assertThat(VoleryService.hasFrontEnds(f)).isTrue();
        assertThat(VoleryService.hasFrontEnds(ClusterFile.of(volery()))).isFalse();
    }

    @Test
    void aSecurePortServesVoleryOnly() throws Exception {
        Properties p = new Properties();
        p.setProperty("members", "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        p.setProperty("zookeeper.secure", "0=127.0.0.1:2281,1=127.0.0.1:2282,2=127.0.0.1:2283");
        p.putAll(ClusterFile.tlsSettings(ClusterCertificates.generate(dir, 3), false));
        assertThatThrownBy(() -> ClusterFile.of(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zookeeper front ends serve service=volery only");
    }

    @Test
    void theConnectionBoundComesFromTheFile() {
        assertThat(VoleryService.serverConfig(ClusterFile.of(volery()), 0, "127.0.0.1", 0).maxConnections()).isEqualTo(4096);
        Properties p = volery();
        p.setProperty("zookeeper.max.connections", "17");
        assertThat(VoleryService.serverConfig(ClusterFile.of(p), 2, "127.0.0.1", 0))
                .satisfies(c -> assertThat(c.maxConnections()).isEqualTo(17))
                .satisfies(c -> assertThat(c.serverId()).isEqualTo(2))
                .satisfies(c -> assertThat(c.sessionSecret()).as("no cluster secret").isNull());
        p.setProperty("zookeeper.max.connections", "0");
        assertThatThrownBy(() -> ClusterFile.of(p)).hasMessageContaining("zookeeper.max.connections");
    }
}
