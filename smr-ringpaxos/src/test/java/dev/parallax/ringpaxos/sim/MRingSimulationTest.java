package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.ringpaxos.Ring;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault-injected simulations of M-Ring Paxos with clients (seed 003 (Ring Paxos) §3.3.2, Alg. 2;
 * §3.3.4 message loss, §3.3.5 crashes, §3.3.6 flow control, §3.3.7; ring re-formation). Each seed
 * runs {@link RingSimulation}'s hostile scenario: the TCP links lose 5%,
 * duplicate 3% and reorder; the datagram channel (2A and decisions, Alg. 2 l.18/l.34) loses 5% and
 * duplicates 3% of the copies, each receiver on its own, with delays of 0.1–4 ms (reordering), in
 * packets of at most {@code mring.packet.bytes}; a nemesis partitions (two-sided, one-way cuts,
 * bridges), crashes and restarts members and hunts the coordinator, for 1.5 s (virtual) under load,
 * then heals. Checked on every event: agreement and validity on (id, body), one body per id,
 * in-order delivery, at-most-once per command, the ring facts ({@link QuorumWitness}: only the
 * ring acceptors [a1..aq-1, c], a majority, vote, every decision voted by all of them), the bounds
 * ({@link BoundsMonitor}: AIMD window, learner buffer); after the heal: bounded progress, every
 * command answered, convergence, linearizability. Over each test's seeds: the datagram faults, the
 * coordinator crashes, re-formations, retransmissions and catch-ups all happened.
 *
 * <p>Seeds ({@link SimulationSeeds}; a failure prints the {@code -Dsim.seed=S} that replays it):
 * n=3 runs {@code -Dsim.seeds} (1000 by default, 100000 under {@code -Pstress}); n=5, n=3 with
 * snapshots, n=3 with pauses and crash-all and n=3 with skips a quarter each under {@code -Pstress}
 * and an eighth in the default run ({@link RingTotals#variantSeeds}: 125 seeds each); the even rings (majority quorums,
 * seed 003 (Ring Paxos) §3.2) n=4 an eighth, n=6 and n=4 with snapshots a sixteenth each.
 */
@dev.parallax.core.testkit.DeterministicSimulation
class MRingSimulationTest {

    @Test
    @DisplayName("M-Ring n=3, hostile network, coordinator hunting: safe and live (seed 003 (Ring Paxos) §3.3.2, §3.3.4, §3.3.5; Appendix Prop. 1-2)")
    void threeReplicas() {
        RingTotals t = RingTotals.run("m-ring n=3", SimulationSeeds.count(1000),
                RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 3));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
    }

    @Test
    @DisplayName("M-Ring n=5, hostile network, coordinator hunting: safe and live (seed 003 (Ring Paxos) §3.3.2, "
            + "Alg. 2; rule M7, spares)")
    void fiveReplicas() {
        RingTotals t = RingTotals.run("m-ring n=5", RingTotals.variantSeeds(4),
                RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 5));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
    }

    @Test
    @DisplayName("M-Ring n=4, even: rings [a1, a2, c] of a majority, one spare, 1 failure tolerated, hostile network, coordinator hunting: safe and live (seed 003 (Ring Paxos) §3.2 m-quorum, §3.3.2, Alg. 2)")
    void fourReplicas() {
        RingTotals t = RingTotals.run("m-ring n=4", SimulationSeeds.count(1000) / 8,
                RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 4));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
    }

    @Test
    @DisplayName("M-Ring n=6, even: rings of 4 acceptors, 2 spares, 2 failures tolerated; n=4 with snapshots: the version floor is what a majority applied (seed 003 (Ring Paxos) §3.2, §3.3.2, §3.3.7)")
    void sixReplicasAndFourThatSnapshot() {
        RingTotals t = RingTotals.run("m-ring n=6", SimulationSeeds.count(1000) / 16,
                RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 6));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
        RingTotals s = RingTotals.run("m-ring n=4 with snapshots", SimulationSeeds.count(1000) / 16,
                RingSimulation.Scenario.hostileWithSnapshots(Ring.Kind.M_RING, 4));
        s.assertTheFaultsBit();
        s.assertSnapshotsInstalled();
    }

    @Test
    @DisplayName("M-Ring n=3 with snapshots every 5 instances: compaction at min(p, version floor), installs below a trim (seed 003 (Ring Paxos) §3.3.7)")
    void threeReplicasThatSnapshotAndCompact() {
        RingTotals t = RingTotals.run("m-ring n=3 with snapshots", RingTotals.variantSeeds(4),
                RingSimulation.Scenario.hostileWithSnapshots(Ring.Kind.M_RING, 3));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
        t.assertSnapshotsInstalled();
    }

    @Test
    @DisplayName("M-Ring n=3 with pauses of 0.5-5 s and crashes of every member at once: votes durable before forwarded (seed 003 (Ring Paxos) §3.3.5)")
    void threeReplicasWithPausesAndCrashAll() {
        RingTotals t = RingTotals.run("m-ring n=3 with pauses and crash-all", RingTotals.variantSeeds(4),
                RingSimulation.Scenario.hostileWithPausesAndCrashAll(Ring.Kind.M_RING, 3));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
        t.assertPausesAndCrashAllsBit();
    }

    @Test
    @DisplayName("M-Ring n=3 with skips at λ (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20): agreement on the decided sequence with its skips, one logical numbering, safe and live under the cap")
    void threeReplicasWithSkips() {
        RingTotals t = RingTotals.run("m-ring n=3 with skips", RingTotals.variantSeeds(4),
                RingSimulation.Scenario.hostileWithSkips(Ring.Kind.M_RING, 3, RingTotals.SKIP_LAMBDA));
        t.assertTheFaultsBit();
        t.assertDatagramFaultsBit();
        t.assertSkipsBit();
        // With snapshots: an installed snapshot leaves the logical next a lower bound (each member's core
        // still matches rule 1 over what it handed out); agreement and the cap as above.
        RingTotals s = RingTotals.run("m-ring n=3 with skips and snapshots", SimulationSeeds.count(1000) / 8,
                RingSimulation.Scenario.hostileWithSkips(Ring.Kind.M_RING, 3, RingTotals.SKIP_LAMBDA)
                        .withSnapshotEvery(RingSimulation.SNAPSHOT_EVERY));
        s.assertTheFaultsBit();
        s.assertSkipsBit();
        s.assertSnapshotsInstalled();
    }

    @Test
    @DisplayName("Seeds that found engine bugs pass (B1 catch-up below a trim, B4 learner buffer beyond "
            + "mring.learner.buffer, B5 a member in a higher round never learns the last decisions; "
            + "seed 003 (Ring Paxos) §3.3.4, §3.3.6)")
    void seedsThatFoundEngineBugs() {
        // B1: a catch-up query entirely below the replier's trim crashed the core (TreeMap.subMap(from > to)).
        assertThat(RingSimulation.run(2, RingSimulation.Scenario.hostileWithSnapshots(Ring.Kind.M_RING, 3))
                .decisions()).isPositive();
        // B4: member 0 held 129 decided instances and bodies ahead of its decided prefix (bound 2 x 64).
        assertThat(RingSimulation.run(8, RingSimulation.Scenario.hostileWithPausesAndCrashAll(Ring.Kind.M_RING, 3))
                .decisions()).isPositive();
        // B5: member 2, in round 11 after a refused Phase 1, ignored round 10's heartbeats and never learned
        // that instance 136 was decided.
        assertThat(RingSimulation.run(150, RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 3))
                .decisions()).isPositive();
    }
}
