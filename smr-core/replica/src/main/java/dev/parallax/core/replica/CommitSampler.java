package dev.parallax.core.replica;

import dev.parallax.core.runtime.LatencyTimers;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.WorkerDeliveryListener;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Samples the commit latency of this replica's ordering: from a batch proposed by the Batcher to
 * its delivery in order to the replica ({@code parallax.replica.commit.latency}). It sits in the
 * replica, not in a protocol, so every ordering is measured the same way.
 *
 * <p>One batch at a time is timed: a proposal is sampled only while no sample is in flight (or
 * the one in flight is older than {@link #MAX_AGE_NANOS}: its batch was lost, say in a leader
 * change, and is not counted). A delivered batch is the sample if it has the sample's length
 * and first {@link #COMPARED_BYTES} bytes (a batch starts with its first command's client id and
 * sequence, so no other batch does). So the count is a sample of the batches, not all of them;
 * an ordering that re-encodes batches on their way (none does today) would record nothing.
 * A sample allocates one small object; every other proposal and delivery allocates nothing.
 *
 * <p>Threads: {@link #proposing} and {@link #refused} from the Batcher's thread; the delivery
 * wrappers from the ordering's delivery threads (one or several); never blocks.
 */
final class CommitSampler {
    /** Bytes of a batch compared with the sample's. */
    static final int COMPARED_BYTES = 64;
    /** A sample not delivered within this time is dropped. */
    static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private record Sample(ByteBuffer batch, int position, int length, long start) {
    }

    private final AtomicReference<Sample> sample = new AtomicReference<>();
    private final Timer timer;
    private final Clock clock;

    CommitSampler(MeterRegistry registry, int replica, String ordering, Clock clock) {
        this.clock = clock;
        this.timer = LatencyTimers.register(registry, "parallax.replica.commit.latency",
                "time from a batch proposed by this replica to its delivery in order by the ordering (sampled: one batch in flight at a time)",
                "replica", Integer.toString(replica), "ordering", ordering);
    }

    /**
     * The Batcher is about to propose {@code batch} (at time {@code now}, its loop's clock
     * reading): sampled if no younger sample is in flight.
     */
    void proposing(ByteBuffer batch, long now) {
        Sample s = sample.get();
        if (s == null || now - s.start() >= MAX_AGE_NANOS) {
            sample.set(new Sample(batch, batch.position(), batch.remaining(), clock.nanoTime()));
        }
    }

    /** The ordering refused {@code batch}: it is no sample (the Batcher proposes it again later). */
    void refused(ByteBuffer batch) {
        Sample s = sample.get();
        if (s != null && s.batch() == batch) {
            sample.compareAndSet(s, null);
        }
    }

    /** A batch was delivered: records the sample's latency if it is the sample. */
    void delivered(ByteBuffer value) {
        Sample s = sample.get();
        if (s == null || value == null || value.remaining() != s.length() || !samePrefix(s, value)) {
            return;
        }
        if (sample.compareAndSet(s, null)) {
            timer.record(clock.nanoTime() - s.start(), TimeUnit.NANOSECONDS);
        }
    }

    private static boolean samePrefix(Sample s, ByteBuffer value) {
        int n = Math.min(s.length(), COMPARED_BYTES);
        int at = value.position();
        for (int i = 0; i < n; i++) {
            if (s.batch().get(s.position() + i) != value.get(at + i)) {
                return false;
            }
        }
        return true;
    }

    /** {@code inner}, with each delivered batch looked at first. */
    DeliveryListener around(DeliveryListener inner) {
        return new DeliveryListener() {
            @Override
            public void deliver(long sequence, ByteBuffer value) throws InterruptedException {
                delivered(value);
                inner.deliver(sequence, value);
            }

            @Override
            public void skipped(long sequence) {
                inner.skipped(sequence);
            }

            @Override
            public void tentative(long sequence, ByteBuffer value) throws InterruptedException {
                inner.tentative(sequence, value);
            }

            @Override
            public void revoked(long fromSequence) throws InterruptedException {
                inner.revoked(fromSequence);
            }
        };
    }

    /** {@code inner}, with each batch delivered to a worker looked at first. */
    WorkerDeliveryListener around(WorkerDeliveryListener inner) {
        return (worker, sequence, groups, value) -> {
            delivered(value);
            inner.deliver(worker, sequence, groups, value);
        };
    }
}
