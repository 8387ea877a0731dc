package dev.parallax.examples.cli;

import dev.parallax.core.config.ReplicaConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterFileTest {

    private static Path write(Path dir, String text) throws IOException {
        Path f = dir.resolve("cluster.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aFullFileConfiguresReplicaAndProtocol(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, """
                members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002
                clients=0=127.0.0.1:8000,1=127.0.0.1:8001,2=127.0.0.1:8002
                redis=0=127.0.0.1:6379,1=127.0.0.1:6380,2=127.0.0.1:6381
                data.dir=/var/lib/parallax
                client.io.threads=3
                replica.io.threads=4
                wait=park
                paxos.window=35
                paxos.batch.bytes=8000
                paxos.eager.below=2
                paxos.heartbeat.ms=20
                paxos.suspect.ms=200
                """));
        ReplicaConfig r = f.replica(2);
        assertThat(r.self().port()).isEqualTo(7002);
        assertThat(r.clientMembers().member(2).port()).isEqualTo(8002);
        assertThat(r.clientIoThreads()).isEqualTo(3);
        assertThat(r.replicaIoThreads()).isEqualTo(4);
        assertThat(ClusterFile.load(write(dir, "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n"))
                .replica(0).replicaIoThreads()).as("default: one per peer").isEqualTo(2);
        assertThat(r.waitMode()).isEqualTo(ReplicaConfig.WaitMode.PARK);
        assertThat(r.dataDirectory()).contains(Path.of("/var/lib/parallax/replica-2"));
        assertThat(f.paxos().window()).isEqualTo(35);
        assertThat(f.paxos().batchBytes()).isEqualTo(8000);
        assertThat(f.paxos().eagerBelow()).isEqualTo(2);
        assertThat(f.paxos().suspectNanos()).isEqualTo(200_000_000L);
        assertThat(f.redis().orElseThrow().member(1).port()).isEqualTo(6380);
    }

    @Test
    void defaultsNeedOnlyTheMembers(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n"));
        assertThat(f.replica(0).clientMembers().member(0).port()).isEqualTo(8000);
        assertThat(f.paxos().window()).isEqualTo(10);
        assertThat(f.paxos().eagerBelow()).isEqualTo(10);
        assertThat(f.redis()).isEmpty();
    }

    @Test
    void durabilityAndSnapshotKeysAreParsed(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, """
                members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002
                data.dir=/var/lib/parallax
                log.sync=periodic
                snapshot.every=500
                snapshot.log.bytes=1048576
                snapshot.transfer.timeout.ms=2500
                snapshot.max.bytes=8589934592
                """));
        ReplicaConfig r = f.replica(1);
        assertThat(r.logSync()).isEqualTo(dev.parallax.core.log.SyncPolicy.PERIODIC);
        assertThat(f.snapshotEvery()).contains(500L);
        assertThat(r.snapshotLogBytes()).isEqualTo(1L << 20);
        assertThat(r.snapshotTransferTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(r.snapshotMaxBytes()).isEqualTo(8L << 30);
    }

    @Test
    void durabilityAndSnapshotDefaultsApplyWhenTheKeysAreAbsent(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, "members=0=127.0.0.1:7000\n"));
        ReplicaConfig r = f.replica(0);
        assertThat(r.logSync()).isEqualTo(dev.parallax.core.log.SyncPolicy.EVERY_BATCH);
        assertThat(f.snapshotEvery()).isEmpty();
        assertThat(r.snapshotLogBytes()).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_LOG_BYTES);
        assertThat(r.snapshotTransferTimeout()).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_TRANSFER_TIMEOUT);
        assertThat(r.snapshotMaxBytes()).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_MAX_BYTES);
    }

    @Test
    void badDurabilityAndSnapshotValuesAreNamed(@TempDir Path dir) throws IOException {
        String members = "members=0=127.0.0.1:7000\n";
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "log.sync=sometimes\n")).replica(0))
                .hasMessageContaining("log.sync must be every-batch, periodic or none");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.every=0\n")).snapshotEvery())
                .hasMessageContaining("snapshot.every must be >= 1");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.every=often\n")).snapshotEvery())
                .hasMessageContaining("snapshot.every is not a whole number");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.log.bytes=0\n")).replica(0))
                .hasMessageContaining("snapshotLogBytes must be >= 1");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.log.bytes=1MB\n")).replica(0))
                .hasMessageContaining("snapshot.log.bytes is not a whole number");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.transfer.timeout.ms=0\n")).replica(0))
                .hasMessageContaining("snapshotTransferTimeout must be positive");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.max.bytes=-1\n")).replica(0))
                .hasMessageContaining("snapshotMaxBytes must be >= 1");
    }

    @Test
    void mistakesAreNamed(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "clients=0=a:1\n"))).hasMessageContaining("'members' is required");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1\npaxos.windw=3\n")))
                .hasMessageContaining("unknown keys [paxos.windw]");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1\npaxos.window=ten\n")))
                .hasMessageContaining("paxos.window is not a whole number");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1,1=a:2\nredis=0=a:3\n")))
                .hasMessageContaining("redis lists 1 replicas, members lists 2");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1\nwait=sometimes\n")))
                .hasMessageContaining("wait must be");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a\n"))).hasMessageContaining("members:");
    }

    @Test
    void theMetricsEndpointServesPrometheusText() throws Exception {
        PrometheusMeterRegistry registry = MetricsEndpoint.registry();
        Counter.builder("parallax.demo.things").register(registry).increment(3);
        try (MetricsEndpoint endpoint = new MetricsEndpoint(registry, "127.0.0.1", 0)) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("parallax_demo_things_total 3.0");
        }
    }
}
