package dev.parallax.core.multicast;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The counters of one process's {@link StreamMulticast}, tagged {@code replica=<id>}: registered
 * once, incremented by the multicast's threads.
 *
 * <p>Immutable holder of thread-safe counters; nothing blocks.
 */
final class MulticastCounters {
    /** Forwarded messages dropped: the leader's queue was full or the stream unknown. */
    final Counter forwardsDropped;
    /** Decided values that were not envelopes of a member. */
    final Counter unreadable;
    /** Decided copies of a message decided before. */
    final Counter duplicates;
    /** This process's accepted messages given up after a snapshot. */
    final Counter forgotten;
    /** Demand skips proposed. */
    final Counter skips;
    /** Forwards the transport refused. */
    final Counter forwardsLost;
    /** This process's messages resent. */
    final Counter resends;
    /** Decided notices the forward transport refused. */
    final Counter noticesLost;

    MulticastCounters(MeterRegistry registry, int self) {
        String replica = Integer.toString(self);
        this.forwardsDropped = Counter.builder("parallax.multicast.forwards.dropped")
                .description("forwarded messages dropped: the leader's queue was full or the stream unknown")
                .tag("replica", replica).register(registry);
        this.unreadable = Counter.builder("parallax.multicast.unreadable")
                .description("decided values that were not multicast envelopes of a member (consumed as skips)")
                .tag("replica", replica).register(registry);
        this.duplicates = Counter.builder("parallax.multicast.duplicates")
                .description("decided copies of a message decided before (resent), consumed as skips")
                .tag("replica", replica).register(registry);
        this.forgotten = Counter.builder("parallax.multicast.forgotten")
                .description("this process's accepted messages given up: their stream continued from a snapshot here and "
                        + "they were not seen decided after it").tag("replica", replica).register(registry);
        this.skips = Counter.builder("parallax.multicast.skips.proposed")
                .description("skips this process proposed to an idle stream so the merge can go on").tag("replica", replica).register(registry);
        this.forwardsLost = Counter.builder("parallax.multicast.forwards.lost")
                .description("forwards the transport refused").tag("replica", replica).register(registry);
        this.resends = Counter.builder("parallax.multicast.resends")
                .description("this process's messages resent to a stream's leader, not seen decided in time")
                .tag("replica", replica).register(registry);
        this.noticesLost = Counter.builder("parallax.multicast.notices.lost")
                .description("decided notices to origins outside a stream the forward transport refused (the origin "
                        + "resends, and the copy is noticed)").tag("replica", replica).register(registry);
    }
}
