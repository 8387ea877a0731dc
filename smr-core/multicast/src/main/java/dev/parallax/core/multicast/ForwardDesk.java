package dev.parallax.core.multicast;

import dev.parallax.core.spi.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;

/**
 * A {@link StreamMulticast}'s end of the forward transport: takes in forwards (proposing them via
 * the {@link Sequencer}) and decided notices (returning the origin's credit), and sends decided
 * notices to origins outside a stream that forwarded here. Owns the per stream and origin record of
 * whom to notify (one flag each, set on the first forward of such an origin, never cleared; see
 * {@link StreamMulticast}, "Origins outside a stream").
 *
 * <p>Threads: {@link #onForward} on the forward transport's receiving thread, {@link #decided} on
 * a stream's delivery thread; thread-safe, nothing blocks (sends are queued).
 */
final class ForwardDesk {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardDesk.class);

    private final int self;
    private final int members;
    private final StreamLayout layout;
    private final int[] ids;
    private final Transport<MulticastForward> transport;
    private final OriginOutbox outbox;
    private final Sequencer sequencer;
    private final MulticastCounters counters;
    private final BooleanSupplier closed;
    /** Per stream this process runs, the origins outside it that forwarded here. */
    private final AtomicIntegerArray[] noticeTo;

    ForwardDesk(int self, int members, StreamLayout layout, Transport<MulticastForward> transport, OriginOutbox outbox,
                Sequencer sequencer, MulticastCounters counters, BooleanSupplier closed) {
        this.self = self;
        this.members = members;
        this.layout = layout;
        this.ids = layout.ids();
        this.transport = transport;
        this.outbox = outbox;
        this.sequencer = sequencer;
        this.counters = counters;
        this.closed = closed;
        this.noticeTo = new AtomicIntegerArray[ids.length];
        for (int i = 0; i < ids.length; i++) {
            if (layout.runs(i)) {
                noticeTo[i] = new AtomicIntegerArray(members);
            }
        }
    }

    /**
     * A message of {@code origin} was decided (first or a copy) in stream {@code index}, which this
     * process runs: if that origin forwarded here from outside the stream, tell it.
     */
    void decided(int index, int origin, long sequence) {
        if (noticeTo[index].get(origin) != 0) {
            notice(index, origin, sequence);
        }
    }

    /**
     * Tells {@code origin} (outside the stream; it forwarded here, so a transport exists) that its
     * message {@code sequence} was decided in stream {@code index}. A notice not sent is counted:
     * the origin resends, and the copy is noticed.
     */
    private void notice(int index, int origin, long sequence) {
        boolean sent = false;
        if (!closed.getAsBoolean()) {
            try {
                sent = transport.send(origin, new MulticastForward(ids[index], Envelope.encodeDecided(origin, sequence)));
            } catch (RuntimeException ex) {
                LOG.debug("replica {}: decided notice to {} not sent", self, origin, ex);
            }
        }
        if (!sent) {
            counters.noticesLost.increment();
        }
    }

    /** The forward transport's receiving thread. */
    void onForward(int from, MulticastForward f) {
        int index = f == null ? -1 : layout.index(f.stream());
        if (index < 0 || f.envelope() == null || closed.getAsBoolean()) {
            counters.forwardsDropped.increment();
            return;
        }
        long[] notice = Envelope.decidedNotice(f.envelope());
        if (notice != null) {
            if (notice[0] == self && !layout.runs(index)) {
                outbox.decided(index, notice[1]);
            } else {
                counters.forwardsDropped.increment();
            }
            return;
        }
        int origin = Envelope.messageOrigin(f.envelope());
        if (origin >= 0 && origin < members && layout.runs(index) && !layout.isMember(index, origin)) {
            noticeTo[index].set(origin, 1); // this process tells that origin what it sees decided
        }
        if (!sequencer.offer(index, f.envelope())) {
            counters.forwardsDropped.increment();
        }
    }
}
