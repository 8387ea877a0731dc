package dev.parallax.ringpaxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.ReadChecks.everyReplicaSeesEveryCompletedWrite;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-index reads on real U-Ring, M-Ring and Multi-Ring Paxos replicas over loopback
 * ({@code SmrClient.query}, the replica's query path; {@code RingReads} for a ring, the merge's
 * {@code MergedReads} for Multi-Ring): every replica answers queries itself, the coordinator's and
 * the others', and a query issued after a write completed sees it; reads go on after the
 * coordinator stops.
 */
class RingReadIndexReplicaTest {

    private static LocalCluster ring(Ring.Kind kind) {
        String group = RingReplicaClusterTest.randomGroup();
        int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        return new LocalCluster(3, n -> RingReplicaClusterTest.ordering(n, kind, group, port));
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("a ring: every replica answers queries, and each sees every write that completed before it was issued")
    void everyRingReplicaAnswersAndSeesCompletedWrites(Ring.Kind kind) throws Exception {
        try (LocalCluster cluster = ring(kind)) {
            everyReplicaSeesEveryCompletedWrite(cluster, 100);
        }
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("Multi-Ring: a query waits until the merge passed every ring's confirmed point, at every replica")
    void everyMultiRingReplicaAnswersAndSeesCompletedWrites(Ring.Kind kind) throws Exception {
        var protocol = MultiRingReplicaClusterTest.ordering(3, kind);
        try (LocalCluster cluster = new LocalCluster(3, n -> protocol)) {
            everyReplicaSeesEveryCompletedWrite(cluster, 100);
        }
    }

    @Test
    @DisplayName("after the coordinator stops, queries to the others are answered once a new round is confirmed, and see earlier writes")
    void readsGoOnAfterTheCoordinatorStops() throws Exception {
        try (LocalCluster cluster = ring(Ring.Kind.U_RING)) {
            SmrClient writer = cluster.client();
            writer.invoke(cmd("SET k before")).get(20, TimeUnit.SECONDS);
            int coordinator = Math.max(0, cluster.replicas.get(0).leaderHint());
            int other = (coordinator + 1) % 3;
            SmrClient reader = cluster.readingClient(other);
            cluster.stop(coordinator);
            assertThat(text(reader.query(cmd("GET k")).get(20, TimeUnit.SECONDS))).isEqualTo("before");
            writer.invoke(cmd("SET k after")).get(20, TimeUnit.SECONDS);
            assertThat(text(reader.query(cmd("GET k")).get(20, TimeUnit.SECONDS))).as("the write completed before the query")
                    .isEqualTo("after");
        }
    }
}
