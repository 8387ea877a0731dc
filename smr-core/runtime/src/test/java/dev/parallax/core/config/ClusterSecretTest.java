package dev.parallax.core.config;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterSecretTest {

    @Test
    @DisplayName("cluster.secret names a file the replica reads; absent, the configuration has no secret")
    void readFromTheClusterFile(@TempDir Path dir) throws Exception {
        ClusterSecret secret = ClusterSecret.random();
        Files.write(dir.resolve("s"), secret.bytes());
        Map<String, String> keys = Map.of("members", "0=h:1,1=h:2", "cluster.secret", dir.resolve("s").toString());
        assertThat(ReplicaKeys.replicaConfig(Settings.of(keys), 0).clusterSecret()).contains(secret);
        assertThat(ReplicaKeys.replicaConfig(Settings.of(Map.of("members", "0=h:1")), 0).clusterSecret()).isEmpty();
        assertThat(ReplicaConfig.builder().id(0).members(ClusterMembers.parse("0=h:1")).clusterSecret(secret).build()
                .toBuilder().build().clusterSecret()).contains(secret);
    }

    @Test
    @DisplayName("a missing or short secret file is refused naming cluster.secret; the bytes never show in toString")
    void refusedAndNeverShown(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ReplicaKeys.replicaConfig(Settings.of(Map.of("members", "0=h:1", "cluster.secret",
                dir.resolve("missing").toString())), 0)).hasMessageContaining("cluster.secret").hasMessageContaining("missing");
        Files.write(dir.resolve("short"), new byte[15]);
        assertThatThrownBy(() -> ReplicaKeys.replicaConfig(Settings.of(Map.of("members", "0=h:1", "cluster.secret",
                dir.resolve("short").toString())), 0)).hasMessageContaining("cluster.secret").hasMessageContaining("16 bytes");
        byte[] b = new byte[16];
        b[0] = 0x5a;
        ClusterSecret s = ClusterSecret.of(b);
        assertThat(s.toString()).isEqualTo("ClusterSecret[16 bytes]");
        assertThat(ReplicaConfig.builder().id(0).members(ClusterMembers.parse("0=h:1")).clusterSecret(s).build().toString())
                .contains("ClusterSecret[16 bytes]");
        assertThat(s.derive("a")).hasSize(32).isNotEqualTo(s.derive("b"));
        assertThat(ClusterSecret.random()).isNotEqualTo(ClusterSecret.random());
    }
}
