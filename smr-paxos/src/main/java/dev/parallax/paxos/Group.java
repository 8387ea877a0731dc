package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;

/**
 * What the roles that keep a group live (heartbeats, check-quorum, pre-vote, catch-up, amnesia
 * recovery, suspicion) ask about its members: the membership in effect at this replica's first
 * undecided instance, and who must hear the group from there on (that membership's members and
 * those of every decided change not yet in effect). Safety does not depend on these answers; the
 * proposer and learner use {@link MembershipHistory} per instance (rules R2, P1, P2).
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class Group {
    private final MembershipHistory history;
    private final Learner learner;

    Group(MembershipHistory history, Learner learner) {
        this.history = history;
        this.learner = learner;
    }

    /** The membership in effect at the first undecided instance. */
    Membership current() {
        return history.at(learner.firstUndecided());
    }

    /** Every member of the current membership and of every pending one (a mask of ids). */
    int recipients() {
        return history.recipients(learner.firstUndecided());
    }

    /** Whether {@code id} is a voter now or in a pending membership. */
    boolean votesNowOrNext(int id) {
        return (history.voters(learner.firstUndecided()) & (1 << id)) != 0;
    }

    /** Sends {@code m} to every id of {@code mask} but {@code self}, in id order. */
    static void sendToOthers(int mask, int self, PaxosMessage m,
                             dev.parallax.core.protocol.Effects<PaxosMessage, PaxosRecord, Value> out) {
        for (int r = 0; r < Membership.ID_SPACE; r++) {
            if (r != self && (mask & (1 << r)) != 0) {
                out.send(r, m);
            }
        }
    }
}
