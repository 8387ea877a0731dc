package dev.parallax.core.testkit;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Tests of the simulator itself, driven by a toy gossip protocol ({@link MaxNode}): each node keeps
 * the largest value it has seen, persists it, and gossips it.
 */
class SimulationTest {
    private static final long MS = 1_000_000L;
    private static final int N = 3;

    /** Immutable gossip message. */
    record Max(long value) {
    }

    /** The toy protocol node: persists a proposal with sync, a gossiped value without. */
    static final class MaxNode implements SimNode<Max> {
        final NodeContext<Max> ctx;
        long max;
        long ticks;

        MaxNode(NodeContext<Max> ctx) {
            this.ctx = ctx;
        }

        @Override
        public void onStart() {
            ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> max = Math.max(max, r.getLong(0)));
        }

        void propose(long v) {
            if (v > max) {
                max = v;
                ctx.log().append(ByteBuffer.allocate(8).putLong(0, v));
                ctx.log().sync();
                gossip();
            }
        }

        private void gossip() {
            for (int to = 0; to < N; to++) {
                if (to != ctx.id()) {
                    ctx.send(to, new Max(max));
                }
            }
        }

        @Override
        public void onMessage(int from, Max m) {
            if (m.value() > max) {
                max = m.value();
                ctx.log().append(ByteBuffer.allocate(8).putLong(0, max));
            }
        }

