package dev.parallax.core.replica;

import dev.parallax.core.runtime.LatencyTimers;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

import java.util.concurrent.TimeUnit;

/**
 * Times commands as their clients see them at this replica: from the request read by
 * {@link ClientIO} to its reply written by the {@link ReplyRouter}
 * ({@code parallax.client.command.latency}, tag {@code kind=command}; the {@link QueryPath} times
 * queries in the same meter, {@code kind=query}, see {@link #timer}). Redirected requests are not
 * timed.
 *
 * <p>Sampled: only requests whose sequence number is a multiple of {@value #SAMPLE_EVERY} are
 * timed, so the meter's count is about one command in {@value #SAMPLE_EVERY} (use
 * {@code parallax.commands.executed} for throughput). The others cost one bit test on read and
 * on reply; a sampled one costs a clock reading, a channel attribute lookup and a timer record,
 * which at every command took measurable CPU at full load.
 *
 * <p>Each connection keeps the read time of its last {@value #SLOTS} sampled requests in a small
 * ring, indexed by sequence: a client that pipelines deeper, or has one sequence number
 * outstanding in several streams at once, has only some of them timed. Allocates only the ring,
 * once per connection; the reply drain reads the clock once.
 *
 * <p>Threads: both methods run on the event loop of the connection's channel (ClientIO and the
 * ReplyRouter's outbox share it), so the ring needs no lock; never blocks.
 */
final class ClientLatency {
    /** Requests per connection whose read time is kept. */
    static final int SLOTS = 64;
    /** One request in this many (by sequence number) is timed; a power of two. */
    static final int SAMPLE_EVERY = 8;
    private static final AttributeKey<Receipts> RECEIPTS = AttributeKey.valueOf(ClientLatency.class, "receipts");

    private final Timer timer;
    private final Clock clock;
    /** log2 of the sampling interval. */
    private final int sampleShift;

    ClientLatency(MeterRegistry registry, int replica, Clock clock) {
        this(registry, replica, clock, SAMPLE_EVERY);
    }

    /** Timing one request in {@code sampleEvery} (a power of two; 1: every request). */
    ClientLatency(MeterRegistry registry, int replica, Clock clock, int sampleEvery) {
        if (Integer.bitCount(sampleEvery) != 1) {
            throw new IllegalArgumentException("sampleEvery must be a power of two: " + sampleEvery);
        }
        this.clock = clock;
        this.sampleShift = Integer.numberOfTrailingZeros(sampleEvery);
        this.timer = timer(registry, replica, "command");
    }

    /** Whether the request of {@code sequence} is one this meter times. */
    private boolean sampled(long sequence) {
        return (sequence & ((1L << sampleShift) - 1)) == 0;
    }

    /** Its slot in a connection's ring. */
    private int slot(long sequence) {
        return (int) ((sequence >>> sampleShift) & (SLOTS - 1));
    }

    /**
     * The timer of requests of {@code kind} ({@code command}: ordered commands; {@code query}:
     * read-only queries) at {@code replica}.
     */
    static Timer timer(MeterRegistry registry, int replica, String kind) {
        return LatencyTimers.register(registry, "parallax.client.command.latency",
                "time from a client's request read by this replica to its reply written back (kind=command: ordered "
                        + "commands this replica answers; kind=query: read-only queries)",
                "replica", Integer.toString(replica), "kind", kind);
    }

    /** The clock's reading now (the reply drain's time). */
    long now() {
        return clock.nanoTime();
    }

    /** The request of {@code sequence} in the stream {@code groups} was read on {@code channel} now. */
    void received(Channel channel, long groups, long sequence) {
        if (!sampled(sequence)) {
            return;
        }
        Attribute<Receipts> a = channel.attr(RECEIPTS);
        Receipts r = a.get();
        if (r == null) {
            r = new Receipts();
            a.set(r);
        }
        int i = slot(sequence);
        r.sequences[i] = sequence;
        r.groups[i] = groups;
        r.starts[i] = clock.nanoTime();
    }

    /** The reply to that request was written to {@code channel} at {@code now}: records it if its read was kept. */
    void replied(Channel channel, long groups, long sequence, long now) {
        if (!sampled(sequence)) {
            return;
        }
        Receipts r = channel.attr(RECEIPTS).get();
        if (r == null) {
            return;
        }
        int i = slot(sequence);
        if (r.sequences[i] == sequence && r.groups[i] == groups) {
            r.sequences[i] = -1;
            timer.record(now - r.starts[i], TimeUnit.NANOSECONDS);
        }
    }

    /** One connection's ring; touched by its event loop only. */
    private static final class Receipts {
        final long[] sequences = new long[SLOTS];
        final long[] groups = new long[SLOTS];
        final long[] starts = new long[SLOTS];

        Receipts() {
            java.util.Arrays.fill(sequences, -1);
        }
    }
}
