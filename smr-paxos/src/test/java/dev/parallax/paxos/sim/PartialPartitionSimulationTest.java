package dev.parallax.paxos.sim;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.check.Operation;
import dev.parallax.core.testkit.CompletionGaps;
import dev.parallax.core.testkit.FaultPlan;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.smr.ClientWorkload;
import dev.parallax.core.testkit.smr.ProgressMonitor;
import dev.parallax.core.testkit.smr.ReplicaCounters;
import dev.parallax.core.testkit.smr.SafetyMonitor;
import dev.parallax.core.testkit.smr.SimClient;
import dev.parallax.core.testkit.smr.SnapshotShelf;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.Value;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Partial partitions in virtual time: a loaded cluster on a calm network (delays
 * 0.1–2 ms, no loss) meets one scripted fault that lasts seconds — the leader's inbound links cut
 * (it sends but hears nobody), its outbound links cut, a follower's inbound links cut, or a bridge
 * (the leader and one follower cut from each other, both reaching the rest). Asserted per seed: the
 * longest gap between two completed client writes from the fault until the heal stays within 2 ×
 * the suspect timeout (so writes resume within 2 × suspect of the fault, and no later stall), and at
 * most two leaders take over during the fault (no flapping); after the heal, every replica
 * converges and the history is linearizable. Seeds: 10 per fault aimed at the leader and 5 per
 * follower a fault cuts, by default; a thousandth and a two-thousandth of {@code -Dsim.seeds} when
 * that is more (100 and 50 under {@code -Pstress}); {@code -Dsim.seed=S} replays one.
 *
 * <p>Before check-quorum and pre-vote, the leader whose inbound links were cut kept leading
 * forever (writes stalled until the heal), the bridge made leadership flap for the whole fault,
 * and a follower that could not hear stalled writes by starting views it could never finish.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class PartialPartitionSimulationTest {
    private static final long MS = PaxosSimulation.MS;
    /** Seeds per fault aimed at the leader: 10 by default, a thousandth of {@code -Dsim.seeds} beyond (100 under stress). */
    private static final int SEEDS = Math.max(10, SimulationSeeds.count(1000) / 1000);
    /** Seeds per fault and per follower it cuts: 5 by default, 50 under stress. */
    private static final int SEEDS_PER_FOLLOWER = Math.max(5, SimulationSeeds.count(1000) / 2000);
    private static final long WARM_UP = 500 * MS;
    private static final long FAULT = 3_000 * MS;

    @Test
    void aLeaderThatCannotHearStepsDownAndWritesResume() {
        check("leader inbound cut", 3, SEEDS, (sim, run) -> sim.cutInbound(run.leader));
        check("leader inbound cut", 5, SEEDS, (sim, run) -> sim.cutInbound(run.leader));
    }

    @Test
    void aBridgeDoesNotMakeLeadershipFlap() {
        for (int n : new int[]{3, 5}) {
            for (int offset = 1; offset < n; offset++) {
                int o = offset;
                check("bridge cutting the leader from its follower +" + o, n, SEEDS_PER_FOLLOWER,
                        (sim, run) -> sim.bridge(Set.of(run.leader), Set.of((run.leader + o) % n)));
            }
        }
    }

    @Test
    void aLeaderThatCannotSendIsReplaced() {
        check("leader outbound cut", 3, SEEDS, (sim, run) -> sim.cutOutbound(run.leader));
        check("leader outbound cut", 5, SEEDS, (sim, run) -> sim.cutOutbound(run.leader));
    }

    @Test
    void aFollowerThatCannotHearDoesNotDisruptTheLeader() {
        for (int n : new int[]{3, 5}) {
            for (int offset = 1; offset < n; offset++) {
                int o = offset;
                check("inbound cut of follower +" + o, n, SEEDS_PER_FOLLOWER,
                        (sim, run) -> sim.cutInbound((run.leader + o) % n));
            }
        }
    }

    /** What a fault does to the running simulation; {@code run} names the leader at the fault. */
    @FunctionalInterface
    interface Fault {
        void apply(Simulation<Object> sim, Run run);
    }

    private static void check(String what, int n, int seeds, Fault fault) {
        long[] worst = new long[4]; // gap, its seed, leaders that took over, their seed
        long suspect = PaxosSimulation.Scenario.hostile(n).config().suspectNanos();
        int ran = SimulationSeeds.forEach("partial partition, " + what + ", n=" + n, seeds, seed -> {
            Run run = new Run(seed, n);
            run.sim.runUntil(WARM_UP);
            run.leader = run.leaders.currentLeader();
            assertThat(run.leader).as("%s, seed %d: a leader after the warm-up", what, seed).isNotNegative();
            long viewsBefore = run.leaders.viewChanges();
            long faultAt = run.sim.now();
            fault.apply(run.sim, run);
            run.sim.runUntil(faultAt + FAULT);
            long gap = run.longestWriteGap(faultAt, run.sim.now());
            long views = run.leaders.viewChanges() - viewsBefore;
            run.sim.heal();
            run.finish(what);
            if (gap > worst[0]) {
                worst[0] = gap;
                worst[1] = seed;
            }
            if (views > worst[2]) {
                worst[2] = views;
                worst[3] = seed;
            }
        });
        System.out.printf("partial partition, %s, n=%d: %d seeds, longest write gap %d ms (seed %d; bound %d ms), "
                        + "at most %d leaders took over (seed %d)%n", what, n, ran, worst[0] / MS, worst[1],
                2 * suspect / MS, worst[2], worst[3]);
        assertThat(worst[0]).as("%s, n=%d: longest write gap during the fault (ns), seed %d", what, n, worst[1])
                .isLessThanOrEqualTo(2 * suspect);
        assertThat(worst[2]).as("%s, n=%d: leaders that took over during the fault, seed %d", what, n, worst[3])
                .isLessThanOrEqualTo(2);
    }

    /** One seeded cluster: n replicas, four closed-loop clients, a leader watch and a history. */
    static final class Run {
        final Simulation<Object> sim;
        final LeaderWatch leaders;
        final HistoryRecorder<KvOp, String> history;
        final List<Integer> clients = new ArrayList<>();
        final int n;
        final long suspect;
        int leader;

        Run(long seed, int n) {
            this.n = n;
            PaxosConfig config = PaxosSimulation.Scenario.hostile(n).config();
            this.suspect = config.suspectNanos();
            sim = new Simulation<>(seed, new FaultPlan(100_000, 2 * MS, 0, 0, 0, 0, false, MS));
            SafetyMonitor<Value> safety = new SafetyMonitor<>(Value::isNoop);
            ProgressMonitor progress = new ProgressMonitor();
            SnapshotShelf shelf = new SnapshotShelf();
            ReplicaCounters counters = new ReplicaCounters();
            for (int r = 0; r < n; r++) {
                sim.addNode(r, ctx -> new SimReplica(ctx, config, safety, progress, shelf, 0,
                        SimReplica.Switches.CORRECT, counters), true);
            }
            leaders = new LeaderWatch(sim, n);
            sim.addInvariant(leaders::observe);
            history = new HistoryRecorder<>(sim::now);
            SplittableRandom workloads = sim.random().split();
            long stopAt = WARM_UP + FAULT + 1_000 * MS;
            for (int c = 0; c < 4; c++) {
                int id = 100 + c;
                clients.add(id);
                ClientWorkload load = new ClientWorkload(workloads.split(), id, Long.MAX_VALUE, stopAt);
                long clientSeed = workloads.nextLong();
                // A client gives up on a silent replica after a quarter of the suspect timeout.
                sim.addNode(id, ctx -> new SimClient(ctx, n, load, history, suspect / 4, SimClient.NEVER,
                        PaxosSimulation.CLIENT_WINDOW, 0, clientSeed), false);
            }
        }

        /**
         * The longest time in {@code [from, to]} without a completed write: between {@code from}
         * and the first completion, between two completions, and from the last one to {@code to}.
         */
        long longestWriteGap(long from, long to) {
            List<Long> done = new ArrayList<>();
            for (Operation<KvOp, String> op : history.history().operations()) {
                if (!op.outcomeUnknown() && !(op.input() instanceof KvOp.Get)
                        && op.returnNanos() >= from && op.returnNanos() <= to) {
                    done.add(op.returnNanos());
                }
            }
            return CompletionGaps.longest(done, from, to);
        }

        /** After the heal: clients finish, replicas converge, the history is linearizable. */
        void finish(String what) {
            boolean done = sim.runUntil(() -> clients.stream().allMatch(id -> sim.<SimClient>node(id).done()),
                    sim.now() + 8_000 * MS);
            if (!done) {
                throw sim.failure(what + ": client operations still pending 8 s after the heal");
            }
            boolean converged = sim.runUntil(() -> {
                long applied = sim.<SimReplica>node(0).applied();
                for (int r = 1; r < n; r++) {
                    if (sim.<SimReplica>node(r).applied() != applied) {
                        return false;
                    }
                }
                return true;
            }, sim.now() + 3_000 * MS);
            if (!converged) {
                throw sim.failure(what + ": replicas did not converge after the heal");
            }
            CheckResult lin = LinearizabilityChecker.check(new KvModel(), history.history());
            assertThat(lin.isLinearizable()).as("%s: linearizable\n%s", what, lin).isTrue();
        }
    }
}
