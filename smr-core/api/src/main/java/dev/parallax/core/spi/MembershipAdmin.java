package dev.parallax.core.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Operator control of a replicated group's membership: what {@code parallax admin} reaches through a
 * replica. An {@link AtomicBroadcast} whose ordering can change its members at run time implements
 * it as well; one that cannot does not, and the admin endpoint answers that the ordering does not
 * support the request.
 *
 * <p><b>Contract.</b> Every change is decided in the order (a replicated configuration command)
 * and takes effect at a well-defined position of it, the same at every replica. At most one change
 * is in flight: a request while another is undecided or not yet in effect completes exceptionally
 * with {@link MembershipChangeRefused} naming the reason, as does a removal that would leave fewer
 * voters than a quorum of the current ones can tolerate, an unknown or reused id, or a request at
 * a replica that cannot reach the leader. A future completes with a one-line description of the
 * membership after the change ({@link #members()}'s form) once the change is decided.
 *
 * <p>Threads: every method may be called from any thread and never blocks; futures complete on a
 * protocol thread (callers must not block in their callbacks).
 */
public interface MembershipAdmin {

    /** Adds {@code id} at {@code hostPort} as a non-voting learner. */
    CompletableFuture<String> addLearner(int id, String hostPort);

    /** Makes learner {@code id} a voter (refused until it has caught up). */
    CompletableFuture<String> promote(int id);

    /** Removes voter or learner {@code id}. */
    CompletableFuture<String> remove(int id);

    /**
     * Replaces voter {@code oldId} by {@code newId} at {@code hostPort} (a fresh replica that joined
     * as a learner first, or is added as one by this call): one change, so the voter count stays.
     */
    CompletableFuture<String> replace(int oldId, int newId, String hostPort);

    /**
     * Hands leadership to voter {@code id}: the leader stops proposing, brings it up to date and
     * tells it to start a view at once. Completes when {@code id} leads.
     *
     * <p>{@code id} {@code -1} means "the best caught-up voter": the ordering chooses, among the
     * voters other than the leader, the one with the highest position it acknowledged, and refuses
     * ({@link MembershipChangeRefused}) when there is no other voter or the best one is more than
     * the ordering's window of instances behind the leader (handing over to it would keep the
     * group waiting for its catch-up). A leader that stops (SIGTERM) asks this, so that a rolling
     * restart has no election gap.
     */
    CompletableFuture<String> transferLeadership(int id);

    /** The membership this replica has in effect, one line: {@code voters=[0,1,2] learners=[3] ...}. */
    String members();

    /**
     * The parts of the group that decide their members each in an order of its own, by name
     * (Multi-Ring Paxos: one per ring this replica runs, named as its channel), in the order a
     * change goes through them; empty (the default) when one order decides the members. Each part
     * follows this contract on its own, with its own leader: a change to the group is that change
     * in every part, one part after another ({@code parallax admin} asks each part's leader), and
     * a member is a voter of the group once it votes in every part.
     */
    default java.util.Map<String, MembershipAdmin> parts() {
        return java.util.Map.of();
    }

    /**
     * A {@link MembershipAdmin} that hands every request to another one, {@link #membershipAdmin()}:
     * a broadcast whose admin is a separate object implements this and names it. Same contract.
     */
    interface Forwarding extends MembershipAdmin {
        /** The admin every request goes to. */
        MembershipAdmin membershipAdmin();

        @Override
        default CompletableFuture<String> addLearner(int id, String hostPort) {
            return membershipAdmin().addLearner(id, hostPort);
        }

        @Override
        default CompletableFuture<String> promote(int id) {
            return membershipAdmin().promote(id);
        }

        @Override
        default CompletableFuture<String> remove(int id) {
            return membershipAdmin().remove(id);
        }

        @Override
        default CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
            return membershipAdmin().replace(oldId, newId, hostPort);
        }

        @Override
        default CompletableFuture<String> transferLeadership(int id) {
            return membershipAdmin().transferLeadership(id);
        }

        @Override
        default String members() {
            return membershipAdmin().members();
        }

        @Override
        default java.util.Map<String, MembershipAdmin> parts() {
            return membershipAdmin().parts();
        }
    }

    /** Why a membership request was refused; the message is for the operator. */
    class MembershipChangeRefused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public MembershipChangeRefused(String message) {
            super(message);
        }
    }

    /**
     * Refused because this replica does not lead: ask {@link #leaderHint()} (-1 if unknown)
     * or another replica.
     */
    final class NotTheLeader extends MembershipChangeRefused {
        private static final long serialVersionUID = 1L;
        private final int leaderHint;

        public NotTheLeader(String message, int leaderHint) {
            super(message);
            this.leaderHint = leaderHint;
        }

        /** The replica this one believes leads, or -1. */
        public int leaderHint() {
            return leaderHint;
        }
    }
}
