package dev.parallax.core.runtime;

import dev.parallax.core.protocol.ProtocolStage;
import dev.parallax.core.spi.ReadIndex;
import dev.parallax.core.spi.ReadListener;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A {@link ProtocolRuntime}'s {@link ReadIndex}: reads go to its Protocol stage's batches
 * ({@link dev.parallax.core.protocol.ReadBatches}), answers come from its core, and the delivered
 * position is its Delivery stage's. Whether the protocol serves reads is its core's business
 * ({@link dev.parallax.core.protocol.ProtocolCore#onReadIndex}: by default every read is refused
 * {@link ReadListener#UNSUPPORTED}).
 *
 * <p>Threads: {@link #answers} once, before or after the runtime starts; {@link #request} and
 * {@link #deliveredBelow} from any thread (a read before the start is refused as the queue of a
 * full stage is).
 */
final class RuntimeReads implements ReadIndex {
    private volatile ReadListener listener;
    private volatile ProtocolStage<?, ?, ?> stage;
    private volatile LongSupplier delivered = () -> 0;
    /** The replica installed a snapshot covering every position below this: its state is there already. */
    private volatile long installedBelow;

    /** Before the start, or after it (a multicast's streams start before its subscriber asks): both work. */
    @Override
    public synchronized void answers(ReadListener l) {
        this.listener = Objects.requireNonNull(l, "listener");
        ProtocolStage<?, ?, ?> s = stage;
        if (s != null) {
            s.reads().listener(l);
        }
    }

    /** The runtime started {@code protocol} and {@code deliveredBelow}'s stage: reads may flow. */
    synchronized void started(ProtocolStage<?, ?, ?> protocol, LongSupplier deliveredBelow) {
        ReadListener l = listener;
        if (l != null) {
            protocol.reads().listener(l);
        }
        this.delivered = deliveredBelow;
        this.stage = protocol;
    }

    @Override
    public boolean request(long read) {
        ProtocolStage<?, ?, ?> s = stage;
        return s != null && listener != null && s.reads().request(read);
    }

    private volatile Runnable progress = () -> { };

    @Override
    public void onDelivered(Runnable p) {
        this.progress = java.util.Objects.requireNonNull(p, "progress");
    }

    /** The delivery stage handed over another decision (delivery thread). */
    void progressed() {
        progress.run();
    }

    /** A snapshot covering every position below {@code nextSequence} was installed. */
    void installed(long nextSequence) {
        if (nextSequence > installedBelow) {
            installedBelow = nextSequence;
            progress.run();
        }
    }

    /** What the delivery stage handed over, or what an installed snapshot covers, whichever is further. */
    @Override
    public long deliveredBelow() {
        return Math.max(delivered.getAsLong(), installedBelow);
    }
}
