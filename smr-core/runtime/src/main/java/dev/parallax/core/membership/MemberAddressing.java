package dev.parallax.core.membership;

import dev.parallax.core.config.Member;
import dev.parallax.core.spi.ForwardingTransport;
import dev.parallax.core.spi.Transport;

import java.util.function.Supplier;

/**
 * The transport a core whose members change at run time sends through: it gives the real transport
 * the address of a member added at run time before the first message to it, since the core may
 * address a new member in the very step that applied the change (a ring formed with it, a
 * heartbeat), before {@link RuntimeMembershipAdmin#observe} ran. The address comes from the latest
 * membership of the core's history; a member with no address (one of the cluster file's, or a
 * change without one) is left to the delegate. Used by every ordering that changes its members
 * (Multi-Paxos, S-Paxos, U-Ring, M-Ring); the core names its history's latest membership.
 *
 * <p>Threads: {@link #send} on the protocol thread only (the one thread that reads the core's
 * history); the other methods forward ({@link ForwardingTransport}).
 */
public final class MemberAddressing<M> extends ForwardingTransport<M> {
    private final Supplier<Membership> latest;
    /** Ids whose address the transport was given (or that need none). Protocol thread only. */
    private int addressed;

    /**
     * @param latest the latest membership of the core's history, read on the protocol thread
     *               (null before the core exists)
     */
    public MemberAddressing(Transport<M> transport, Supplier<Membership> latest) {
        super(transport);
        this.latest = latest;
    }

    /**
     * Sends, after giving the transport {@code to}'s address if the latest membership has one it
     * was not given yet. A member the transport does not know (this replica has not learned its
     * address yet: it lags behind the change that added it) loses the message, as a broken
     * connection would; the protocol retransmits.
     */
    @Override
    public boolean send(int to, M message) {
        if (to >= 0 && to <= Membership.MAX_ID && (addressed & (1 << to)) == 0) {
            address(to);
        }
        try {
            return delegate.send(to, message);
        } catch (IllegalArgumentException unknown) {
            return false;
        }
    }

    private void address(int to) {
        Membership m = latest.get();
        String where = m == null ? null : m.address(to);
        Member hp = where == null ? null : RuntimeMembershipAdmin.address(to, where);
        if (hp == null) {
            if (m != null && m.isMember(to)) {
                addressed |= 1 << to; // a cluster-file member: the transport has its address from the start
            }
            return; // else one whose change this replica has not applied yet: asked again at the next send
        }
        if (to != delegate.localId()) {
            try {
                delegate.addMember(to, hp.host(), hp.port());
            } catch (UnsupportedOperationException fixed) {
                // A transport with a fixed membership: it knows every member it can reach.
            }
        }
        addressed |= 1 << to;
    }
}
