package dev.parallax.paxos.sim;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sums over the seeds of a membership simulation (Multi-Paxos or S-Paxos), and the checks that
 * the run did what it is for: decisions, view changes, and every kind of change the
 * {@link MembershipNemesis} makes. Owned by the test thread.
 */
final class MembershipTotals {
    int seeds;
    long decisions;
    long replacements;
    long additions;
    long removals;
    long transfers;
    long leaderCrashes;
    long viewChanges;
    long snapshotInstalls;
    final List<Long> undecided = new ArrayList<>();

    void add(PaxosSimulation.Outcome o) {
        decisions += o.decisions();
        replacements += o.membership().replacements();
        additions += o.membership().additions();
        removals += o.membership().removals();
        transfers += o.membership().transfers();
        leaderCrashes += o.leaderCrashes();
        viewChanges += o.viewChanges();
        snapshotInstalls += o.snapshotInstalls();
        if (o.linearizability().verdict() == dev.parallax.core.check.Verdict.UNKNOWN) {
            undecided.add(o.seed());
        }
    }

    /** At most one history in 5,000 the checker could not decide within its budget. */
    void assertFewUndecided() {
        assertThat(undecided.size()).as("histories the checker could not decide: %s", undecided)
                .isLessThanOrEqualTo(Math.max(1, seeds / 5_000));
    }

    void assertEveryChangeHappened() {
        assertThat(decisions).as("decisions").isPositive();
        assertThat(viewChanges).as("view changes").isPositive();
        if (seeds > 20) {
            assertThat(replacements).as("voters replaced after their disks died, or moved").isPositive();
            assertThat(additions).as("voters added (learner, then promoted)").isPositive();
            assertThat(removals).as("voters removed").isPositive();
            assertThat(transfers).as("leadership transfers").isPositive();
            assertThat(leaderCrashes).as("leader crashes").isPositive();
        }
    }

    @Override
    public String toString() {
        return decisions + " decisions, " + replacements + " replacements, " + additions + " additions, " + removals
                + " removals, " + transfers + " leadership transfers, " + leaderCrashes + " leader crashes, "
                + viewChanges + " view changes, " + snapshotInstalls + " snapshot installs, " + undecided.size()
                + " histories undecided " + undecided;
    }
}
