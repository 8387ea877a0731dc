package dev.parallax.ringpaxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.AppendLoad.awaitConverged;
import static dev.parallax.core.testkit.cluster.AppendLoad.expectedOwn;
import static dev.parallax.core.testkit.cluster.AppendLoad.load;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three Ring Paxos replicas (seed 003 (Ring Paxos) ch. 3) in one JVM over real loopback sockets —
 * and, for M-Ring, a real IP-multicast group on loopback — with a client per replica that knows
 * only its own replica, so a redirect would leave its commands unanswered. Runs under both thread
 * placements ({@code -Dparallax.threads}).
 */
class RingReplicaClusterTest {

    /**
     * Test timeouts (heartbeat 30 ms, suspect 300 ms, retransmit 100 ms, catch-up 50 ms) and, for
     * M-Ring, the cluster's group {@code group:port}.
     */
    static OrderingProtocol ordering(int n, Ring.Kind kind, String group, int port) {
        RingConfig.Builder b = testConfig(n, kind);
        if (kind == Ring.Kind.U_RING) {
            return RingPaxos.uRing(b.build());
        }
        return RingPaxos.mRing(b.mringGroup(group).mringPort(port).build());
    }

    /** The test timeouts of {@link #ordering}, to add settings to. */
    static RingConfig.Builder testConfig(int n, Ring.Kind kind) {
        return RingConfig.builder(n, kind).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).restartHold(Duration.ofMillis(500));
    }

    /** A random administratively scoped group, {@code 239.255.x.y}. */
    static String randomGroup() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255);
    }

    /** Three replicas; an M-Ring cluster gets a random group and port of its own, the same at every replica. */
    private static LocalCluster cluster(Ring.Kind kind, Path dir, long snapshotEvery) {
        String group = randomGroup();
        int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        return new LocalCluster(3, n -> ordering(n, kind, group, port), kv -> kv, 16 << 20, dir, snapshotEvery);
    }

    private static void awaitAll(List<CompletableFuture<ByteBuffer>> replies) throws Exception {
        for (CompletableFuture<ByteBuffer> r : replies) {
            r.get(60, TimeUnit.SECONDS);
        }
    }

    private static void everyReplicaTakesItsClients(Ring.Kind kind) throws Exception {
        try (LocalCluster c = cluster(kind, null, 10_000)) {
            List<SmrClient> clients = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            awaitAll(load(clients, "a", 200));
            for (int k = 0; k < 3; k++) {
                assertThat(text(clients.get(k).invoke(cmd("GET own" + k)).get(20, TimeUnit.SECONDS)))
                        .isEqualTo(expectedOwn("a", 200));
                assertThat(clients.get(k).currentReplica()).as("the client never left its replica").isZero();
            }
            awaitConverged(c);
            String shared = c.machines.get(0).data.get("shared");
            // A batch decided twice is executed twice in the same order everywhere; the sessions answer the copy.
            assertThat(shared.split(",")).as("%s: every append once", kind).hasSize(600).doesNotHaveDuplicates();
            // The coordinator's gauge is published by its protocol stage, perhaps after the last reply.
            Await.until("the coordinator to be published", Duration.ofSeconds(30),
                    () -> c.leader("parallax.ring.coordinator") >= 0);
            int coordinator = c.leader("parallax.ring.coordinator");
            assertThat(coordinator).as("the coordinator is published").isBetween(0, 2);
            for (int r = 0; r < 3; r++) {
                io.micrometer.core.instrument.FunctionCounter redirects =
                        c.replicas.get(r).meterRegistry().find("parallax.client.redirects").functionCounter();
                assertThat(redirects == null ? 0 : redirects.count()).as("redirects by replica %d", r).isZero();
            }
        }
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.3: U-Ring — every replica proposes its clients' commands (no redirect), answers them, all converge")
    void uRingEveryReplicaTakesItsClients() throws Exception {
        everyReplicaTakesItsClients(Ring.Kind.U_RING);
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.2: M-Ring over loopback multicast — every replica proposes its clients' commands, all converge")
    void mRingEveryReplicaTakesItsClients() throws Exception {
        everyReplicaTakesItsClients(Ring.Kind.M_RING);
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.5: a U-Ring replica stopped and restarted catches up from its log and its peers")
    void aRestartedReplicaCatchesUp(@TempDir Path dir) throws Exception {
        try (LocalCluster c = cluster(Ring.Kind.U_RING, dir, 10_000)) {
            List<SmrClient> all = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            awaitAll(load(all, "x", 50));
            c.stop(2);
            awaitAll(load(all.subList(0, 2), "y", 100));
            c.restart(2);
            SmrClient again = c.clientOf(2);
            assertThat(text(again.invoke(cmd("APPEND own2 z,")).get(60, TimeUnit.SECONDS)))
                    .isEqualTo(expectedOwn("x", 50) + "z,");
            awaitConverged(c);
            assertThat(c.machines.get(2).data.get("own0")).isEqualTo(expectedOwn("x", 50) + expectedOwn("y", 100));
        }
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.7: a replica whose log was wiped after its peers compacted installs a snapshot and converges")
    void aReplicaBehindEveryCompactionInstallsASnapshot(@TempDir Path dir) throws Exception {
        try (LocalCluster c = cluster(Ring.Kind.U_RING, dir, 20)) {
            List<SmrClient> all = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            awaitAll(load(all, "x", 20));
            c.stop(2);
            deleteTree(dir.resolve("replica-2"));
            List<SmrClient> two = all.subList(0, 2);
            // One command at a time: one instance each, so the peers snapshot (every 20) and trim past replica 2's log.
            for (int i = 0; i < 120; i++) {
                two.get(i % 2).invoke(cmd("APPEND seq " + i + ",")).get(60, TimeUnit.SECONDS);
            }
            c.restart(2);
            awaitAll(load(two, "z", 40));
            awaitConverged(c);
            assertThat(c.replicas.get(2).meterRegistry().find("parallax.snapshots.installed").counter().count())
                    .as("caught up by a snapshot").isPositive();
            assertThat(c.machines.get(2).data.get("shared").split(",")).as("every append once").doesNotHaveDuplicates();
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
