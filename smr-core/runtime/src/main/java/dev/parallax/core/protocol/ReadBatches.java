package dev.parallax.core.protocol;

import dev.parallax.core.spi.ReadListener;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The reads of one {@link ProtocolStage} (read-index, Raft thesis §6.4): read numbers asked on any
 * thread wait in a bounded queue; each stage pass takes every read waiting as one batch and asks
 * the core once for the batch ({@link ProtocolCore#onReadIndex}, under a batch number of its own),
 * and the core's one answer goes to every read of the batch. So concurrent reads share one
 * leadership confirmation and, at a follower, one request to the leader.
 *
 * <p>A batch may answer a read later than needed, never earlier: its reads were all asked before the
 * batch was handed to the core, and the core confirms after that.
 *
 * <p>Threads: {@link #request} from any thread, never blocking; {@link #listener} once before the
 * stage starts; everything else on the stage thread (the core's answers come through the stage's
 * {@link EffectApplier}).
 */
public final class ReadBatches implements ReadListener {
    /** Reads waiting for the next pass, by default at most this many. */
    public static final int DEFAULT_CAPACITY = 16_384;

    private final BoundedQueue<Long> waiting;
    /** Batches the core has not answered: batch number to its reads. Stage thread only. */
    private final Map<Long, long[]> open = new HashMap<>();
    private long nextBatch;
    private long[] scratch = new long[64];
    private volatile ReadListener listener;

    /**
     * @param capacity   reads that may wait for a pass; more are refused ({@link #request})
     * @param firstBatch the number of the first batch: pick it at random, so that a restarted
     *                   replica never takes an answer meant for a batch of its previous run (the
     *                   core matches a leader's late answer by this number alone)
     */
    public ReadBatches(int capacity, long firstBatch) {
        this.waiting = Queues.mpsc(capacity);
        this.nextBatch = firstBatch;
    }

    /** Where every read's answer goes; set once before the stage starts. */
    public void listener(ReadListener l) {
        this.listener = Objects.requireNonNull(l, "listener");
    }

    /** Whether a listener was set (reads are asked at all). */
    boolean inUse() {
        return listener != null;
    }

    /** Queues read {@code read} for the next pass; false if the queue is full (no answer will come). Any thread. */
    public boolean request(long read) {
        return waiting.offer(read);
    }

    /** The queue of reads waiting for a pass: one of the stage's inputs, so that a read wakes it. */
    BoundedQueue<Long> queue() {
        return waiting;
    }

    /** Reads the core has not answered yet (stage thread). */
    int openBatches() {
        return open.size();
    }

    /** Hands every waiting read to {@code core} as one batch; returns how many reads it took. Stage thread. */
    <M, R, V> int drain(ProtocolCore<M, R, V> core, long now, Effects<M, R, V> out) {
        int[] count = {0};
        waiting.drain(read -> {
            if (count[0] == scratch.length) {
                scratch = java.util.Arrays.copyOf(scratch, scratch.length * 2);
            }
            scratch[count[0]++] = read;
        }, Integer.MAX_VALUE);
        if (count[0] == 0) {
            return 0;
        }
        long batch = nextBatch++;
        open.put(batch, java.util.Arrays.copyOf(scratch, count[0]));
        core.onReadIndex(batch, now, out);
        return count[0];
    }

    /** Answers every read waiting and every open batch with {@code leaderHint}: the stage stopped driving its core. */
    int failAll(int leaderHint) {
        int[] count = {0};
        ReadListener l = listener;
        waiting.drain(read -> {
            count[0]++;
            l.failed(read, leaderHint);
        }, Integer.MAX_VALUE);
        for (long batch : open.keySet().toArray(new Long[0])) {
            failed(batch, leaderHint);
            count[0]++;
        }
        return count[0];
    }

    /** The core answered batch {@code batch}: every read of it may run at {@code position}. Stage thread. */
    @Override
    public void ready(long batch, long position) {
        long[] reads = open.remove(batch);
        if (reads == null) {
            throw new IllegalStateException("read batch " + batch + " answered twice or never asked");
        }
        for (long r : reads) {
            listener.ready(r, position);
        }
    }

    /** The core failed batch {@code batch}. Stage thread. */
    @Override
    public void failed(long batch, int leaderHint) {
        long[] reads = open.remove(batch);
        if (reads == null) {
            throw new IllegalStateException("read batch " + batch + " answered twice or never asked");
        }
        for (long r : reads) {
            listener.failed(r, leaderHint);
        }
    }
}
