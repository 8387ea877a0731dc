package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault-injected simulations of S-Paxos with clients (seed 002 (S-Paxos) §IV-B: safety and
 * liveness under crashes; §IV-D: view changes). Each seed runs the Multi-Paxos
 * simulation's hostile scenario ({@link PaxosSimulation.Scenario#hostile}: delays, 5% loss, 3%
 * duplication, reordering; a nemesis that partitions — two-sided, one-way cuts of a node's inbound
 * or outbound links, bridges — crashes and restarts replicas and hunts the ordering leader, for
 * 1.5 s virtual under load; clients that give up and fail over) over {@link SPaxosSimReplica}s.
 * Checked on every event: agreement on the ordered id lists, validity (only stable ids are
 * proposed), bodies executed are their origin's bytes, no id executes twice and every replica's
 * executed ids are a prefix of one sequence, at-most-once per command; after the heal: bounded
 * progress, every command answered, convergence, linearizability. Over each test's seeds: leader
 * crashes, view changes, RESENDFORWARDs, duplicate decisions, instances that waited for a body and
 * (with snapshots) snapshot installs all happened.
 *
 * <p>Seeds ({@link SimulationSeeds}, a failure prints the {@code -Dsim.seed=S} that replays it): of
 * {@code -Dsim.seeds} (1000 by default, 100000 under {@code -Pstress}), n=3 runs a half, n=5 and
 * n=3 with snapshots a fifth each, n=3 with pauses and crash-all a tenth: 1,000 seeds by default,
 * 100,000 under stress.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class SPaxosSimulationTest {

    @Test
    @DisplayName("n=3, hostile network, leader hunting: safe and live (seed 002 (S-Paxos) §IV-B, §IV-D)")
    void threeReplicas() {
        Totals t = run("n=3", SimulationSeeds.count(1000) / 2, PaxosSimulation.Scenario.hostile(3));
        t.assertTheFaultsBit();
    }

    @Test
    @DisplayName("n=5, hostile network, leader hunting: safe and live (seed 002 (S-Paxos) §IV-B, §IV-D)")
    void fiveReplicas() {
        Totals t = run("n=5", SimulationSeeds.count(1000) / 5, PaxosSimulation.Scenario.hostile(5));
        t.assertTheFaultsBit();
    }

    @Test
    @DisplayName("n=3 with snapshots every 5 instances: installs carry the executed ids (R2; seed 002 (S-Paxos) footnote 5)")
    void threeReplicasThatSnapshotAndCompact() {
        Totals t = run("n=3 with snapshots", SimulationSeeds.count(1000) / 5,
                PaxosSimulation.Scenario.hostileWithSnapshots(3));
        t.assertTheFaultsBit();
        if (t.seeds >= 20) {
            assertThat(t.snapshotInstalls).as("lagging replicas installed peers' snapshots").isPositive();
        }
    }

    @Test
    @DisplayName("n=3 with pauses of 0.5-5 s and crashes of every replica at once (seed 002 (S-Paxos) §IV-B; durable bodies)")
    void threeReplicasWithPausesAndCrashAll() {
        Totals t = run("n=3 with pauses and crash-all", SimulationSeeds.count(1000) / 10,
                PaxosSimulation.Scenario.hostileWithPausesAndCrashAll(3));
        t.assertTheFaultsBit();
        if (t.seeds >= 20) {
            assertThat(t.crashAlls).as("every replica crashed at once, and service resumed").isPositive();
        }
    }

    static Totals run(String what, int count, PaxosSimulation.Scenario scenario) {
        long started = System.nanoTime();
        Totals t = new Totals();
        t.seeds = SimulationSeeds.forEach("s-paxos " + what, Math.max(1, count),
                seed -> t.add(SPaxosSimulation.run(seed, scenario)));
        System.out.printf("s-paxos simulation %s: %d seeds, %.1f s: %s%n", what, t.seeds,
                (System.nanoTime() - started) / 1e9, t);
        assertThat(t.undecided.size()).as("histories the checker could not decide: %s", t.undecided)
                .isLessThanOrEqualTo(t.seeds / 5_000);
        return t;
    }

    /** Sums over a test's seeds. */
    static final class Totals {
        int seeds;
        long decisions;
        long executions;
        long leaderCrashes;
        long viewChanges;
        long partialPartitions;
        long restarts;
        long resends;
        long duplicates;
        long executionWaits;
        long snapshotInstalls;
        long crashAlls;
        long maxHeldBodies;
        long timedOut;
        final List<Long> undecided = new ArrayList<>();

        void add(SPaxosSimulation.Result r) {
            PaxosSimulation.Outcome o = r.outcome();
            if (o.linearizability().verdict() == dev.parallax.core.check.Verdict.UNKNOWN) {
                undecided.add(o.seed());
            }
            decisions += o.decisions();
            executions += r.shared().execution.executions();
            leaderCrashes += o.leaderCrashes();
            viewChanges += o.viewChanges();
            partialPartitions += o.partialPartitions();
            restarts += o.restarts();
            snapshotInstalls += o.snapshotInstalls();
            crashAlls += o.crashAlls();
            timedOut += o.clients().timedOut();
            resends += r.shared().event("resends.sent");
            duplicates += r.shared().event("duplicates");
            executionWaits += r.shared().event("execution.waiting");
            maxHeldBodies = Math.max(maxHeldBodies, r.shared().maxHeldBodies);
        }

        void assertTheFaultsBit() {
            assertThat(decisions).as("ordering decisions").isPositive();
            assertThat(executions).as("instances executed").isPositive();
            if (seeds >= 20) {
                assertThat(leaderCrashes).as("leader crashes").isPositive();
                assertThat(viewChanges).as("view changes").isPositive();
                assertThat(partialPartitions).as("one-way cuts and bridges").isPositive();
                assertThat(restarts).as("crash-restarts").isPositive();
                assertThat(resends).as("RESENDFORWARDs (Alg. 1 l.26-29)").isPositive();
                assertThat(executionWaits).as("instances that waited for a body (l.21-22)").isPositive();
                if (seeds >= 100) {
                    // About one seed in 16-28 decides an id twice (stress run); with 100 or more seeds
                    // some do (the seeds are fixed, so this is deterministic), with the 10-50 seeds of
                    // -Dsim.seeds=100 possibly none.
                    assertThat(duplicates).as("ids decided twice, executed once (footnote 5)").isPositive();
                }
            }
        }

        @Override
        public String toString() {
            return decisions + " ordering decisions, " + executions + " instance executions, " + leaderCrashes
                    + " leader crashes, " + viewChanges + " view changes, " + partialPartitions
                    + " one-way cuts and bridges, " + restarts + " crash-restarts, " + crashAlls + " crash-alls, "
                    + resends + " RESENDFORWARDs, " + duplicates + " duplicate decisions, " + executionWaits
                    + " execution waits, " + snapshotInstalls + " snapshot installs, " + timedOut
                    + " client ops timed out, most bodies held " + maxHeldBodies + ", " + undecided.size()
                    + " histories undecided " + undecided;
        }
    }
}
