package dev.parallax.core.testkit.multicast;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One learner's merge of logically numbered streams, single-threaded and non-blocking, for the
 * deterministic simulations (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5,
 * Alg. 1 task 4 with the Prop. 4 comparison; logical numbering). It is the reference of
 * {@code dev.parallax.core.multicast.DecidedStreams} in {@code Numbering.LOGICAL} mode, which
 * blocks its reader while the merge waits; {@code MultiRingMergeCrossCheckTest} checks that both
 * deliver the same sequence from the same decided values.
 *
 * <p>Numbering (rule 1), per stream, from (instance 0, index 0), fed in instance order: a client
 * value takes index {@code next} and {@code next += 1} (a copy of a message this stream decided
 * before takes its index too, as a gap: the first decision counts); a NOOP takes nothing; a
 * SKIP(upTo) sets {@code next = max(next, upTo)}. Every index below {@code next} is decided.
 *
 * <p>Merge: the stream whose cursor has the lowest (⌊index / M⌋, stream position) goes next
 * (streams in increasing stream id); its cursor passes gaps and delivers its message if the
 * message's groups meet the subscription; if that stream's cursor has reached what is decided,
 * the merge waits ({@link #poll} returns −1).
 *
 * <p>{@link Flaw} deliberately breaks one rule, to show that the simulations' checkers catch it.
 *
 * <p>Not thread-safe: the simulator's thread only.
 */
public final class LogicalMerge {

    /** A deliberate bug (tests of the checkers only); {@link #NONE} for the real rule. */
    public enum Flaw {
        /** None: the merge as specified. */
        NONE,
        /** Orders by (index, stream) instead of (⌊index / M⌋, stream): wrong as soon as M &gt; 1. */
        RAW_ORDER,
        /** Numbers a SKIP like a NOOP (weight 0): the learner ignores skips. */
        IGNORE_SKIPS,
        /** Delivers a copy of a message decided twice in a stream again. */
        NO_DEDUPE,
        /** Does not wait for a stream with nothing decided: merges the others past it. */
        NO_WAIT
    }

    private final int streams;
    private final int roundLength;
    private final long subscription;
    private final Flaw flaw;
    /** Per stream: decided messages by index, not yet consumed. */
    private final TreeMap<Long, long[]>[] values;
    private final long[] decidedNext;
    private final long[] cursor;
    private final Set<Long>[] seen;
    private int buffered;

    /**
     * @param streams      how many streams it merges (positions 0..streams-1 in increasing stream id)
     * @param roundLength  M: indices of one stream in a row before the next stream's
     * @param subscription the bits of the groups it delivers
     */
    @SuppressWarnings("unchecked")
    public LogicalMerge(int streams, int roundLength, long subscription, Flaw flaw) {
        if (streams < 1 || roundLength < 1 || subscription == 0) {
            throw new IllegalArgumentException("streams " + streams + ", M " + roundLength + ", groups " + subscription);
        }
        this.streams = streams;
        this.roundLength = roundLength;
        this.subscription = subscription;
        this.flaw = flaw;
        this.values = new TreeMap[streams];
        this.seen = new Set[streams];
        for (int i = 0; i < streams; i++) {
            values[i] = new TreeMap<>();
            seen[i] = new HashSet<>();
        }
        this.decidedNext = new long[streams];
        this.cursor = new long[streams];
    }

    /** Stream {@code stream} decided client value {@code id} for {@code groupBits}: it takes the next index. */
    public void message(int stream, long id, long groupBits) {
        long at = decidedNext[stream]++;
        if (seen[stream].add(id) || flaw == Flaw.NO_DEDUPE) {
            values[stream].put(at, new long[] {id, groupBits});
            buffered++;
        }
    }

    /** Stream {@code stream} decided a NOOP: no index. */
    public void noop(int stream) {
        // weight 0 (rule 1)
    }

    /** Stream {@code stream} decided SKIP({@code upTo}): {@code next = max(next, upTo)}. */
    public void skip(int stream, long upTo) {
        if (flaw != Flaw.IGNORE_SKIPS) {
            decidedNext[stream] = Math.max(decidedNext[stream], upTo);
        }
    }

    /**
     * The next message to deliver, {@code {id, groupBits}}, or null while the merge waits for a
     * stream (or everything decided is consumed).
     */
    public long[] poll() {
        while (true) {
            int best = -1;
            int m = flaw == Flaw.RAW_ORDER ? 1 : roundLength;
            for (int i = 0; i < streams; i++) {
                if (flaw == Flaw.NO_WAIT && cursor[i] >= decidedNext[i]) {
                    continue;
                }
                if (best < 0 || cursor[i] / m < cursor[best] / m) {
                    best = i;
                }
            }
            if (best < 0) {
                return null;
            }
            long k = cursor[best];
            if (k >= decidedNext[best]) {
                return null;
            }
            Map.Entry<Long, long[]> e = values[best].ceilingEntry(k);
            if (e == null || e.getKey() >= decidedNext[best]) {
                cursor[best] = decidedNext[best];
                continue;
            }
            if (e.getKey() > k) {
                cursor[best] = e.getKey();
                continue;
            }
            values[best].remove(k);
            buffered--;
            cursor[best] = k + 1;
            if ((e.getValue()[1] & subscription) != 0) {
                return e.getValue();
            }
        }
    }

    /** Decided messages not consumed yet (the learner's buffer). */
    public int buffered() {
        return buffered;
    }

    /** The next index of stream {@code stream} this learner numbered (rule 1). */
    public long decidedNext(int stream) {
        return decidedNext[stream];
    }

    /** The subscription's group bits. */
    public long subscription() {
        return subscription;
    }
}
