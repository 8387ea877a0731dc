package dev.parallax.ringpaxos.sim;

import dev.parallax.core.check.Verdict;
import dev.parallax.core.testkit.SimulationSeeds;
import dev.parallax.core.testkit.SimulationStats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sums over one simulation test's seeds ({@link RingSimulation} outcomes), and the assertions that
 * the faults a scenario injects really happened: coordinator crashes, round changes and
 * re-formations, crash-restarts, retransmissions, catch-ups, one-way cuts and bridges, datagram
 * losses (M-Ring), snapshot installs (snapshot scenarios), pauses and crashes of every member.
 * Not thread-safe: one test thread.
 */
final class RingTotals {
    /**
     * λ of the skip scenarios, instances per second: near the load the clients put on a ring, so
     * that idle periods (faults, the heal) are skipped and busy ones run into the cap.
     */
    static final long SKIP_LAMBDA = 500;

    final String name;
    int seeds;
    long decisions;
    long operations;
    long pendingAtHeal;
    long coordinatorCrashes;
    long coordinatorIsolations;
    long partitions;
    long partialPartitions;
    long restarts;
    long roundChanges;
    long reformations;
    long stepDowns;
    long snapshotInstalls;
    long maxProgressNanos;
    long timedOut;
    long sessionGaps;
    long sessionDuplicates;
    long datagramsSent;
    long datagramsLost;
    long datagramsDuplicated;
    long pauses;
    long crashAlls;
    long witnessed;
    long progressBound;
    final Map<String, Long> events = new TreeMap<>();
    final List<Long> undecided = new ArrayList<>();

    private RingTotals(String name) {
        this.name = name;
    }

    /**
     * Seeds of a variant that runs {@code 1/divisor} of {@code -Dsim.seeds}: all of those under
     * {@code -Pstress} ({@code -Dparallax.stress=true}: 25,000 for a quarter), half of them in the
     * default run (125 for a quarter; its 15-minute budget), at least 1. The main run of each
     * ordering (n=3) keeps every seed of {@code -Dsim.seeds}.
     */
    static int variantSeeds(int divisor) {
        int all = SimulationSeeds.count(1000) / divisor;
        return Math.max(1, Boolean.getBoolean("parallax.stress") ? all : all / 2);
    }

    /**
     * Runs {@code scenario} over {@code count} seeds ({@link SimulationSeeds}: a failure names the
     * seed and {@code -Dsim.seed=S} replays it), prints the totals, and checks that at most one
     * history in 5,000 was left undecided by the linearizability checker's budget.
     */
    static RingTotals run(String name, int count, RingSimulation.Scenario scenario) {
        return run(name, count, seed -> RingSimulation.run(seed, scenario));
    }

    /** As {@link #run(String, int, RingSimulation.Scenario)}, with any run per seed. */
    static RingTotals run(String name, int count, java.util.function.LongFunction<RingSimulation.Outcome> runOne) {
        long started = System.nanoTime();
        RingTotals t = new RingTotals(name);
        t.seeds = SimulationSeeds.forEach(name, Math.max(1, count), seed -> t.add(runOne.apply(seed)));
        System.out.printf("%s: %d seeds, %.1f s: %s%n", name, t.seeds, (System.nanoTime() - started) / 1e9, t);
        assertThat(t.undecided.size()).as("histories the checker could not decide: %s", t.undecided)
                .isLessThanOrEqualTo(t.seeds / 5_000);
        return t;
    }

    void add(RingSimulation.Outcome o) {
        if (o.linearizability().verdict() == Verdict.UNKNOWN) {
            undecided.add(o.seed());
        }
        SimulationStats st = o.stats();
        decisions += o.decisions();
        operations += o.operations();
        pendingAtHeal += o.pendingAtHeal();
        coordinatorCrashes += st.leaderCrashes();
        coordinatorIsolations += st.leaderIsolations();
        partitions += st.partitionsStarted();
        partialPartitions += st.oneWayCuts() + st.bridges();
        restarts += st.restarts();
        roundChanges += o.roundChanges();
        reformations += o.shared().reformations;
        stepDowns += o.shared().stepDowns;
        snapshotInstalls += o.snapshotInstalls();
        maxProgressNanos = Math.max(maxProgressNanos, o.maxProgressNanos());
        progressBound = Math.max(progressBound, o.shared().scenario.progressBound());
        timedOut += o.timedOut();
        sessionGaps += o.sessionGaps();
        sessionDuplicates += o.sessionDuplicates();
        datagramsSent += st.datagramsSent();
        datagramsLost += st.datagramsLost();
        datagramsDuplicated += st.datagramsDuplicated();
        pauses += st.pauses();
        crashAlls += st.crashAlls();
        witnessed += o.shared().quorum.decisionsWitnessed();
        o.shared().events.forEach((k, v) -> events.merge(k, v, Long::sum));
    }

