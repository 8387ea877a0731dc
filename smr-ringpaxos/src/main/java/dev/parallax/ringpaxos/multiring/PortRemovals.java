package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.spi.Transport;

import java.util.ArrayList;
import java.util.List;

/**
 * Removes a replica from the replica port only once every ring of this replica that may have it
 * as a member has removed it. The rings of a Multi-Ring deployment share the replica port, and
 * removing a replica from it closes its connections for every channel
 * ({@link Transport#removeMember}); the rings decide their member changes independently, so a ring
 * that removed a replica must not cut it off from a ring that still has it. Each
 * {@link RingMemberTransport} registers here and reports its ring's removals (in replica ids).
 *
 * <p>Thread-safe (the rings' protocol threads report; one monitor, held for no blocking call but
 * the port's own non-blocking {@code removeMember}).
 */
final class PortRemovals {
    private record Ring(RingMemberIds ids, boolean[] removed) {
    }

    private final List<Ring> rings = new ArrayList<>();

    /** Registers a ring run here, with its ids; returns its handle for {@link #removed}. */
    synchronized Object register(RingMemberIds ids) {
        Ring r = new Ring(ids, new boolean[dev.parallax.core.config.Member.MAX_ID + 1]);
        rings.add(r);
        return r;
    }

    /**
     * Ring {@code handle} removed replica {@code replica}; removes it from {@code port} when every
     * registered ring that may have it did.
     */
    void removed(Object handle, int replica, Transport<?> port) {
        synchronized (this) {
            Ring mine = (Ring) handle;
            if (replica < 0 || replica >= mine.removed().length) {
                return;
            }
            mine.removed()[replica] = true;
            for (Ring r : rings) {
                if (r.ids().member(replica) >= 0 && !r.removed()[replica]) {
                    return;
                }
            }
        }
        port.removeMember(replica);
    }
}
