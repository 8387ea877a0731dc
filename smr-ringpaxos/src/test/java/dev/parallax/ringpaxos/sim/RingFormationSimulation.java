package dev.parallax.ringpaxos.sim;

import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.smr.ClientWorkload;
import dev.parallax.core.testkit.smr.HealAndCheck;
import dev.parallax.core.testkit.smr.SimClient;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One seeded run of a ring that must form (rule C8; seed 003 (Ring Paxos) §3.3.5: "a failed
 * coordinator is detected by the other processes, which select a new coordinator"; Appendix Prop. 2:
 * after GST a correct coordinator and a ring of correct members form): n {@link RingSimReplica}s
 * that detect failures as replicas do — the runtime's {@code MemberDetector} over arrival stamps
 * ({@link RingSimulation.Options#withRuntimeDetector()}) — and start one after another, each at a
 * time drawn in {@code [0, stagger]}, or, in the cold-start case, with member 0 never started. The
 * network is {@link RingSimulation.Scenario#hostile}'s (delays 0.1–4 ms, 5% loss, 3% duplication on
 * links and datagrams) without a nemesis. Two closed-loop clients load the members from the first
 * moment; they reach any member and fail over on silence.
 *
 * <p>Checked on every event as in {@link RingSimulation}: agreement and validity, one body per id,
 * the ring facts ({@link QuorumWitness}), the bounds. When the last member has started (the "heal"
 * of {@link HealAndCheck}): every command proposed from then on decided within the progress bound,
 * every client command answered, the started members converged to one state, the history
 * linearizable.
 *
 * <p>Not thread-safe: one test thread per run.
 */
final class RingFormationSimulation {
    static final long MS = RingSimulation.MS;

    private RingFormationSimulation() {
    }

    /**
     * @param config          the ring (kind, members) with the simulations' settings
     * @param stagger         the latest a member starts
     * @param zeroNeverStarts whether member 0 never starts (a cold start without it)
     * @param crashAt         when the coordinator crashes while every other pair of members is cut
     *                        apart for {@code splitFor} (0: never); it stays down until the heal, and
     *                        the others must lead a ring {@link #FORM_WITHIN} after the cut ends
     * @param splitFor        how long the members left are cut from each other
     */
    record Scenario(RingConfig config, long stagger, boolean zeroNeverStarts, long crashAt, long splitFor) {
        /** After the cut of {@link #crashAt} ends, the time the members left have to lead a ring. */
        static final long FORM_WITHIN = 1_500 * MS;

        /** Staggered starts over {@code stagger} ms with the simulations' settings ({@link RingSimulation.Scenario#config}). */
        static Scenario staggered(Ring.Kind kind, int replicas, long staggerMs) {
            return new Scenario(RingSimulation.Scenario.config(kind, replicas).build(), staggerMs * MS, false, 0, 0);
        }

        /** Member 0 never starts; the others start within {@code staggerMs} ms. */
        static Scenario withoutMemberZero(Ring.Kind kind, int replicas, long staggerMs) {
            return new Scenario(RingSimulation.Scenario.config(kind, replicas).build(), staggerMs * MS, true, 0, 0);
        }

        /**
         * Members start within 200 ms; at 0.6 s the coordinator crashes and the members left are cut
         * from each other for 1 s, so each one's suspicion of it (handed over by the detector) and
         * the Phase 1 it starts come to nothing; once the cut ends they must form a ring without it.
         */
        static Scenario coordinatorCrashDuringSplit(Ring.Kind kind, int replicas) {
            return new Scenario(RingSimulation.Scenario.config(kind, replicas).build(), 200 * MS, false, 600 * MS,
                    1_000 * MS);
        }

        /** When the faults end: every member started, and the crash, the cut and the time to form over. */
        long faultyFor() {
            return Math.max(stagger, crashAt > 0 ? crashAt + splitFor + FORM_WITHIN : 0) + 10 * MS;
        }

        /** The base scenario the members share: hostile network, no nemesis, two clients. */
        RingSimulation.Scenario base() {
            RingSimulation.Scenario h = RingSimulation.Scenario.hostile(config);
            return h.withPlan(h.plan().withNemesis(0, 0, false)).withClients(2).withFaultyFor(faultyFor());
        }
    }

    /** The coordinator crashes; every pair of the others is cut apart both ways. */
    private static void crashCoordinatorAndSplit(Simulation<Object> sim, int replicas) {
        int coordinator = 0;
        for (int r = 0; r < replicas; r++) {
            if (sim.isUp(r) && sim.<RingSimReplica>node(r).core() != null
                    && sim.<RingSimReplica>node(r).core().isCoordinator()) {
                coordinator = r;
            }
        }
        sim.crash(coordinator);
        for (int a = 0; a < replicas; a++) {
            for (int b = 0; b < replicas; b++) {
                if (a != b && a != coordinator && b != coordinator) {
                    sim.cutLink(a, b);
                }
            }
        }
    }

    /** Some member that is up leads a ring, or the run fails: the members left parked. */
    private static void someoneLeads(Simulation<Object> sim, int replicas) {
        for (int r = 0; r < replicas; r++) {
            if (sim.isUp(r) && sim.<RingSimReplica>node(r).core() != null
                    && sim.<RingSimReplica>node(r).core().isCoordinator()) {
                return;
            }
        }
        throw new AssertionError("parked: nobody leads a ring " + Scenario.FORM_WITHIN / MS
                + " ms after the cut ended; members: " + RingSimulation.describe(sim, replicas));
    }

    /** What a run produced. */
    record Outcome(long seed, long decisions, long formedAt, long roundChanges, RingSimulation.Shared shared) {
    }

    static Outcome run(long seed, Scenario scenario) {
        RingSimulation.Scenario s = scenario.base();
        Simulation<Object> sim = new Simulation<>(seed, s.plan());
        RingSimulation.Shared shared = new RingSimulation.Shared(s, RingSimulation.Options.NONE.withRuntimeDetector());
        SplittableRandom starts = sim.random().split();
        List<Integer> started = new ArrayList<>();
        for (int r = 0; r < s.replicas(); r++) {
            boolean never = scenario.zeroNeverStarts() && r == 0;
            shared.startAt[r] = never ? Long.MAX_VALUE : starts.nextLong(scenario.stagger() + 1);
            if (!never) {
                started.add(r);
            }
        }
        if (s.config().kind() == Ring.Kind.M_RING) {
            sim.measureDatagramsWith(RingSimReplica::datagramBytes);
        }
        for (int r = 0; r < s.replicas(); r++) {
            sim.addNode(r, ctx -> new RingSimReplica(ctx, shared), true);
        }
        if (scenario.crashAt() > 0) {
            sim.schedule(scenario.crashAt(), "crash the coordinator, split the others",
                    () -> crashCoordinatorAndSplit(sim, s.replicas()));
            sim.schedule(scenario.crashAt() + scenario.splitFor(), "end the split", sim::heal);
            sim.schedule(scenario.crashAt() + scenario.splitFor() + Scenario.FORM_WITHIN, "someone leads",
                    () -> someoneLeads(sim, s.replicas()));
        }
        CoordinatorWatch coordinators = new CoordinatorWatch(sim, s.replicas());
        sim.addInvariant(coordinators::observe);
        long[] formedAt = {-1};
        sim.addInvariant(() -> {
            if (formedAt[0] < 0 && shared.safety.decisions() > 0) {
                formedAt[0] = sim.now();
            }
        });
        sim.addInvariant(() -> {
            try {
                shared.progress.check(sim.now());
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; members: " + RingSimulation.describe(sim, s.replicas()), e);
            }
        });
        sim.addInvariant(() -> shared.bounds.check(sim, s.replicas()));
        HistoryRecorder<KvOp, String> history = new HistoryRecorder<>(sim::now);
        SplittableRandom workloads = sim.random().split();
        List<Integer> clientIds = new ArrayList<>();
        long loadStops = s.faultyFor() + s.loadAfterHeal();
        for (int c = 0; c < s.clients(); c++) {
            int id = 100 + c;
            clientIds.add(id);
            ClientWorkload load = new ClientWorkload(workloads.split(), id, s.opsPerClient(), loadStops, 0);
            long clientSeed = workloads.nextLong();
            sim.addNode(id, ctx -> new SimClient(ctx, s.replicas(), load, history, RingSimulation.RETRY_TIMEOUT,
                    s.invokeTimeout(), RingSimulation.CLIENT_WINDOW, 0, clientSeed, SimClient.RANDOM_REPLICA), false);
        }
        HealAndCheck.run(sim, clientIds, s.faultyFor(), shared.progress, s.progressBound(),
                new HealAndCheck.Replicas(started.size(), "member", () -> converged(sim, started),
                        () -> RingSimulation.describe(sim, s.replicas()),
                        i -> sim.<RingSimReplica>node(started.get(i)).state()),
                history, RingSimulation.CHECK_STEPS);
        if (formedAt[0] < 0) {
            throw new AssertionError("seed " + seed + ": no ring decided anything; members: "
                    + RingSimulation.describe(sim, s.replicas()));
        }
        for (int r : started) {
            sim.<RingSimReplica>node(r).reportTotals();
        }
        return new Outcome(seed, shared.safety.decisions(), formedAt[0], coordinators.roundChanges(), shared);
    }

    private static boolean converged(Simulation<Object> sim, List<Integer> started) {
        long applied = sim.<RingSimReplica>node(started.get(0)).applied();
        for (int r : started) {
            RingSimReplica replica = sim.node(r);
            if (replica.applied() != applied || !replica.settled()) {
                return false;
            }
        }
        return true;
    }
}
