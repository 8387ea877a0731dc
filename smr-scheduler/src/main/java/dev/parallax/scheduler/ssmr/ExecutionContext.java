package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * The explicit execution context of one command under S-SMR (seed 004 (S-SMR) §IV Alg. 1
 * l.13-19): the command's partitions and the values other partitions sent for it.
 *
 * <p>Valid only during {@link PartitionedStateMachine#execute}; used on the executing thread only.
 * The executor calls {@code execute} only once it holds the values of every partition that
 * {@link PartitionedStateMachine#remoteReads} named, so no method here blocks.
 */
public interface ExecutionContext extends PartitionView {
    /**
     * The bytes {@link PartitionedStateMachine#localReads} returned for this command at a replica of
     * {@code partition} (the values of that partition's variables the command reads, as they were
     * when the command executed there), a fresh read-only view.
     *
     * @throws IllegalArgumentException if {@code partition} is not among what
     *                                  {@link PartitionedStateMachine#remoteReads} named for this
     *                                  command (a state machine bug: the same on every replica)
     */
    ByteBuffer valuesOf(int partition);

    /**
     * Checks that the command was multicast to every partition in {@code needed}. Call it before
     * changing any state.
     *
     * @throws WrongPartitionsException if a partition of {@code needed} is not {@link #involved()}:
     *                                  the oracle under-approximated; the command fails the same way
     *                                  on every replica and the client retries with a wider set
     */
    void require(GroupSet needed);
}
