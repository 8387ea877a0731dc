package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

/**
 * Delivery per worker, for a broadcast built on atomic multicast that can give each worker of a
 * parallel executor a stream of its own (P-SMR, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6).
 * A broadcast that delivers one total order keeps the defaults.
 *
 * <p>Threads: {@link #deliversPerWorker()} from any thread; {@link #startPerWorker} once, by the
 * owner, instead of {@link AtomicBroadcast#start}.
 */
public interface PerWorkerDelivery {

    /**
     * Whether this broadcast can deliver per worker ({@link #startPerWorker}): a multicast that
     * gives each worker a stream of its own (P-SMR, seed 003 (Ring Paxos / Multi-Ring / P-SMR)
     * ch. 6). Default {@code false}.
     */
    default boolean deliversPerWorker() {
        return false;
    }

    /**
     * Starts delivery per worker, instead of {@link AtomicBroadcast#start}: worker i's stream is the deterministic
     * merge of the values multicast to any of its groups (the broadcast's groups g whose
     * {@code workersOf}({g}) contains i) and of those multicast to every group (the global stream),
     * each stream with a delivery thread of its own. Every two workers' streams order the values
     * they share alike, and the union of their orders is acyclic (atomic multicast's acyclic
     * order), which is what lets workers that share a value meet on it without deadlock.
     *
     * <p>In this mode: {@link SnapshotHooks#deliveryState()} is called on one worker's delivery thread while
     * every worker is inside the delivery of one value multicast to every group (a barrier: every
     * stream stands at a consistent cut), and returns every stream's position;
     * {@link SnapshotHooks#snapshotInstalled(long, byte[])} moves every stream to the snapshot's positions,
     * closing the old streams (a delivery blocked in the listener is interrupted) and opening the
     * new ones before it returns; the sequence number of a snapshot is the sum over the workers of
     * their next delivery numbers at the barrier.
     *
     * @param workers   k, the number of workers
     * @param workersOf the workers of a value to a group set, bit i for worker i (the executor's
     *                  mapping, {@link WorkerExecutor#workersOf})
     * @throws UnsupportedOperationException if {@link #deliversPerWorker()} is false
     * @throws IllegalArgumentException      if some worker would have no group of the broadcast
     * @throws IllegalStateException         if already started
     */
    default void startPerWorker(int workers, java.util.function.ToLongFunction<GroupSet> workersOf,
                                WorkerDeliveryListener listener) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " delivers one total order, not per worker");
    }
}
