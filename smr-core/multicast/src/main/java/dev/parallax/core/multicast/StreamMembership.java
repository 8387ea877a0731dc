package dev.parallax.core.multicast;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.spi.MembershipAdmin;

/**
 * One stream's member set as the operator controls it ({@link MembershipAdmin}), in replica ids
 * whatever ids the stream numbers its members by, and the set it has in effect: a part of a
 * {@link StreamsMembership}. A {@link StreamPlan} whose streams change their members builds one per
 * stream ({@link StreamPlan#streamMembership}).
 *
 * <p>Threads: as {@link MembershipAdmin}'s; {@link #membership()} from any thread, never blocking.
 */
public interface StreamMembership extends MembershipAdmin {
    /**
     * How a part's answer begins when the request does not concern it (the replicas it names can
     * never be members of this stream: another partition's); the part is left as it is.
     */
    String UNCHANGED = "unchanged: ";

    /** The stream's membership in effect at this replica, in replica ids. */
    Membership membership();

    /**
     * The latest membership this replica knows the stream decided, in effect or not yet, in
     * replica ids (what a change's answer names); default {@link #membership()}.
     */
    default Membership decidedMembership() {
        return membership();
    }

    @Override
    default String members() {
        return membership().describe();
    }
}
