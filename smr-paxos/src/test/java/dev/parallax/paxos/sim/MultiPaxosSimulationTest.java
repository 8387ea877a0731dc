package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.smr.SimClient;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Fault-injected simulations of Multi-Paxos with clients (issue: "proven in simulation"). Each seed
 * runs a hostile network (delays, 5% loss, 3% duplication, reordering) and a nemesis that
 * partitions (two-sided, one node's inbound or outbound links cut one way, or a bridge), crashes
 * and restarts replicas and, in a third of its actions, crashes the current leader or aims a
 * partition at it, for 1.5 s (virtual) while four clients keep the cluster loaded, then heals; the
 * clients go on 0.3 s after the heal. Clients give up on an operation after 400 ms and go on with
 * the next while the old command stays in flight, so histories hold operations
 * of unknown outcome and sessions see gaps. Safety and at-most-once are checked on every decision;
 * operations pending at the heal, bounded decision time after it, liveness (every command sent is
 * answered), convergence and linearizability per seed; and over the whole run, that leaders were
 * crashed and isolated, views changed, the network was partitioned (also one way and by bridges), replicas crash-restarted,
 * clients gave up on operations and sessions saw gaps. A further scenario adds process pauses of
 * 0.5–5 s and crashes of every replica at once; a mutation test shows that the linearizability
 * checker catches a replica that answers reads from its local state.
 *
 * <p>Seeds: {@code -Dsim.seeds=N} (1000 by default, 100000 with {@code -Pstress}) for n=3; n=5, the
 * snapshot scenario and n=3 and n=5 with pauses and crash-all a quarter each (250 by default, 25000
 * under stress), as the ring simulations run their variants (the default run's 15-minute budget).
 * A failing seed is printed with the {@code -Dsim.seed=S} that replays it.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MultiPaxosSimulationTest {
    /** Thread CPU time tells the simulations' cost apart from a busy machine's wall time. */
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    @Test
    void threeReplicas() {
        Totals t = run("n=3", SimulationSeeds.count(1000), PaxosSimulation.Scenario.hostile(3));
        t.assertTheFaultsBit();
    }

    @Test
    void fiveReplicas() {
        Totals t = run("n=5", aQuarter(SimulationSeeds.count(1000)), PaxosSimulation.Scenario.hostile(5));
        t.assertTheFaultsBit();
    }

    @Test
    void threeReplicasThatSnapshotAndCompactTheirLogs() {
        Totals t = run("n=3 with snapshots", aQuarter(SimulationSeeds.count(1000)),
                PaxosSimulation.Scenario.hostileWithSnapshots(3));
        t.assertTheFaultsBit();
        if (t.seeds > 20) {
            assertThat(t.snapshotInstalls).as("lagging replicas had to install peers' snapshots").isPositive();
        }
    }

    @Test
    void threeReplicasWithPausesAndCrashesOfEveryReplica() {
        Totals t = run("n=3 with pauses and crash-all", aQuarter(SimulationSeeds.count(1000)),
                PaxosSimulation.Scenario.hostileWithPausesAndCrashAll(3));
        t.assertTheFaultsBit();
        t.assertPausesAndCrashAllsBit();
    }

    @Test
    void fiveReplicasWithPausesAndCrashesOfEveryReplica() {
        Totals t = run("n=5 with pauses and crash-all", aQuarter(SimulationSeeds.count(1000)),
                PaxosSimulation.Scenario.hostileWithPausesAndCrashAll(5));
        t.assertTheFaultsBit();
        t.assertPausesAndCrashAllsBit();
    }

    @Test
    void seedsThatOnceBrokeAgreementNowPass() {
        // The stress run found these: a replica learned (by catch-up) instances above its Phase 1
        // start while preparing, dropped the votes Phase 1 had reported for them, and on leading
        // proposed new values at those decided instances (Proposer.lead started at prepareFrom,
        // not at the learner's first undecided instance). One-way cuts and bridges in the nemesis
        // changed its draws, so these seeds no longer replay that run; the rule is
        // pinned in the core by CheckQuorumAndPreVoteTest.aNewLeaderProposesAboveWhatItLearnedWhilePreparing.
        assertThat(PaxosSimulation.run(5565, PaxosSimulation.Scenario.hostile(3).withInvokeTimeout(SimClient.NEVER))
                .decisions()).isPositive();
        assertThat(PaxosSimulation.run(14448, PaxosSimulation.Scenario.hostile(5).withInvokeTimeout(SimClient.NEVER))
                .decisions()).isPositive();
        assertThat(PaxosSimulation.run(19715, PaxosSimulation.Scenario.hostileWithSnapshots(3)
                .withInvokeTimeout(SimClient.NEVER)).decisions()).isPositive();
    }

    @Test
    void aFirstCommandDecidedAfterItsSuccessorIsAGapNotAnExpiredSession() {
        // Found by clients that give up: client 103's first command timed out
        // and was lost with a deposed leader, its second was decided, and the session layer
        // called that EXPIRED (an unknown session not starting at 1), which ends a production
        // client for good. It is a gap: the client resends from 1 (ClientSessions.admit).
        // Seed 14 showed it before partial partitions changed the nemesis' draws; the rule itself is
        // pinned in ClientSessionsTest and ServiceManagerSessionTest. Here: the first seed whose
        // run has a gap at the replicas, reported to its client, still passes every check.
        PaxosSimulation.Outcome found = null;
        for (long seed = 0; seed < 200 && found == null; seed++) {
            PaxosSimulation.Outcome o = PaxosSimulation.run(seed, PaxosSimulation.Scenario.hostile(3));
            if (o.sessionGaps() > 0 && o.clients().gapsReported() > 0) {
                found = o;
            }
        }
        assertThat(found).as("a seed below 200 whose replicas saw a session gap and told the client").isNotNull();
        assertThat(found.linearizability().isLinearizable()).as("seed " + found.seed() + " linearizable").isTrue();
    }

    @Test
    void theLinearizabilityCheckerCatchesAReplicaThatAnswersReadsFromItsLocalState() {
        // Mutation: the leader answers a get with its local state as the request arrives rather
        // than at the get's slot in the order (a leader that lags the decided prefix after a view
        // change, or a deposed one that does not know it yet). Some seed must fail the checker.
        PaxosSimulation.Scenario mutant = PaxosSimulation.Scenario.hostile(3)
                .withSwitches(new SimReplica.Switches(true, true, true));
        Throwable failure = null;
        long seed = 0;
        while (failure == null && seed < 3000) {
            long s = ++seed;
            failure = catchThrowable(() -> PaxosSimulation.run(s, mutant));
        }
        // Seed 29 did when this test was written, seed 365 now: since a follower infers from a far-ahead proposal
        // how far decisions go (rule P1) and catches up sooner, stale windows are rarer.
        assertThat(failure).as("some seed of 3000 reads stale data").isNotNull();
        assertThat(failure).hasMessageContaining("not linearizable").hasMessageContaining("NOT_LINEARIZABLE");
        System.out.printf("local reads: seed %d is not linearizable (replay with -Dsim.seed=%d):%n%s%n", seed, seed,
                failure.getMessage());
    }

    @Test
    void theAtMostOnceAuditCatchesAReplicaThatExecutesDuplicates() {
        // Same faults, but replicas ignore the session layer's DUPLICATE verdict: retried commands
        // decided twice get applied twice, and the state machine's own count must catch it.
        Throwable failure = null;
        long seed = 0;
        while (failure == null && seed < 200) {
            long s = ++seed;
            failure = catchThrowable(() -> PaxosSimulation.run(s, PaxosSimulation.Scenario.hostile(3).withoutDedup()));
        }
        assertThat(failure).as("some seed of 200 applies a duplicate").isNotNull();
        assertThat(failure).hasStackTraceContaining("at-most-once violated");
    }

    /** Seeds for a variant of the n=3 run: a quarter (250 by default; the stress run's 100000 gives 25000). */
    static int aQuarter(int seeds) {
        return Math.max(1, seeds / 4);
    }

    private static Totals run(String what, int count, PaxosSimulation.Scenario scenario) {
        long started = System.nanoTime();
        long cpuStarted = CPU.getCurrentThreadCpuTime();
        Totals t = new Totals();
        t.progressBound = scenario.progressBound();
        t.seeds = SimulationSeeds.forEach("multi-paxos " + what, count, seed -> t.add(PaxosSimulation.run(seed, scenario)));
        System.out.printf("multi-paxos simulation %s: %d seeds, %.1f s (%.1f s CPU): %s%n", what, t.seeds,
                (System.nanoTime() - started) / 1e9, (CPU.getCurrentThreadCpuTime() - cpuStarted) / 1e9, t);
        // Every other check passed for these seeds; only the history's search ran out of budget.
        assertThat(t.undecided.size()).as("seeds whose history the checker could not decide within %d steps: %s",
                PaxosSimulation.CHECK_STEPS, t.undecided).isLessThanOrEqualTo(t.seeds / 5_000);
        return t;
    }

    /** Sums over a test's seeds. */
    private static final class Totals {
        int seeds;
        long decisions;
        long operations;
        long pendingAtHeal;
        long leaderCrashes;
        long leaderIsolations;
        long partitions;
        long restarts;
        long viewChanges;
        long snapshotInstalls;
        long maxProgressNanos;
        long events;
        long partialPartitions;
        long leaderPartialCuts;
        long timedOut;
        long neverSent;
        long lateAnswers;
        long gapsReported;
        long sessionGaps;
        long pauses;
        long heldByPause;
        long queuedByPause;
        long crashAlls;
        long progressBound;
        /** Runs whose history the checker could not decide within {@link PaxosSimulation#CHECK_STEPS}. */
        final java.util.List<Long> undecided = new java.util.ArrayList<>();

        void add(PaxosSimulation.Outcome o) {
            if (o.linearizability().verdict() == dev.parallax.core.check.Verdict.UNKNOWN) {
                undecided.add(o.seed());
            }
            decisions += o.decisions();
            events += o.events();
            operations += o.operations();
            pendingAtHeal += o.pendingAtHeal();
            leaderCrashes += o.leaderCrashes();
            leaderIsolations += o.leaderIsolations();
            partitions += o.partitions();
            restarts += o.restarts();
            viewChanges += o.viewChanges();
            snapshotInstalls += o.snapshotInstalls();
            maxProgressNanos = Math.max(maxProgressNanos, o.maxProgressNanos());
            partialPartitions += o.partialPartitions();
            leaderPartialCuts += o.leaderPartialCuts();
            timedOut += o.clients().timedOut();
            neverSent += o.clients().neverSent();
            lateAnswers += o.clients().lateAnswers();
            gapsReported += o.clients().gapsReported();
            sessionGaps += o.sessionGaps();
            pauses += o.pauses();
            heldByPause += o.heldByPause();
            queuedByPause += o.queuedByPause();
            crashAlls += o.crashAlls();
        }

        void assertTheFaultsBit() {
            assertThat(decisions).as("decisions").isPositive();
            assertThat(pendingAtHeal).as("operations pending at the heal").isGreaterThanOrEqualTo(seeds);
            assertThat(leaderCrashes).as("leader crashes").isPositive();
            assertThat(leaderIsolations).as("leader isolations").isPositive();
            assertThat(viewChanges).as("view changes").isPositive();
            assertThat(partitions).as("partitions").isPositive();
            assertThat(partialPartitions).as("one-way cuts and bridges").isPositive();
            assertThat(leaderPartialCuts).as("one-way cuts and bridges aimed at the leader").isPositive();
            assertThat(restarts).as("crash-restarts").isPositive();
            assertThat(maxProgressNanos).as("slowest decision after the heal").isBetween(1L, progressBound);
            if (seeds > 20) {
                assertThat(timedOut).as("operations given up on: unknown outcome in the history").isPositive();
                assertThat(sessionGaps).as("session gaps at the replicas").isPositive();
            }
        }

        void assertPausesAndCrashAllsBit() {
            if (seeds > 20) {
                assertThat(pauses).as("replicas paused").isPositive();
                assertThat(heldByPause).as("messages a paused replica had sent, arriving after it resumed").isPositive();
                assertThat(queuedByPause).as("messages queued at a paused replica").isPositive();
                assertThat(crashAlls).as("every replica crashed at once, and service resumed").isPositive();
            }
        }

        @Override
        public String toString() {
            return events + " events, " + decisions + " decisions, " + operations + " client ops, " + pendingAtHeal + " ops pending at heal, "
                    + leaderCrashes + " leader crashes, " + leaderIsolations + " leader isolations, " + viewChanges
                    + " view changes, " + partitions + " partitions, " + partialPartitions + " one-way cuts and bridges ("
                    + leaderPartialCuts + " at the leader), " + restarts + " crash-restarts, "
                    + snapshotInstalls + " snapshot installs, slowest post-heal decision "
                    + maxProgressNanos / 1_000_000 + " ms; clients: " + timedOut + " ops timed out (unknown outcome), "
                    + neverSent + " never sent (failed), " + lateAnswers + " late answers, " + gapsReported
                    + " gap reports; " + sessionGaps + " session gaps at replicas; " + pauses + " pauses, "
                    + heldByPause + " messages held in a paused sender, " + queuedByPause + " queued at a paused receiver, "
                    + crashAlls + " crash-alls; " + undecided.size() + " histories undecided within the check's budget "
                    + undecided;
        }
    }
}
