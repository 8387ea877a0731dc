package dev.parallax.paxos.multicast;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The flow control of the messages one process multicasts: per stream, at most {@code credits}
 * of them may be accepted and not yet seen decided. The leader's pending queue has room for
 * {@code credits} per member, so a forwarded message is never dropped for want of room while every
 * origin keeps to its credits.
 *
 * <p>A message lost with a leader that crashed or stepped down is never seen decided; when a
 * stream shows no progress of this origin's messages for {@code forgetNanos}, its credits are
 * given back (the messages are presumed lost, as {@link dev.parallax.core.spi.AtomicBroadcast}
 * allows on a leader change).
 *
 * <p>Thread-safe: {@link #tryAcquire} and {@link #undo} from multicasting threads,
 * {@link #release} from the streams' delivery threads, {@link #expire} from the sequencer.
 */
final class OriginCredits {
    private final int credits;
    private final AtomicIntegerArray outstanding;
    private final AtomicLongArray lastProgress;

    OriginCredits(int streams, int credits, long now) {
        this.credits = credits;
        this.outstanding = new AtomicIntegerArray(streams);
        this.lastProgress = new AtomicLongArray(streams);
        for (int i = 0; i < streams; i++) {
            lastProgress.set(i, now);
        }
    }

    /** Takes a credit of stream {@code index}; false when none is left. */
    boolean tryAcquire(int index, long now) {
        while (true) {
            int o = outstanding.get(index);
            if (o >= credits) {
                return false;
            }
            if (outstanding.compareAndSet(index, o, o + 1)) {
                if (o == 0) {
                    lastProgress.set(index, now);
                }
                return true;
            }
        }
    }

    /** Gives back a credit taken for a message that was refused after all. */
    void undo(int index) {
        outstanding.updateAndGet(index, o -> Math.max(0, o - 1));
    }

    /** One of this origin's messages of stream {@code index} was decided. */
    void release(int index, long now) {
        outstanding.updateAndGet(index, o -> Math.max(0, o - 1));
        lastProgress.set(index, now);
    }

    /** @return how many credits were given back because their messages are presumed lost */
    int expire(long now, long forgetNanos) {
        int forgotten = 0;
        for (int i = 0; i < outstanding.length(); i++) {
            int o = outstanding.get(i);
            if (o > 0 && now - lastProgress.get(i) > forgetNanos && outstanding.compareAndSet(i, o, 0)) {
                lastProgress.set(i, now);
                forgotten += o;
            }
        }
        return forgotten;
    }
}
