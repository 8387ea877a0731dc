package dev.parallax.core.membership;

/**
 * Whether a leader (Multi-Paxos' leader, a ring's coordinator) may propose a membership change now,
 * with the reason for the operator when not. Safety does not depend on it ({@link MembershipHistory} stays correct for any sequence of
 * decided changes); it keeps the group available and changes understandable: one change at a time
 * (rule R3), no removal that leaves the voters this leader hears short of a quorum, and no vote for
 * a replica that has not caught up (a new replica joins as a learner first).
 *
 * <p>Pure static function; thread-safe.
 */
public final class ChangeGate {
    private ChangeGate() {
    }

    /**
     * @param leading  whether {@code self} leads (a ring: coordinates a round whose Phase 1 completed)
     * @param leader   who {@code self} believes leads
     * @param heard    the replicas that acknowledged this leader within the suspect timeout, itself included
     * @param progress per id, the first undecided instance it last acknowledged (-1 if never)
     * @return null if the change may be proposed, else why not
     */
    public static String refusal(MembershipChange change, int self, boolean leading, int leader, MembershipHistory members,
                          long firstUndecided, boolean changeInFlight, int heard, long[] progress, int window) {
        if (!leading) {
            return leader == self ? "replica " + self + " is still starting its view; retry"
                    : "replica " + self + " does not lead (replica " + leader + " does)";
        }
        long pending = members.pending(firstUndecided);
        if (changeInFlight || pending >= 0) {
            return "another membership change is in flight" + (pending >= 0 ? " (in effect from instance " + pending + ")" : "")
                    + "; one change at a time";
        }
        Membership latest = members.latest();
        String refused = latest.refusal(change);
        if (refused != null) {
            return refused;
        }
        Membership next = latest.apply(change);
        switch (change.kind()) {
            case PROMOTE -> {
                return caughtUp(change.id(), progress, firstUndecided, window);
            }
            case REPLACE -> {
                if (!latest.isLearner(change.newId())) {
                    return "replica " + change.newId() + " must join as a learner and catch up first (add it, then replace)";
                }
                String behind = caughtUp(change.newId(), progress, firstUndecided, window);
                return behind != null ? behind : quorumKept(change, next, heard);
            }
            case REMOVE -> {
                return quorumKept(change, next, heard);
            }
            default -> {
                return null;
            }
        }
    }

    private static String caughtUp(int id, long[] progress, long firstUndecided, int window) {
        if (progress[id] < firstUndecided - window) {
            return "learner " + id + " has not caught up: it acknowledged instance " + progress[id]
                    + ", the leader is at " + firstUndecided + "; retry when it is within " + window;
        }
        return null;
    }

    private static String quorumKept(MembershipChange change, Membership next, int heard) {
        if (!next.isQuorum(heard)) {
            return "after " + change + " the voters this leader hears, " + Membership.ids(heard & next.voters())
                    + ", would be no quorum of " + Membership.ids(next.voters());
        }
        return null;
    }
}
