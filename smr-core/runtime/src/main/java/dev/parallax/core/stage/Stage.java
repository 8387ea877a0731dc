package dev.parallax.core.stage;

import java.util.List;

/**
 * One step of the replica's staged pipeline: private state plus a {@link #doWork()} that drains the
 * stage's input queues in batches (the SEDA/actor design of JPaxos, Santos and Schiper, ICDCS 2013,
 * §V). A stage says what to do; a {@link StageRunner} (a thread of its own), a
 * {@link CompositeStageRunner} (one thread shared with other stages) or, in tests, a
 * {@link StageStepper} decides when and on which thread; {@link StageThreads} chooses between the
 * first two by {@link ThreadPlacement}. Since the thread may be shared, {@code doWork} must return
 * after a bounded batch: a stage that loops until its inputs are empty starves its neighbours.
 *
 * <p>Threading contract: {@link #doWork()}, {@link #onStart()} and {@link #onClose()} are only ever
 * called by one thread at a time, and successive calls are ordered by happens-before even if the
 * driver changes thread, so a stage needs no synchronization for its private state. {@link #name()}
 * and {@link #inputQueues()} may be called from any thread.
 */
public interface Stage {

    /**
     * Does one bounded batch of work: typically drains up to a fixed number of items from the input
     * queues and hands results to output queues.
     *
     * <p>Must not block: no locks held by other stages, no blocking I/O, no {@code put} on a full
     * queue, no sleeping. When an output is full the stage leaves its input where it is (or keeps
     * the item) and returns; back-pressure then propagates upstream through the full queues.
     * Called by one thread at a time.
     *
     * @return the amount of work done, for example the number of items consumed; 0 means the stage
     *     was idle, which lets the runner's wait strategy back off. Negative values count as 0.
     * @throws RuntimeException if processing failed; a {@link StageRunner} or
     *     {@link CompositeStageRunner} logs and counts it and calls {@code doWork} again, a
     *     {@link StageStepper} lets it propagate
     */
    int doWork();

    /**
     * The stage's name: the runner thread's name and the {@code stage} tag of its metrics.
     *
     * <p>Must return the same non-empty string on every call; thread-safe.
     *
     * @return the stage name
     */
    String name();

    /**
     * Called once on the driving thread before the first {@link #doWork()}.
     *
     * <p>Must not block. The default does nothing.
     *
     * @throws RuntimeException if the stage cannot start; a runner then logs it, does not call
     *     {@code doWork} and stops the stage (calling {@link #onClose()}); other stages on a shared
     *     thread go on
     */
    default void onStart() {
    }

    /**
     * Called once on the driving thread after the last {@link #doWork()}, also when the stage
     * stopped because of a failure.
     *
     * <p>Must not block. The default does nothing.
     *
     * @throws RuntimeException if releasing resources failed; the runner logs and counts it
     */
    default void onClose() {
    }

    /**
     * The queues this stage consumes from. The runner driving the stage ({@link StageRunner} or
     * {@link CompositeStageRunner}) installs its wakeup on them, looks at them before parking (so
     * an item offered while the runner goes to sleep is not missed) and publishes their depth as
     * metrics. A stage with inputs that are not declared here is only noticed when its wait strategy's park
     * time runs out.
     *
     * <p>Must return the same queues on every call; read once by each driver. Thread-safe. The
     * default declares none.
     *
     * @return the input queues, in a stable order
     */
    default List<? extends BoundedQueue<?>> inputQueues() {
        return List.of();
    }
}
