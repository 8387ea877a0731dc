package dev.parallax.paxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.cluster.LocalCluster;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.AppendLoad.awaitConverged;
import static dev.parallax.core.testkit.cluster.AppendLoad.expectedOwn;
import static dev.parallax.core.testkit.cluster.AppendLoad.load;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three S-Paxos replicas (seed 002 (S-Paxos) §IV) in one JVM over real loopback sockets, a client
 * per replica that knows only its own replica — so a redirect would leave its commands
 * unanswered. Runs under both thread placements ({@code -Dparallax.threads}).
 */
class SPaxosReplicaClusterTest {

    private static LocalCluster cluster(Path dir, long snapshotEvery) {
        return new LocalCluster(3, PaxosClusters::sPaxos, kv -> kv, 16 << 20, dir, snapshotEvery);
    }

    @Test
    @DisplayName("seed 002 §IV-A: every replica takes its clients' commands (no redirect), answers them, and all execute every command once")
    void everyReplicaTakesItsClients() throws Exception {
        try (LocalCluster c = cluster(null, 10_000)) {
            List<SmrClient> clients = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            List<CompletableFuture<ByteBuffer>> replies = load(clients, "a", 300);
            for (CompletableFuture<ByteBuffer> r : replies) {
                r.get(60, TimeUnit.SECONDS);
            }
            for (int k = 0; k < 3; k++) {
                assertThat(text(clients.get(k).invoke(cmd("GET own" + k)).get(20, TimeUnit.SECONDS)))
                        .isEqualTo(expectedOwn("a", 300));
                assertThat(clients.get(k).currentReplica()).as("the client never left its replica").isZero();
            }
            awaitConverged(c);
            String shared = c.machines.get(0).data.get("shared");
            assertThat(shared.split(",")).hasSize(900).doesNotHaveDuplicates();
            for (int r = 0; r < 3; r++) {
                assertThat(c.replicas.get(r).meterRegistry().find("parallax.commands.executed").counter().count())
                        .as("replica %d executed every command once (1,800 appends and up to 3 reads)", r).isBetween(1800.0, 1803.0);
            }
            int leader = PaxosClusters.leader(c);
            assertThat(leader).as("the ordering leader is published").isBetween(0, 2);
            // The ordering layer's messages travel wrapped (SPaxosWire.Ordering) and are counted by their own types.
            var registry = c.replicas.get(leader).meterRegistry();
            assertThat(registry.find("parallax.protocol.messages.sent.by.type").tag("type", "Propose").counter().count())
                    .isPositive();
            assertThat(registry.find("parallax.protocol.messages.sent.by.type").tag("type", "Forward").counter().count())
                    .isPositive();
            for (int r = 0; r < 3; r++) {
                assertThat(c.replicas.get(r).meterRegistry().find("parallax.protocol.messages.received.by.type")
                        .tag("type", "Ordering").counter()).as("replica %d", r).isNull();
                assertThat(c.replicas.get(r).meterRegistry().find("parallax.protocol.messages.sent.by.type")
                        .tag("type", "Ordering").counter()).as("replica %d", r).isNull();
            }
        }
    }

    @Test
    @DisplayName("seed 002 §V-C: a replica stopped and restarted catches up from its log and its peers")
    void aRestartedReplicaCatchesUp(@TempDir Path dir) throws Exception {
        try (LocalCluster c = cluster(dir, 10_000)) {
            List<SmrClient> all = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            for (CompletableFuture<ByteBuffer> r : load(all, "x", 50)) {
                r.get(60, TimeUnit.SECONDS);
            }
            c.stop(2);
            for (CompletableFuture<ByteBuffer> r : load(all.subList(0, 2), "y", 100)) {
                r.get(60, TimeUnit.SECONDS);
            }
            c.restart(2);
            SmrClient again = c.clientOf(2);
            assertThat(text(again.invoke(cmd("APPEND own2 z,")).get(60, TimeUnit.SECONDS)))
                    .isEqualTo(expectedOwn("x", 50) + "z,");
            awaitConverged(c);
            assertThat(c.machines.get(2).data.get("own0")).isEqualTo(expectedOwn("x", 50) + expectedOwn("y", 100));
        }
    }

    @Test
    @DisplayName("R2: a replica restarted after its peers compacted installs a snapshot with the executed ids and executes "
            + "nothing twice")
    void aReplicaBehindEveryCompactionInstallsASnapshot(@TempDir Path dir) throws Exception {
        try (LocalCluster c = cluster(dir, 20)) {
            List<SmrClient> all = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            for (CompletableFuture<ByteBuffer> r : load(all, "x", 20)) {
                r.get(60, TimeUnit.SECONDS);
            }
            c.stop(2);
            // Wipe replica 2's log and snapshots: everything must come from a peer's snapshot.
            deleteTree(dir.resolve("replica-2"));
            List<SmrClient> two = all.subList(0, 2);
            for (int round = 0; round < 6; round++) {
                for (CompletableFuture<ByteBuffer> r : load(two, "y" + round + "-", 40)) {
                    r.get(60, TimeUnit.SECONDS);
                }
            }
            c.restart(2);
            for (CompletableFuture<ByteBuffer> r : load(two, "z", 40)) {
                r.get(60, TimeUnit.SECONDS);
            }
            awaitConverged(c);
            assertThat(c.replicas.get(2).meterRegistry().find("parallax.snapshots.installed").counter().count())
                    .as("caught up by a snapshot").isPositive();
            String shared = c.machines.get(2).data.get("shared");
            assertThat(shared.split(",")).as("nothing executed twice").doesNotHaveDuplicates();
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        if (!java.nio.file.Files.exists(root)) {
            return;
        }
        try (var paths = java.nio.file.Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }
}
