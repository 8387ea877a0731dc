package dev.parallax.core.stage;

import java.util.Optional;

/**
 * A running {@link Stage}, whatever thread drives it: a {@link StageRunner} (a thread of its own)
 * or a member of a {@link CompositeStageRunner} (a thread shared with other stages). The owner of
 * a stage holds its handle and closes it; {@link StageThreads} hands one out per stage it runs, so
 * code that starts stages does not depend on the {@link ThreadPlacement}.
 *
 * <p>Every method is thread-safe. {@link #wake()} never blocks; {@link #close()} blocks up to the
 * driver's close timeout.
 */
public interface StageHandle extends Wakeup, AutoCloseable {

    /**
     * The stage's name, which is also the {@code stage} tag of its metrics.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @return the stage name
     */
    String name();

    /**
     * Wakes the thread driving the stage if it is parked or about to park, so that work the stage
     * finds outside its declared input queues is seen at once; otherwise does nothing. Producers to
     * the declared inputs need not call it: the queues do.
     *
     * <p>Thread-safe; non-blocking; never throws.
     */
    @Override
    void wake();

    /**
     * The error that stopped the stage: a non-assertion {@link Error} from {@link Stage#doWork()},
     * or anything thrown by {@link Stage#onStart()}. Other stages on the same thread go on.
     *
     * <p>Thread-safe; non-blocking.
     *
     * @return the fatal failure, or empty if the stage has not failed
     */
    Optional<Throwable> failure();

    /**
     * The stage's counters, kept whether or not its metrics are registered.
     *
     * <p>Thread-safe; readers see recent values (see {@link StageCounters}).
     *
     * @return the counters
     */
    StageCounters counters();

    /**
     * Whether the stage has been started and has not yet stopped (it stops after {@link #close()}
     * or a fatal failure).
     *
     * <p>Thread-safe; non-blocking.
     *
     * @return true while the stage is driven
     */
    boolean isRunning();

    /**
     * Stops the stage: once it returns, the stage's last {@code doWork} has finished, its
     * {@link Stage#onClose()} has run on the driving thread and its meters are removed. Idempotent.
     * Called on the driving thread itself (from inside a stage) it only requests the stop, which
     * takes effect when the current {@code doWork} returns.
     *
     * <p>Thread-safe; blocks up to the driver's close timeout. An interrupt does not shorten the
     * wait; it is re-asserted before returning.
     *
     * @throws IllegalStateException if the stage did not stop within the close timeout, which means
     *     a stage on the driving thread blocks in breach of its contract
     */
    @Override
    void close();
}
