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
