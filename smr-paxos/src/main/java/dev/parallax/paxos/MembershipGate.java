package dev.parallax.paxos;

import dev.parallax.core.membership.ChangeGate;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;

/**
 * Whether Multi-Paxos' leader may propose a membership change now: {@link ChangeGate}, the gate
 * every ordering that changes members at run time shares (one change at a time, rule R3; no removal
 * that leaves the voters the leader hears short of a quorum; no vote for a replica that has not
 * caught up).
 *
 * <p>Pure static function; thread-safe.
 */
final class MembershipGate {
    private MembershipGate() {
    }

    /** {@link ChangeGate#refusal}. */
    static String refusal(MembershipChange change, int self, boolean leading, int leader, MembershipHistory members,
                          long firstUndecided, boolean changeInFlight, int heard, long[] progress, int window) {
        return ChangeGate.refusal(change, self, leading, leader, members, firstUndecided, changeInFlight, heard,
                progress, window);
    }
}