    /** The summed count of every core event whose name contains {@code part}. */
    long eventsContaining(String part) {
        return events.entrySet().stream().filter(e -> e.getKey().contains(part)).mapToLong(Map.Entry::getValue).sum();
    }

    /** The faults of the hostile scenario hit, and the protocol's repair paths ran. */
    void assertTheFaultsBit() {
        assertThat(decisions).as("decisions").isPositive();
        assertThat(witnessed).as("decisions witnessed by a full ring quorum").isPositive();
        assertThat(pendingAtHeal).as("operations pending at the heal").isGreaterThanOrEqualTo(seeds);
        assertThat(maxProgressNanos).as("slowest decision after the heal").isBetween(1L, progressBound);
        if (seeds >= 20) {
            assertThat(coordinatorCrashes).as("coordinator crashes").isPositive();
            assertThat(coordinatorIsolations).as("coordinator isolations").isPositive();
            assertThat(roundChanges).as("rounds led other than round 0").isPositive();
            assertThat(reformations).as("ring re-formations").isPositive();
            assertThat(partitions).as("partitions").isPositive();
            assertThat(partialPartitions).as("one-way cuts and bridges").isPositive();
            assertThat(restarts).as("crash-restarts").isPositive();
            assertThat(eventsContaining("retransmi")).as("retransmissions (U6 / M5): " + events).isPositive();
            assertThat(eventsContaining("catch")).as("catch-ups (C6): " + events).isPositive();
            assertThat(timedOut).as("client operations given up on (unknown outcome)").isPositive();
        }
    }

    /** Excluded U-Ring members came back on the ring (re-formation trigger 3: Alive(wantsRing) after the back-off). */
    void assertRejoinsBit() {
        if (seeds >= 20) {
            assertThat(eventsContaining("rejoins")).as("rejoins (re-formation trigger 3): " + events).isPositive();
        }
    }

    /** The datagram channel lost and duplicated datagrams (M-Ring). */
    void assertDatagramFaultsBit() {
        assertThat(datagramsSent).as("datagrams multicast").isPositive();
        if (seeds >= 20) {
            assertThat(datagramsLost).as("datagram copies lost").isPositive();
            assertThat(datagramsDuplicated).as("datagram copies duplicated").isPositive();
        }
    }

    /**
     * Skips were proposed and decided, the cap held proposals back (the ring ran ahead of λ), and
     * with them the checks held: agreement on the decided sequence including skips, one logical next
     * at every member (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20; logical
     * numbering, skips at λ, the cap).
     */
    void assertSkipsBit() {
        assertThat(events.getOrDefault("skips.proposed", 0L)).as("skips proposed: " + events).isPositive();
        assertThat(events.getOrDefault("skips.decided", 0L)).as("skips decided: " + events).isPositive();
        if (seeds >= 20) {
            assertThat(events.getOrDefault("proposals.capped", 0L)).as("proposals held back by the cap: " + events).isPositive();
        }
    }

    /** Lagging members installed peers' snapshots. */
    void assertSnapshotsInstalled() {
        if (seeds >= 20) {
            assertThat(snapshotInstalls).as("snapshot installs").isPositive();
        }
    }

    /** Members were paused and every member crashed at once, and service resumed. */
    void assertPausesAndCrashAllsBit() {
        if (seeds >= 20) {
            assertThat(pauses).as("members paused").isPositive();
            assertThat(crashAlls).as("every member crashed at once").isPositive();
        }
    }

    @Override
    public String toString() {
        return decisions + " decisions (" + witnessed + " witnessed), " + operations + " client ops, " + pendingAtHeal
                + " pending at heal, " + coordinatorCrashes + " coordinator crashes, " + coordinatorIsolations
                + " coordinator isolations, " + roundChanges + " round changes, " + reformations + " re-formations, "
                + stepDowns + " step-downs, " + partitions + " partitions, " + partialPartitions
                + " one-way cuts and bridges, " + restarts + " crash-restarts, " + snapshotInstalls
                + " snapshot installs, " + datagramsSent + " datagrams (" + datagramsLost + " copies lost, "
                + datagramsDuplicated + " duplicated), " + pauses + " pauses, " + crashAlls + " crash-alls, "
                + timedOut + " ops timed out, " + sessionGaps + " session gaps, " + sessionDuplicates
                + " commands decided twice, slowest post-heal decision " + maxProgressNanos / 1_000_000 + " ms; events "
                + events + "; " + undecided.size() + " histories undecided " + undecided;
    }
}
