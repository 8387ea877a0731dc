package dev.parallax.core.multicast;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;

/**
 * The messages one process multicast and has not yet seen decided, per stream: its flow control
 * and its resend buffer. The origin sees each of its messages decided (in a stream it runs, or by
 * a member's decided notice for a stream it does not run, see {@link StreamMulticast}); until then it keeps the message and resends it to the stream's leader (the
 * {@link Sequencer} asks for what is {@link #due}), so that a forward the transport dropped (a
 * connection not up yet, or broken) or a proposal lost with a leader that stepped down is ordered
 * after all while the origin is alive.
 *
 * <p><b>Credits.</b> Per stream at most {@code credits} messages are outstanding; a message is
 * refused beyond that, and also when it would be numbered {@link OriginSequences#WINDOW} or more
 * above the lowest outstanding one (what keeps {@link OriginSequences} exact and bounded). The
 * leader's pending queue has room for {@code credits} per member, so a forwarded message is not
 * dropped for want of room while every origin keeps to its credits (resent copies may be, and are
 * resent again).
 *
 * <p><b>Numbering.</b> Messages are numbered per stream from {@code firstSequence} up, one by one
 * (a refused number is not reused: numbers may have holes, {@link OriginSequences} allows that).
 *
 * <p><b>Resends.</b> A message is resent {@code resendNanos} after it was accepted, then after
 * twice that, four times, ... up to {@code 2^MAX_BACKOFF_SHIFT} times that between two resends
 * (exponential back-off: a slow stream is not flooded with copies). Each copy decided after the
 * first is dropped by {@link OriginSequences}.
 *
 * <p><b>Given up.</b> When a process's stream continues from a snapshot ({@link #uncertain}), the
 * messages outstanding in it may have been decided before the snapshot point, where this process
 * cannot see them: a resent copy would then be delivered here only. They are not resent any more;
 * if they are not seen decided within {@code forgetNanos} they are given up ({@link #expire},
 * counted by the caller) and their credits return.
 *
 * <p>Thread-safe: one short lock per stream. {@link #accept} and {@link #remove} from multicasting
 * threads, {@link #decided} from the stream's delivery thread, {@link #due}, {@link #expire} from
 * the sequencer, {@link #uncertain} from a subscribing thread. Never blocks beyond that lock.
 */
final class OriginOutbox {
    /** Resend intervals grow up to {@code resendNanos << MAX_BACKOFF_SHIFT}. */
    static final int MAX_BACKOFF_SHIFT = 4;

    private final int origin;
    private final int credits;
    private final long resendNanos;
    private final long forgetNanos;
    private final Stream[] streams;

    /** A message accepted: its number and its envelope (read-only, shared: send duplicates). */
    record Accepted(long sequence, ByteBuffer envelope) {
    }

    private static final class Stream {
        final TreeMap<Long, Entry> outstanding = new TreeMap<>();
        long nextSequence;
        /** No resend is due before it (a lower bound: a scan recomputes it). */
        long nextResend = Long.MAX_VALUE;
        /** No message is given up before it (a lower bound). */
        long nextForget = Long.MAX_VALUE;
    }

    private static final class Entry {
        final ByteBuffer envelope;
        long resendAt;
        int resends;
        long forgetAt = Long.MAX_VALUE;

        Entry(ByteBuffer envelope, long resendAt) {
            this.envelope = envelope;
            this.resendAt = resendAt;
        }
    }

    OriginOutbox(int origin, int streamCount, int credits, long firstSequence, long resendNanos, long forgetNanos) {
        this.origin = origin;
        this.credits = credits;
        this.resendNanos = resendNanos;
        this.forgetNanos = forgetNanos;
        this.streams = new Stream[streamCount];
        for (int i = 0; i < streamCount; i++) {
            streams[i] = new Stream();
            streams[i].nextSequence = firstSequence;
        }
    }

    /**
     * Numbers {@code message} for stream {@code index} and keeps it until it is seen decided.
     *
     * @return the accepted message, or {@code null} when no credit is left (nothing was kept)
     */
    Accepted accept(int index, long groupBits, ByteBuffer message, long now) {
        Stream s = streams[index];
        synchronized (s) {
            if (s.outstanding.size() >= credits
                    || (!s.outstanding.isEmpty() && s.nextSequence - s.outstanding.firstKey() >= OriginSequences.WINDOW)) {
                return null;
            }
            long sequence = s.nextSequence++;
            ByteBuffer envelope = Envelope.encodeMessage(origin, sequence, groupBits, message);
            s.outstanding.put(sequence, new Entry(envelope, now + resendNanos));
            s.nextResend = Math.min(s.nextResend, now + resendNanos);
            return new Accepted(sequence, envelope);
        }
    }

    /** Drops a message that was refused after all (never handed to any transport or queue). */
    void remove(int index, long sequence) {
        Stream s = streams[index];
        synchronized (s) {
            s.outstanding.remove(sequence);
        }
    }

    /** Message {@code sequence} of this origin was decided in stream {@code index} (again, perhaps): its credit returns. */
    void decided(int index, long sequence) {
        Stream s = streams[index];
        synchronized (s) {
            s.outstanding.remove(sequence);
        }
    }

    /**
     * Adds to {@code out} the envelopes of stream {@code index} due for a resend at {@code now}
     * and schedules their next resend (back-off).
     *
     * @return how many were added
     */
    int due(int index, long now, List<ByteBuffer> out) {
        Stream s = streams[index];
        int n = 0;
        synchronized (s) {
            if (s.outstanding.isEmpty() || now < s.nextResend) {
                return 0;
            }
            long next = Long.MAX_VALUE;
            for (Entry e : s.outstanding.values()) {
                if (e.forgetAt != Long.MAX_VALUE) {
                    continue;
                }
                if (now >= e.resendAt) {
                    e.resends++;
                    e.resendAt = now + (resendNanos << Math.min(e.resends, MAX_BACKOFF_SHIFT));
                    out.add(e.envelope);
                    n++;
                }
                next = Math.min(next, e.resendAt);
            }
            s.nextResend = next;
        }
        return n;
    }

    /**
     * Stream {@code index} continues from a snapshot here: its outstanding messages are not resent
     * any more and are given up {@code forgetNanos} after {@code now} unless seen decided first.
     */
    void uncertain(int index, long now) {
        Stream s = streams[index];
        synchronized (s) {
            for (Entry e : s.outstanding.values()) {
                e.forgetAt = Math.min(e.forgetAt, now + forgetNanos);
                s.nextForget = Math.min(s.nextForget, e.forgetAt);
            }
        }
    }

    /** @return how many messages of stream {@code index} were given up at {@code now} (see {@link #uncertain}) */
    int expire(int index, long now) {
        Stream s = streams[index];
        int n = 0;
        synchronized (s) {
            if (now < s.nextForget) {
                return 0;
            }
            long next = Long.MAX_VALUE;
            for (Iterator<Entry> it = s.outstanding.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (now >= e.forgetAt) {
                    it.remove();
                    n++;
                } else {
                    next = Math.min(next, e.forgetAt);
                }
            }
            s.nextForget = next;
        }
        return n;
    }

    /** Messages of stream {@code index} accepted and not yet seen decided (nor given up). */
    int outstanding(int index) {
        Stream s = streams[index];
        synchronized (s) {
            return s.outstanding.size();
        }
    }
}
