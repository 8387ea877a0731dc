package dev.parallax.paxos.replica;

import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A three-replica Multi-Paxos cluster in one JVM over real loopback sockets. */
class ReplicaClusterTest {

    @Test
    void pipelinedCommandsExecuteOnceInOrderOnEveryReplica() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client();
            List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                replies.add(client.invoke(cmd("APPEND k " + i + ",")));
            }
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < replies.size(); i++) {
                expected.append(i).append(',');
                assertThat(text(replies.get(i).get(30, TimeUnit.SECONDS))).isEqualTo(expected.toString());
            }
            assertThat(text(client.invoke(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo(expected.toString());
        }
    }

    @Test
    void everyStageAndProtocolEventHasMeters() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client();
            for (int i = 0; i < 200; i++) {
                client.invoke(cmd("SET k " + i)).get(10, TimeUnit.SECONDS);
            }
            int leader = client.currentReplica();
            var registry = cluster.replicas.get(leader).meterRegistry();
            assertThat(registry.find("parallax.commands.executed").counter().count()).isGreaterThanOrEqualTo(200);
            assertThat(registry.find("parallax.protocol.decided").functionCounter().count()).isPositive();
            assertThat(registry.find("parallax.protocol.syncs").functionCounter().count()).isPositive();
            assertThat(registry.find("parallax.protocol.messages.sent").functionCounter().count()).isPositive();
            assertThat(registry.find("parallax.paxos.leader").gauge().value()).isEqualTo(1.0);
            assertThat(registry.find("parallax.protocol.messages.sent.by.type").tag("type", "Propose").counter().count())
                    .isPositive();
            assertThat(registry.find("parallax.protocol.messages.received.by.type").tag("type", "Accept").counter().count())
                    .isPositive();
            for (String event : new String[] {"views.started", "retransmitted.prepares", "retransmitted.proposes",
                    "catchup.queries", "catchup.replies"}) {
                assertThat(registry.find("parallax.protocol.events").tag("event", event).functionCounter())
                        .as(event).isNotNull();
            }
            var follower = cluster.replicas.get((leader + 1) % 3).meterRegistry();
            assertThat(follower.find("parallax.protocol.messages.received.by.type").tag("type", "Propose").counter().count())
                    .isPositive();
            assertThat(registry.find("parallax.stage.items").tag("stage", "batcher-" + leader).functionCounter().count())
                    .isGreaterThanOrEqualTo(200);
            assertThat(registry.find("parallax.stage.busy.ratio").gauges()).isNotEmpty();
            assertThat(registry.find("parallax.stage.queue.depth").gauges()).isNotEmpty();
        }
    }

    @Test
    void aRejectedCommandGetsTheSameErrorAndChangesNothing() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client();
            client.invoke(cmd("SET a 1")).get(10, TimeUnit.SECONDS);
            CompletableFuture<ByteBuffer> failed = client.invoke(cmd("FAIL bad-input"));
            assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(CommandRejectedException.class).hasMessage("IllegalArgumentException: bad-input");
            // Every replica rejected it (the followers execute in the background) and kept its state.
            for (int i = 0; i < 3; i++) {
                int id = i;
                Await.until("replica " + id + " rejected the command", java.time.Duration.ofSeconds(10),
                        () -> rejected(cluster, id) >= 1);
                assertThat(rejected(cluster, id)).as("rejected at replica %d", id).isEqualTo(1.0);
                // No command runs meanwhile: the client waits for each answer.
                assertThat(cluster.machines.get(id).data).as("state of replica %d", id)
                        .containsExactly(java.util.Map.entry("a", "1"));
            }
            assertThat(text(client.invoke(cmd("GET a")).get(10, TimeUnit.SECONDS))).isEqualTo("1");
            // A second client sees the same state; the rejected command had no effect anywhere.
            SmrClient other = cluster.client();
            assertThat(text(other.invoke(cmd("SET a 2")).get(10, TimeUnit.SECONDS))).isEqualTo("1");
            CompletableFuture<ByteBuffer> again = other.invoke(cmd("FAIL bad-input"));
            assertThatThrownBy(() -> again.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(CommandRejectedException.class).hasMessage("IllegalArgumentException: bad-input");
        }
    }

    private static double rejected(LocalCluster cluster, int replica) {
        io.micrometer.core.instrument.Counter c = cluster.replicas.get(replica).meterRegistry()
                .find("parallax.commands.rejected").counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void withoutAQuorumTheClientFailsClearlyInTime() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client(java.time.Duration.ofSeconds(2));
            client.invoke(cmd("SET k 1")).get(10, TimeUnit.SECONDS);
            cluster.replicas.get(1).close();
            cluster.replicas.get(2).close();
            long start = System.nanoTime();
            CompletableFuture<ByteBuffer> f = client.invoke(cmd("SET k 2"));
            assertThatThrownBy(() -> f.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(dev.parallax.core.client.ClusterUnavailableException.class)
                    .hasMessageContaining("no quorum");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
        }
    }

    @Test
    void theClientFailsOverWhenTheLeaderStops() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client();
            for (int i = 0; i < 100; i++) {
                client.invoke(cmd("APPEND k x")).get(10, TimeUnit.SECONDS);
            }
            int leader = cluster.replicas.get(1).leaderHint();
            cluster.replicas.get(leader).close();
            List<CompletableFuture<ByteBuffer>> more = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                more.add(client.invoke(cmd("APPEND k y")));
            }
            String last = "";
            for (CompletableFuture<ByteBuffer> f : more) {
                last = text(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(last).isEqualTo("x".repeat(100) + "y".repeat(100));
        }
    }
}
