package dev.parallax.core.testkit;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The simulator's partial partitions: one-way cuts and bridges, by hand and
 * drawn by the nemesis. Each node pings every other node on each tick and records who it heard.
 */
class PartialPartitionTest {
    private static final long MS = 1_000_000L;

    /** A ping carrying nothing: who sent it is all that matters. */
    record Ping() {
    }

    /** Pings every node on each tick; remembers from whom pings arrived since the last {@link #forget}. */
    static final class Pinger implements SimNode<Ping> {
        final NodeContext<Ping> ctx;
        final int nodes;
        final Set<Integer> heard = new TreeSet<>();

        Pinger(NodeContext<Ping> ctx, int nodes) {
            this.ctx = ctx;
            this.nodes = nodes;
        }

        void forget() {
            heard.clear();
        }

        @Override
        public void onMessage(int from, Ping m) {
            heard.add(from);
        }

        @Override
        public void onTick() {
            for (int to = 0; to < nodes; to++) {
                if (to != ctx.id()) {
                    ctx.send(to, new Ping());
                }
            }
        }
    }

    private static Simulation<Ping> cluster(long seed, FaultPlan plan, int n) {
        Simulation<Ping> sim = new Simulation<>(seed, plan);
        for (int i = 0; i < n; i++) {
            sim.addNode(i, ctx -> new Pinger(ctx, n), true);
        }
        return sim;
    }

    /** Who each node heard during the next 50 ms. */
    private static List<Set<Integer>> listen(Simulation<Ping> sim, int n) {
        for (int i = 0; i < n; i++) {
            sim.<Pinger>node(i).forget();
        }
        sim.runFor(50 * MS);
        List<Set<Integer>> heard = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            heard.add(new TreeSet<>(sim.<Pinger>node(i).heard));
        }
        return heard;
    }

    @Test
    void aCutInboundNodeStillReachesTheOthersButHearsNobody() {
        Simulation<Ping> sim = cluster(1, FaultPlan.reliable(), 3);
        sim.runFor(10 * MS);
        sim.cutInbound(0);
        List<Set<Integer>> heard = listen(sim, 3);
        assertThat(heard.get(0)).isEmpty();
        assertThat(heard.get(1)).containsExactly(0, 2);
        assertThat(heard.get(2)).containsExactly(0, 1);
        assertThat(sim.stats().oneWayCuts()).isEqualTo(1);
        sim.heal();
        assertThat(listen(sim, 3).get(0)).containsExactly(1, 2);
        assertThat(sim.networkIntact()).isTrue();
    }

    @Test
    void aCutOutboundNodeHearsEveryoneButReachesNobody() {
        Simulation<Ping> sim = cluster(2, FaultPlan.reliable(), 3);
        sim.cutOutbound(2);
        List<Set<Integer>> heard = listen(sim, 3);
        assertThat(heard.get(2)).containsExactly(0, 1);
        assertThat(heard.get(0)).containsExactly(1);
        assertThat(heard.get(1)).containsExactly(0);
    }

    @Test
    void aBridgeCutsTwoSidesFromEachOtherWhileTheBridgeReachesBoth() {
        Simulation<Ping> sim = cluster(3, FaultPlan.reliable(), 5);
        sim.bridge(Set.of(0, 1), Set.of(3));
        List<Set<Integer>> heard = listen(sim, 5);
        assertThat(heard.get(0)).containsExactly(1, 2, 4);
        assertThat(heard.get(1)).containsExactly(0, 2, 4);
        assertThat(heard.get(3)).containsExactly(2, 4);
        assertThat(heard.get(2)).as("a bridge node").containsExactly(0, 1, 3, 4);
        assertThat(heard.get(4)).as("a bridge node").containsExactly(0, 1, 2, 3);
        assertThat(sim.stats().bridges()).isEqualTo(1);
        assertThatThrownBy(() -> sim.bridge(Set.of(0), Set.of(0, 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sim.cutLink(1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMessageInFlightWhenALinkIsCutIsLost() {
        Simulation<Ping> sim = cluster(4, FaultPlan.reliable().withDelays(5 * MS, 5 * MS), 2);
        sim.runFor(3 * MS); // node 0's first pings are on the wire, none has arrived yet
        assertThat(sim.<Pinger>node(1).heard).isEmpty();
        sim.cutLink(0, 1);
        sim.runFor(20 * MS);
        assertThat(sim.<Pinger>node(1).heard).isEmpty();
        assertThat(sim.<Pinger>node(0).heard).containsExactly(1);
    }

    @Test
    void clientsAreNeverCutByAPartialPartition() {
        Simulation<Ping> sim = cluster(5, FaultPlan.reliable(), 2);
        sim.addNode(100, ctx -> new Pinger(ctx, 2), false);
        assertThatThrownBy(() -> sim.cutLink(100, 0)).isInstanceOf(IllegalArgumentException.class);
        sim.cutInbound(0);
        sim.<Pinger>node(0).forget();
        sim.runFor(20 * MS);
        assertThat(sim.<Pinger>node(0).heard).containsExactly(100);
    }

    @Test
    void theNemesisDrawsEveryShapeAndReplaysIdentically() {
        FaultPlan plan = FaultPlan.hostile(1).withPartialPartitions(true);
        long[] totals = new long[4];
        for (long seed = 1; seed <= 10; seed++) {
            Simulation<Ping> sim = cluster(seed, plan, 3);
            sim.runFor(3_000 * MS);
            SimulationStats s = sim.stats();
            totals[0] += s.partitionsStarted();
            totals[1] += s.oneWayCuts();
            totals[2] += s.bridges();
            totals[3] += s.partitioned();
            Simulation<Ping> again = cluster(seed, plan, 3);
            again.runFor(3_000 * MS);
            assertThat(again.traceHash()).isEqualTo(sim.traceHash());
        }
        assertThat(totals[0]).as("two-sided partitions").isPositive();
        assertThat(totals[1]).as("one-way cuts").isPositive();
        assertThat(totals[2]).as("bridges").isPositive();
        assertThat(totals[3]).as("messages lost to partitions").isPositive();
    }

    @Test
    void theLeaderHuntingNemesisAimsPartialPartitionsAtTheLeader() {
        Simulation<Ping> sim = cluster(6, FaultPlan.hostile(0).withPartialPartitions(true), 3);
        sim.targetLeader(() -> 1, 1.0);
        sim.runFor(5_000 * MS);
        SimulationStats s = sim.stats();
        assertThat(s.leaderPartialCuts()).isPositive();
        assertThat(s.leaderIsolations()).isPositive();
        assertThat(s.oneWayCuts() + s.bridges()).isGreaterThanOrEqualTo(s.leaderPartialCuts());
    }

    @Test
    void withoutPartialPartitionsTheNemesisOnlySplitsTheNetworkInTwo() {
        Simulation<Ping> sim = cluster(7, FaultPlan.hostile(1), 3);
        sim.targetLeader(() -> 0, 0.5);
        sim.runFor(3_000 * MS);
        assertThat(sim.stats().partitionsStarted()).isPositive();
        assertThat(sim.stats().oneWayCuts() + sim.stats().bridges() + sim.stats().leaderPartialCuts()).isZero();
    }
}
