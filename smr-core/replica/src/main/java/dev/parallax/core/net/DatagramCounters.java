package dev.parallax.core.net;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.EnumMap;
import java.util.Locale;

/**
 * The meters of one {@link DatagramPort}: {@code parallax.net.datagrams{result=sent|received|dropped,
 * reason, channel, replica}}, the bytes sent, and the socket buffers the kernel granted.
 *
 * <p><b>Threads.</b> Thread-safe (Micrometer counters); the port's receive loop and its sender
 * stage count concurrently. Never blocks.
 */
final class DatagramCounters {
    /** Why a datagram was dropped: the {@code reason} tag, in lower case. */
    enum Drop {
        /** Another cluster's tag (the member-list checksum differs). */
        FOREIGN,
        /** Larger than the group's packet size, at the sender or the receiver. */
        SIZE,
        /** Dropped by a test fault injector. */
        FAULT,
        /** The sender's queue was full. */
        QUEUE,
        /** The port's own datagram, looped back by the kernel. */
        OWN,
        /** A bad magic, version, sender or body. */
        MALFORMED,
        /** The socket refused the send. */
        ERROR,
        /** A missing or wrong HMAC. */
        UNAUTHENTICATED,
        /** A per-sender counter at or below one already accepted. */
        REPLAYED
    }

    final Counter sent;
    final Counter received;
    final Counter bytesSent;
    private final EnumMap<Drop, Counter> dropped = new EnumMap<>(Drop.class);
    private final MeterRegistry registry;
    private final String channel;
    private final String replica;

    DatagramCounters(MeterRegistry registry, String channel, int self) {
        this.registry = registry;
        this.channel = channel;
        this.replica = Integer.toString(self);
        this.sent = datagrams("sent", "none");
        this.received = datagrams("received", "none");
        for (Drop d : Drop.values()) {
            dropped.put(d, datagrams("dropped", d.name().toLowerCase(Locale.ROOT)));
        }
        this.bytesSent = Counter.builder("parallax.net.datagram.bytes.sent")
                .description("bytes of a datagram group's datagrams sent, header included (once per datagram, whatever the receivers)")
                .tag("channel", channel).tag("replica", replica).register(registry);
    }

    /** Counts one datagram dropped for {@code why}. */
    void dropped(Drop why) {
        dropped.get(why).increment();
    }

    /** Registers the gauge of a socket buffer the kernel granted ({@code which}: receive or send). */
    void socketBuffer(String which, int bytes) {
        Gauge.builder("parallax.net.datagram.socket.buffer", () -> bytes)
                .description("socket buffer granted by the kernel to a datagram group, bytes")
                .tag("buffer", which).tag("channel", channel).tag("replica", replica).baseUnit("bytes")
                .register(registry);
    }

    private Counter datagrams(String result, String reason) {
        return Counter.builder("parallax.net.datagrams")
                .description("datagrams of a datagram group sent, received (handed on) and dropped, by reason")
                .tag("result", result).tag("reason", reason).tag("channel", channel).tag("replica", replica)
                .register(registry);
    }
}