        @Override
        public void onTick() {
            if (++ticks % 10 == 0) {
                gossip();
            }
        }
    }

    private static Simulation<Max> cluster(long seed, FaultPlan plan) {
        Simulation<Max> sim = new Simulation<>(seed, plan);
        for (int i = 0; i < N; i++) {
            sim.addNode(i, MaxNode::new, true);
        }
        return sim;
    }

    /** Proposes 1, 2, 3, ... at random up nodes every 5 ms. */
    private static void workload(Simulation<Max> sim, int proposals) {
        for (int k = 1; k <= proposals; k++) {
            long value = k;
            sim.schedule(k * 5 * MS, "propose " + k, () -> {
                int target = sim.random().nextInt(N);
                if (sim.isUp(target)) {
                    sim.<MaxNode>node(target).propose(value);
                }
            });
        }
    }

    private static long runHostile(long seed) {
        Simulation<Max> sim = cluster(seed, FaultPlan.hostile(1));
        workload(sim, 200);
        sim.runUntil(1_200 * MS);
        return sim.traceHash();
    }

    @Test
    void theSameSeedReplaysTheIdenticalTrace() {
        assertThat(runHostile(42)).isEqualTo(runHostile(42));
        assertThat(runHostile(42)).isNotEqualTo(runHostile(43));
    }

    /**
     * Runs that never multicast replay exactly as before the datagram channel existed: these hashes
     * were computed on the code before it (commit 45b557d), so the channel draws no random numbers
     * and leaves no trace unless a node multicasts.
     */
    @Test
    void runsWithoutMulticastKeepTheirTracesFromBeforeTheDatagramChannel() {
        assertThat(runHostile(42)).isEqualTo(-5923003168795519972L);
        assertThat(runLeaderHunting(42)).isEqualTo(4848731697008852083L);
        Simulation<Max> sim = cluster(7, FaultPlan.hostile(1));
        workload(sim, 400);
        sim.runUntil(2_500 * MS);
        assertThat(sim.traceHash()).isEqualTo(3962020966025422898L);
        assertThat(sim.stats().events()).isEqualTo(8483);
        assertThat(sim.stats().datagramsSent() + sim.stats().datagramsDelivered()).isZero();
    }

    /**
     * {@link Simulation#dropMatching} decides without random draws: a rule that matches nothing, and
     * a send observer, leave the pinned trace exactly as it was.
     */
    @Test
    void aDropRuleThatMatchesNothingAndASendObserverKeepThePinnedTrace() {
        Simulation<Max> sim = cluster(7, FaultPlan.hostile(1));
        long[] observed = {0};
        sim.observeSends((from, to, m) -> observed[0]++);
        sim.dropMatching(0, 1, m -> m.value() < 0);
        sim.dropMatching(2, 0, m -> false);
        workload(sim, 400);
        sim.runUntil(2_500 * MS);
        assertThat(sim.traceHash()).isEqualTo(3962020966025422898L);
        assertThat(sim.stats().events()).isEqualTo(8483);
        assertThat(sim.stats().droppedByRule()).isZero();
        assertThat(observed[0]).as("every send seen").isGreaterThanOrEqualTo(sim.stats().delivered() / 2).isPositive();
    }

    @Test
    void aDropRuleLosesExactlyTheMatchingMessagesOfOneLinkUntilStopped() {
        Simulation<Max> sim = new Simulation<>(9, FaultPlan.reliable());
        List<String> received = new ArrayList<>();
        for (int id = 1; id <= 2; id++) {
            int me = id;
            sim.addNode(id, ctx -> new SimNode<>() {
                @Override
                public void onMessage(int from, Max m) {
                    received.add(from + "->" + me + ":" + m.value());
                }

                @Override
                public void onTick() {
                }
            }, true);
        }
        List<NodeContext<Max>> sender = new ArrayList<>();
        sim.addNode(0, ctx -> new SimNode<>() {
            @Override
            public void onStart() {
                sender.add(ctx);
            }

            @Override
            public void onMessage(int from, Max m) {
            }

            @Override
            public void onTick() {
            }
        }, true);
        sim.dropMatching(0, 1, m -> m.value() % 2 == 0);
        for (long v = 0; v < 4; v++) {
            sender.get(0).send(1, new Max(v));
            sender.get(0).send(2, new Max(v));
        }
        sim.runFor(10 * MS);
        assertThat(received).containsExactlyInAnyOrder("0->1:1", "0->1:3", "0->2:0", "0->2:1", "0->2:2", "0->2:3");
        assertThat(sim.stats().droppedByRule()).isEqualTo(2);
        assertThat(sim.traceTail()).anyMatch(l -> l.contains("drop by rule 0->1"));
        sim.stopDropping();
        received.clear();
        sender.get(0).send(1, new Max(6));
        sim.runFor(10 * MS);
        assertThat(received).containsExactly("0->1:6");
        assertThatThrownBy(() -> sim.dropMatching(1, 1, m -> true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sim.dropMatching(0, 42, m -> true)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theHostilePlanInjectsEveryKindOfFault() {
        Simulation<Max> sim = cluster(7, FaultPlan.hostile(1));
        workload(sim, 400);
        sim.runUntil(2_500 * MS);
        SimulationStats s = sim.stats();
        assertThat(s.dropped()).as("lost").isPositive();
        assertThat(s.duplicated()).as("duplicated").isPositive();
        assertThat(s.crashes()).as("crashes").isPositive();
        assertThat(s.restarts()).as("restarts").isPositive();
        assertThat(s.partitionsStarted()).as("partitions").isPositive();
        assertThat(s.partitioned()).as("cut messages").isPositive();
        assertThat(s.delivered()).isPositive();
        assertThat(s.leaderCrashes() + s.leaderIsolations()).as("no leader oracle, no leader hunting").isZero();
    }

    @Test
    void aLeaderHuntingNemesisCrashesAndIsolatesTheNamedLeader() {
        Simulation<Max> sim = cluster(7, FaultPlan.hostile(1));
        sim.targetLeader(() -> 2, 1.0);
        workload(sim, 400);
        sim.runUntil(2_500 * MS);
        SimulationStats s = sim.stats();
        assertThat(s.leaderCrashes()).as("leader crashes").isPositive();
        assertThat(s.leaderIsolations()).as("leader isolations").isPositive();
        // With share 1 and one crash allowed, every crash is a hit on node 2: while 2 is down the
        // crash budget is spent, and while it is up every action hunts it.
        assertThat(s.crashes()).isEqualTo(s.leaderCrashes());
        assertThat(s.partitionsStarted()).isGreaterThanOrEqualTo(s.leaderIsolations());
    }

    @Test
    void aLeaderHuntingNemesisLeavesNodesAloneWhenThereIsNoLeader() {
        Simulation<Max> sim = cluster(7, FaultPlan.hostile(1));
        sim.targetLeader(() -> -1, 1.0);
        workload(sim, 400);
        sim.runUntil(2_500 * MS);
        assertThat(sim.stats().leaderCrashes() + sim.stats().leaderIsolations()).isZero();
        assertThat(sim.stats().crashes()).as("the usual random faults go on").isPositive();
        assertThatThrownBy(() -> sim.targetLeader(() -> 0, 1.5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leaderHuntingReplaysIdentically() {
        assertThat(runLeaderHunting(42)).isEqualTo(runLeaderHunting(42));
        assertThat(runLeaderHunting(42)).isNotEqualTo(runHostile(42));
    }

    private static long runLeaderHunting(long seed) {
        Simulation<Max> sim = cluster(seed, FaultPlan.hostile(1));
        // The "leader" is the up node holding the largest value (lowest id on ties): state-dependent, like a real oracle.
        sim.targetLeader(() -> {
            int best = -1;
            for (int i = 0; i < N; i++) {
                if (sim.isUp(i) && (best < 0 || sim.<MaxNode>node(i).max > sim.<MaxNode>node(best).max)) {
                    best = i;
                }
            }
            return best;
        }, 0.5);
        workload(sim, 200);
        sim.runUntil(1_200 * MS);
        return sim.traceHash();
    }

    @Test
    void delaysReorderMessages() {
        Simulation<Max> sim = new Simulation<>(3, FaultPlan.reliable().withDelays(0, 10 * MS));
        List<Long> received = new ArrayList<>();
        sim.addNode(1, ctx -> new SimNode<>() {
            @Override
            public void onMessage(int from, Max m) {
                received.add(m.value());
            }

            @Override
            public void onTick() {
            }
        }, true);
        sim.addNode(0, ctx -> new SimNode<>() {
            @Override
            public void onStart() {
                for (long v = 0; v < 50; v++) {
                    ctx.send(1, new Max(v));
                }
            }

            @Override
            public void onMessage(int from, Max m) {
            }

            @Override
            public void onTick() {
            }
        }, true);
        sim.runFor(20 * MS);
        assertThat(received).hasSize(50).containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(0, 50).boxed().toList());
        assertThat(received).isNotEqualTo(java.util.stream.LongStream.range(0, 50).boxed().toList());
    }

    @Test
    void syncedStateSurvivesACrashAndVolatileStateDoesNot() {
        Simulation<Max> sim = cluster(1, FaultPlan.reliable());
        sim.runFor(MS);
        MaxNode before = sim.node(0);
        before.propose(5);
        before.ticks = 1234;
        sim.crash(0);
        assertThat(sim.isUp(0)).isFalse();
        sim.restart(0);
        MaxNode after = sim.node(0);
        assertThat(after).isNotSameAs(before);
        assertThat(after.max).isEqualTo(5);
        assertThat(after.ticks).isZero();
        assertThat(after.ctx.incarnation()).isEqualTo(1);
    }

    @Test
    void messagesToAPreviousIncarnationAreNotDelivered() {
        Simulation<Max> sim = new Simulation<>(5, FaultPlan.reliable().withDelays(5 * MS, 5 * MS));
        for (int i = 0; i < N; i++) {
            sim.addNode(i, MaxNode::new, true);
        }
        sim.<MaxNode>node(0).propose(9);
        sim.crash(1);
        sim.restart(1);
        sim.runFor(6 * MS);
        assertThat(sim.<MaxNode>node(1).max).isZero();
        assertThat(sim.<MaxNode>node(2).max).isEqualTo(9);
    }

    @Test
    void aPartitionCutsTrafficUntilHealed() {
        Simulation<Max> sim = cluster(11, FaultPlan.reliable());
        sim.partition(Set.of(0));
        sim.<MaxNode>node(0).propose(3);
        sim.runFor(100 * MS);
        assertThat(sim.<MaxNode>node(1).max).isZero();
        assertThat(sim.<MaxNode>node(2).max).isZero();
        sim.heal();
        boolean converged = sim.runUntil(() -> sim.<MaxNode>node(1).max == 3 && sim.<MaxNode>node(2).max == 3, sim.now() + 100 * MS);
        assertThat(converged).isTrue();
    }

    @Test
    void clientsAreNeverCrashedOrPartitioned() {
        Simulation<Max> sim = cluster(13, FaultPlan.hostile(N));
        List<Long> heard = new ArrayList<>();
        sim.addNode(100, ctx -> new SimNode<>() {
            @Override
            public void onMessage(int from, Max m) {
                heard.add(m.value());
            }

            @Override
            public void onTick() {
                for (int r = 0; r < N; r++) {
                    ctx.send(r, new Max(0));
                }
            }
        }, false);
        sim.runFor(3_000 * MS);
        assertThat(sim.stats().crashes()).isPositive();
        assertThat(sim.isUp(100)).isTrue();
        assertThat(sim.<SimNode<Max>>node(100)).isNotNull();
    }

    @Test
    void afterFaultsStopEveryNodeConverges() {
        SimulationSeeds.forEach("gossip converges", 50, seed -> {
            Simulation<Max> sim = cluster(seed, FaultPlan.hostile(1));
            workload(sim, 100);
            sim.runUntil(600 * MS);
            sim.stopFaults();
            long target = 0;
            for (int i = 0; i < N; i++) {
                target = Math.max(target, sim.<MaxNode>node(i).max);
            }
            long t = target;
            boolean converged = sim.runUntil(() -> {
                for (int i = 0; i < N; i++) {
                    if (sim.<MaxNode>node(i).max != t) {
                        return false;
                    }
                }
                return true;
            }, sim.now() + 2_000 * MS);
            assertThat(converged).as("seed %d converged to %d", seed, t).isTrue();
        });
    }

    @Test
    void aFailingInvariantNamesTheSeedAndReplaysIdentically() {
        SimulationFailure first = failingRun(77);
        assertThat(first.seed()).isEqualTo(77);
        assertThat(first.getMessage()).contains("seed 77").contains("-Dsim.seed=77").contains("deliver");
        SimulationFailure again = failingRun(77);
        assertThat(again.getMessage()).isEqualTo(first.getMessage());
    }

    private static SimulationFailure failingRun(long seed) {
        Simulation<Max> sim = cluster(seed, FaultPlan.hostile(1));
        workload(sim, 100);
        sim.addInvariant(() -> {
            if (sim.isUp(1) && sim.<MaxNode>node(1).max >= 20) {
                throw new IllegalStateException("node 1 reached 20");
            }
        });
        return catchThrowableOfType(SimulationFailure.class, () -> sim.runUntil(2_000 * MS));
    }

    /** A node that records what arrives, when, and counts its ticks. */
    static final class Recorder implements SimNode<Max> {
        final NodeContext<Max> ctx;
        final List<Long> values = new ArrayList<>();
        final List<Long> times = new ArrayList<>();
        long ticks;

        Recorder(NodeContext<Max> ctx) {
            this.ctx = ctx;
        }

        @Override
        public void onMessage(int from, Max m) {
            values.add(m.value());
            times.add(ctx.now());
        }

        @Override
        public void onTick() {
            ticks++;
        }
    }

    private static Simulation<Max> recorders(long seed, FaultPlan plan) {
        Simulation<Max> sim = new Simulation<>(seed, plan);
        for (int i = 0; i < N; i++) {
            sim.addNode(i, Recorder::new, true);
        }
        return sim;
    }

    @Test
    void aPausedNodeProcessesNothingThenTakesItsQueuedArrivalsInOrder() {
        Simulation<Max> sim = recorders(21, FaultPlan.reliable().withDelays(MS, MS));
        sim.runFor(10 * MS);
        Recorder paused = sim.node(1);
        long ticksBefore = paused.ticks;
        sim.pause(1, 2_000 * MS);
        assertThat(sim.isPaused(1)).isTrue();
        assertThat(sim.isUp(1)).as("a paused node is up").isTrue();
        for (long v = 0; v < 20; v++) {
            long value = v;
            sim.schedule(v * 10 * MS, "send " + v, () -> sim.<Recorder>node(0).ctx.send(1, new Max(value)));
        }
        sim.runFor(1_000 * MS);
        assertThat(paused.values).as("nothing delivered while paused").isEmpty();
        assertThat(paused.ticks).as("no ticks while paused").isEqualTo(ticksBefore);
        long resumeAt = 10 * MS + 2_000 * MS;
        sim.runUntil(resumeAt);
        assertThat(sim.traceTail()).anyMatch(l -> l.contains("resume 1 (20 queued, 0 held)"));
        sim.runUntil(resumeAt + 50 * MS);
        assertThat(sim.isPaused(1)).isFalse();
        assertThat(paused.values).as("every queued arrival, in arrival order")
                .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 20).boxed().toList());
        assertThat(paused.times).allMatch(t -> t == resumeAt);
        assertThat(paused.ticks).as("ticks again after the pause").isGreaterThan(ticksBefore);
        assertThat(sim.stats().pauses()).isEqualTo(1);
        assertThat(sim.stats().queuedByPause()).isEqualTo(20);
    }

    @Test
    void messagesInFlightFromANodeThatFreezesArriveAfterItResumes() {
        Simulation<Max> sim = recorders(22, FaultPlan.reliable().withDelays(5 * MS, 5 * MS));
        sim.runFor(MS);
        sim.<Recorder>node(0).ctx.send(1, new Max(7)); // arrives at 6 ms unless held
        sim.runFor(MS);
        sim.pause(0, 3_000 * MS);                      // 2 ms: the message is still on its way
        sim.<Recorder>node(0).ctx.send(2, new Max(8)); // sent while frozen (a test pokes it): held too
        sim.runFor(2_000 * MS);
        assertThat(sim.<Recorder>node(1).values).as("held in the frozen sender").isEmpty();
        assertThat(sim.<Recorder>node(2).values).isEmpty();
        sim.runFor(1_100 * MS);
        assertThat(sim.<Recorder>node(1).values).containsExactly(7L);
        assertThat(sim.<Recorder>node(2).values).containsExactly(8L);
        assertThat(sim.<Recorder>node(1).times.get(0)).as("seconds late: resume at 3002 ms, then the 5 ms delay")
                .isEqualTo(3_007 * MS);
        assertThat(sim.stats().heldByPause()).isEqualTo(2);
    }

    @Test
    void aCrashEndsAPauseAndLosesWhatItQueuedAndHeld() {
        Simulation<Max> sim = recorders(23, FaultPlan.reliable().withDelays(5 * MS, 5 * MS));
        sim.<Recorder>node(1).ctx.send(2, new Max(1));
        sim.<Recorder>node(0).ctx.send(1, new Max(2));
        sim.runFor(MS);
        sim.pause(1, 1_000 * MS);
        sim.runFor(100 * MS);
        sim.crash(1);
        assertThat(sim.isPaused(1)).isFalse();
        sim.restart(1);
        sim.runFor(2_000 * MS);
        assertThat(sim.<Recorder>node(1).values).as("the queue died with the process").isEmpty();
        assertThat(sim.<Recorder>node(2).values).as("the unsent buffer died with the process").isEmpty();
        assertThat(sim.<Recorder>node(1).ticks).as("the new incarnation runs").isPositive();
    }

    @Test
    void crashAllCrashesEveryReplicaAndRestartsEachAfterItsDowntime() {
        Simulation<Max> sim = cluster(24, FaultPlan.reliable());
        sim.runFor(10 * MS);
        sim.<MaxNode>node(0).propose(4);
        sim.runFor(10 * MS);
        sim.crashAll(100 * MS, 300 * MS);
        for (int i = 0; i < N; i++) {
            assertThat(sim.isUp(i)).isFalse();
        }
        assertThat(sim.stats().crashAlls()).isEqualTo(1);
        assertThat(sim.stats().crashes()).isEqualTo(N);
        sim.runFor(99 * MS);
        assertThat(sim.stats().restarts()).isZero();
        sim.runFor(202 * MS);
        for (int i = 0; i < N; i++) {
            assertThat(sim.isUp(i)).as("node %d restarted", i).isTrue();
        }
        assertThat(sim.<MaxNode>node(0).max).as("synced state survives a crash of everyone").isEqualTo(4);
    }

    private static Simulation<Max> withProcessFaults(long seed) {
        Simulation<Max> sim = cluster(seed, FaultPlan.hostile(1));
        sim.processFaults(new ProcessFaults(0.3, 100 * MS, 800 * MS, 0.1, 20 * MS, 200 * MS));
        sim.targetLeader(() -> sim.isUp(0) ? 0 : -1, 0.2);
        workload(sim, 400);
        return sim;
    }

    @Test
    void theNemesisPausesAndCrashesEveryoneReproduciblyAndTheGossipStillConverges() {
        long[] totals = new long[3];
        SimulationSeeds.forEach("process faults", 10, seed -> {
            Simulation<Max> sim = withProcessFaults(seed);
            sim.runUntil(2_500 * MS);
            SimulationStats s = sim.stats();
            totals[0] += s.pauses();
            totals[1] += s.crashAlls();
            totals[2] += s.queuedByPause();
            assertThat(s.crashes()).isGreaterThanOrEqualTo(N * s.crashAlls());
            Simulation<Max> again = withProcessFaults(seed);
            again.runUntil(2_500 * MS);
            assertThat(again.traceHash()).as("replays identically").isEqualTo(sim.traceHash());

            sim.stopFaults();
            for (int i = 0; i < N; i++) {
                assertThat(sim.isUp(i) && !sim.isPaused(i)).as("node %d up and running after the heal", i).isTrue();
            }
            long target = 0;
            for (int i = 0; i < N; i++) {
                target = Math.max(target, sim.<MaxNode>node(i).max);
            }
            long t = target;
            assertThat(sim.runUntil(() -> java.util.stream.IntStream.range(0, N).allMatch(i -> sim.<MaxNode>node(i).max == t),
                    sim.now() + 2_000 * MS)).as("converged").isTrue();
        });
        assertThat(totals[0]).as("pauses").isPositive();
        assertThat(totals[1]).as("crash-alls").isPositive();
        assertThat(totals[2]).as("arrivals queued at paused nodes").isPositive();
    }

    @Test
    void processFaultSharesAreValidated() {
        assertThatThrownBy(() -> new ProcessFaults(0.7, MS, MS, 0.4, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ProcessFaults(0.1, 0, MS, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ProcessFaults(0.1, MS, MS, 0, 2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ProcessFaults.pausesAndCrashAll().maxPause()).isEqualTo(5_000 * MS);
    }

    @Test
    void seedRunnerReportsTheFailingSeed() {
        List<Long> seen = new ArrayList<>();
        assertThatThrownBy(() -> SimulationSeeds.forEach("demo", 10, seed -> {
            seen.add(seed);
            if (seed == 4) {
                throw new IllegalStateException("boom");
            }
        })).isInstanceOf(AssertionError.class).hasMessageContaining("seed 4").hasMessageContaining("-Dsim.seed=4");
        assertThat(seen).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void seedRunnerReplaysOneSeedFromTheSystemProperty() {
        String old = System.getProperty("sim.seed");
        System.setProperty("sim.seed", "12345");
        try {
            List<Long> seen = new ArrayList<>();
            assertThat(SimulationSeeds.forEach("replay", 10, seen::add)).isEqualTo(1);
            assertThat(seen).containsExactly(12345L);
        } finally {
            if (old == null) {
                System.clearProperty("sim.seed");
            } else {
                System.setProperty("sim.seed", old);
            }
        }
    }
}
