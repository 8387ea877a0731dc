package dev.parallax.bench.queue;

import org.jctools.queues.MessagePassingQueue;
import org.openjdk.jmh.infra.Control;

/**
 * The producer and consumer bodies shared by the transfer benchmarks: spin on a full or empty queue, but
 * give up as soon as JMH ends the iteration, so that no thread is left waiting for a peer that has
 * already stopped.
 *
 * <p>Thread-safety: stateless; each method is run by the thread that plays the named role. Never blocks:
 * the spins end when the queue makes progress or {@link Control#stopMeasurement} becomes {@code true}.
 */
public final class TransferLoops {

    /** The most items a consumer takes per drain call from a queue that honours a limit. */
    public static final int DRAIN_LIMIT = 256;

    private TransferLoops() {
    }

    /**
     * Offers {@code item} until the queue accepts it or the iteration ends.
     *
     * @param queue the queue to offer to
     * @param item the item to enqueue
     * @param control JMH's iteration control
     * @return {@code true} if the item was enqueued, {@code false} if the iteration ended first
     */
    public static boolean produce(HandoffQueue queue, Object item, Control control) {
        while (!queue.offer(item)) {
            if (control.stopMeasurement) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /**
     * Drains one non-empty batch into {@code sink}, or nothing if the iteration ends first.
     *
     * @param queue the queue to drain; only this thread may drain it
     * @param sink receives the items
     * @param control JMH's iteration control
     * @return the number of items drained; {@code 0} only if the iteration ended first
     */
    public static int consume(HandoffQueue queue, MessagePassingQueue.Consumer<Object> sink, Control control) {
        int drained;
        while ((drained = queue.drain(sink)) == 0) {
            if (control.stopMeasurement) {
                return 0;
            }
            Thread.onSpinWait();
        }
        return drained;
    }
}
