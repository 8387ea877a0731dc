package dev.parallax.core.stage;

import java.util.function.Consumer;

/**
 * A bounded queue between stages. It never drops an element: {@link #offer} refuses when full and
 * {@link #put} waits for room, so a slow consumer stops its producers (back-pressure, JPaxos §V-E).
 *
 * <p>Threading contract. Producer methods are {@link #offer} and {@link #put}; consumer methods
 * are {@link #drain} and {@link #poll}. Every implementation has a single consumer: at most one
 * thread at a time may call consumer methods, and a change of consumer thread must be ordered by
 * happens-before (as a {@link StageRunner} or {@link StageStepper} does). How many producer threads
 * may call producer methods concurrently is fixed when the queue is made: any number for
 * {@link Queues#mpsc} and {@code Queues.disruptor(capacity, true)}, one at a time for
 * {@link Queues#spsc} and {@code Queues.disruptor(capacity, false)}. {@link #size},
 * {@link #isEmpty}, {@link #capacity}, {@link #remainingCapacity} and
 * {@link #setConsumerWakeup} may be called from any thread; the first three are snapshots that are
 * exact only when no other thread is using the queue.
 *
 * <p>Null elements are not allowed.
 *
 * @param <E> the element type
 */
public interface BoundedQueue<E> {

    /**
     * Adds {@code element} if there is room, then calls the consumer {@link Wakeup}.
     *
     * <p>Producer side; non-blocking, lock-free.
     *
     * @param element the element to add
     * @return true if added, false if the queue was full (the element was not added)
     * @throws NullPointerException if {@code element} is null
     */
    boolean offer(E element);

    /**
     * Adds {@code element}, waiting for room while the queue is full, then calls the consumer
     * {@link Wakeup}. The wait spins, yields, then parks with a backoff of at most 100 µs, since
     * consumers do not signal producers.
     *
     * <p>Producer side; blocks while full. A stage's {@link Stage#doWork()} must use
     * {@link #offer} instead.
     *
     * @param element the element to add
     * @throws InterruptedException if the thread is interrupted while waiting; the element was
     *     then not added
     * @throws NullPointerException if {@code element} is null
     */
    void put(E element) throws InterruptedException;

    /**
     * Removes up to {@code limit} elements in FIFO order and passes each to {@code sink}. If the
     * sink throws, the element it was given counts as removed, the rest stay queued, and the
     * exception propagates.
     *
     * <p>Consumer side; non-blocking. May return less than is queued while a producer is between
     * reserving a slot and publishing into it; {@link #isEmpty()} is then false and a later call
     * returns the element.
     *
     * @param sink receives the removed elements, on the calling thread
     * @param limit the most elements to remove, at least 0
     * @return the number of elements removed
     * @throws IllegalArgumentException if {@code limit} is negative
     * @throws NullPointerException if {@code sink} is null
     */
    int drain(Consumer<? super E> sink, int limit);

    /**
     * Removes and returns the oldest element.
     *
     * <p>Consumer side; non-blocking. Like {@link #drain}, may return null while a producer is in
     * the middle of publishing.
     *
     * @return the oldest element, or null if none is available
     */
    E poll();

    /**
     * The number of queued elements, counting ones still being published.
     *
     * <p>Any thread; a snapshot, between 0 and {@link #capacity()}.
     *
     * @return the number of queued elements
     */
    int size();

    /**
     * The most elements the queue holds: the requested capacity rounded up to a power of two,
     * and to at least 4.
     *
     * <p>Any thread; constant.
     *
     * @return the capacity
     */
    int capacity();

    /**
     * Whether nothing is queued or being published.
     *
     * <p>Any thread; a snapshot. When the consumer reads it after publishing that it is about to
     * park, it sees every element whose producer did not see that publication (see the package
     * documentation).
     *
     * @return true if the queue is empty
     */
    boolean isEmpty();

    /**
     * {@code capacity() - size()}: how many elements could be offered now. Exact as a lower bound
     * when the caller is the only producer, which lets a stage move work downstream only when it
     * fits.
     *
     * <p>Any thread; a snapshot.
     *
     * @return the free room, at least 0
     */
    default int remainingCapacity() {
        return Math.max(0, capacity() - size());
    }

    /**
     * Sets the wakeup called after every successful {@link #offer} or {@link #put}, replacing the
     * previous one (initially {@link Wakeup#NONE}). A {@link StageRunner} or
     * {@link CompositeStageRunner} sets its wakeup on the queues its stages declare in
     * {@link Stage#inputQueues()}.
     *
     * <p>Any thread; producers see the change at their next offer.
     *
     * @param wakeup the consumer's wakeup
     * @throws NullPointerException if {@code wakeup} is null
     */
    void setConsumerWakeup(Wakeup wakeup);
}
