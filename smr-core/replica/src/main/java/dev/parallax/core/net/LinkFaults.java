package dev.parallax.core.net;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Switchable link failures for one replica, per direction: the peers it currently cannot hear from
 * (inbound cut) and the peers it currently cannot reach (outbound cut). {@link #block} cuts both
 * directions, as a two-sided partition; {@link #blockInbound} and {@link #blockOutbound} cut one,
 * for partial partitions (a leader that sends but hears nobody, a bridge). Used
 * through {@link FaultInjectingTransport} to partition replicas in tests and in the
 * {@code parallax chaos} runs.
 *
 * <p>Thread-safe: any thread may change the faults while IO threads read them; a read costs one
 * volatile load while no link is cut.
 */
public final class LinkFaults {
    private final Set<Integer> inbound = ConcurrentHashMap.newKeySet();
    private final Set<Integer> outbound = ConcurrentHashMap.newKeySet();

    /** Cuts the link to {@code peer}, both directions. */
    public void block(int peer) {
        blockInbound(peer);
        blockOutbound(peer);
    }

    /** Loses every message from {@code peer} (this replica no longer hears it); what it sends still leaves. */
    public void blockInbound(int peer) {
        inbound.add(peer);
    }

    /** Loses every message to {@code peer} (it no longer hears this replica); what it sends still arrives. */
    public void blockOutbound(int peer) {
        outbound.add(peer);
    }

    /** Restores the link to {@code peer}, both directions. */
    public void unblock(int peer) {
        inbound.remove(peer);
        outbound.remove(peer);
    }

    /** Restores every link. */
    public void heal() {
        inbound.clear();
        outbound.clear();
    }

    /** Whether the link to {@code peer} is cut in both directions. */
    public boolean isBlocked(int peer) {
        return isInboundBlocked(peer) && isOutboundBlocked(peer);
    }

    /** Whether messages from {@code peer} are lost. */
    public boolean isInboundBlocked(int peer) {
        return !inbound.isEmpty() && inbound.contains(peer);
    }

    /** Whether messages to {@code peer} are lost. */
    public boolean isOutboundBlocked(int peer) {
        return !outbound.isEmpty() && outbound.contains(peer);
    }
}
