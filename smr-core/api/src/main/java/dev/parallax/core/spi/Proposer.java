package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * The proposing side of an {@link AtomicBroadcast}: values offered for ordering, in one lane or in
 * several independent lanes, and the hint that tells a batcher whether a value proposed now would
 * be ordered at once. The replica's batcher is its only caller.
 *
 * <p>Threads: every method may be called from any thread and never blocks; a full proposal queue
 * answers {@code false} (back-pressure), never waits.
 */
public interface Proposer {

    /**
     * Offers a value (usually a batch of commands) for ordering. Non-blocking.
     *
     * @param value the bytes from position to limit; the implementation keeps no reference to the
     *              buffer after the call returns {@code false}, and the caller must not modify it
     *              after the call returns {@code true}
     * @return {@code false} when the proposal queue is full (back-pressure: try again later); the
     *         value was then not taken
     * @throws IllegalStateException if not started or closed
     */
    boolean propose(ByteBuffer value);

    /**
     * The number of proposal lanes: independent streams the replica's batcher fills separately (one
     * batch builder and one held batch per lane), for a broadcast that orders several streams and
     * merges them (Multi-Ring Paxos: one lane per group ring plus one for the global ring, seed 003
     * (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2). Constant for the life of the broadcast, at
     * least 1. Default: 1 (every value through {@link #propose(ByteBuffer)}).
     */
    default int lanes() {
        return 1;
    }

    /**
     * The lane for a command addressed to {@code groups}, in {@code [0, lanes())}; must accept any
     * group set (a client may name groups the broadcast has no stream for) and be a function of the
     * set alone, so that one client's commands to one set keep their order. Thread-safe,
     * non-blocking. Default: 0.
     */
    default int laneOf(GroupSet groups) {
        return 0;
    }

    /**
     * {@link #propose(ByteBuffer)} into lane {@code lane} (same contract: non-blocking, {@code false}
     * = back-pressure, the value was not taken). Default: {@link #propose(ByteBuffer)}.
     *
     * @throws IllegalArgumentException if {@code lane} is not in {@code [0, lanes())}
     */
    default boolean propose(int lane, ByteBuffer value) {
        return propose(value);
    }

    /**
     * {@link #readyForProposal()} for lane {@code lane}. Default: {@link #readyForProposal()}.
     */
    default boolean readyForProposal(int lane) {
        return readyForProposal();
    }

    /**
     * A hint for batchers, read without blocking: whether a value proposed now would start being
     * ordered at once (the protocol has a free window slot and nothing queued). A batcher closes a
     * partial batch early when this holds, so a lone command is not delayed at low load.
     */
    default boolean readyForProposal() {
        return true;
    }
}
