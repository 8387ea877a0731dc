package dev.parallax.core.net;

import dev.parallax.core.wire.NetMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The meters of one {@link ReplicaPort}: the network meters shared with the other ports
 * ({@link NetMetrics}, kind {@code replica}), {@code parallax.net.channel.unknown} for frames on a
 * channel this replica does not run, {@code parallax.net.refused{reason=member}} for connections of
 * replicas that are not members, and per channel {@code parallax.net.channel.dropped} and
 * {@code parallax.net.bytes.sent}, all tagged with the replica's id.
 *
 * <p>Registers meters at construction and when a channel is opened (on the thread opening it);
 * the counters it hands out are thread-safe and never block.
 */
final class PortMeters {
    private final MeterRegistry registry;
    private final String replica;
    private final NetMetrics net;
    private final Counter unknownChannel;
    private final Counter refusedMember;

    PortMeters(MeterRegistry registry, int replicaId) {
        this.registry = registry;
        this.replica = Integer.toString(replicaId);
        this.net = new NetMetrics(registry, "replica");
        this.unknownChannel = Counter.builder("parallax.net.channel.unknown")
                .description("frames from peers for a channel this replica does not run (dropped)")
                .tag("replica", replica).register(registry);
        this.refusedMember = Counter.builder("parallax.net.refused")
                .description("connections refused: TLS failed, or the peer is not (or no longer) a member")
                .tag("kind", "replica").tag("reason", "member").register(registry);
    }

    /** The port's network meters. */
    NetMetrics net() {
        return net;
    }

    /** Frames dropped because their channel is not running here. */
    Counter unknownChannel() {
        return unknownChannel;
    }

    /**
     * Connections refused because the replica their hello names is not a member now (never added,
     * or removed): {@code parallax.net.refused{kind=replica,reason=member}}.
     */
    Counter refusedMember() {
        return refusedMember;
    }

    /** Registers the counter of messages of {@code channel} dropped on the way out. */
    Counter channelDropped(String channel) {
        return Counter.builder("parallax.net.channel.dropped")
                .description("messages of a channel dropped: peer unreachable or its send queue full")
                .tag("channel", channel).tag("replica", replica).register(registry);
    }

    /** Registers the counter of bytes of {@code channel}'s frames written to peers, framing included. */
    Counter channelBytesSent(String channel) {
        return Counter.builder("parallax.net.bytes.sent")
                .description("bytes of a channel's frames written to peers, framing included")
                .tag("channel", channel).tag("replica", replica).register(registry);
    }
}
