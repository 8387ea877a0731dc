package dev.parallax.core.stage;

import java.util.List;
import java.util.Objects;

/**
 * Drives a fixed list of stages on the calling thread, for tests and the simulator: each round
 * calls {@link Stage#doWork()} once on every stage, in list order. No threads, no clocks, no wait
 * strategies, so a run depends only on the stages' inputs and is repeatable.
 *
 * <p>The stepper calls every stage's {@link Stage#onStart()}, in order, before the first round, and
 * {@link Stage#onClose()}, in order, on {@link #close()}. Unlike a {@link StageRunner} it does not
 * catch exceptions: whatever a stage throws propagates to the caller.
 *
 * <p>Not thread-safe: confine a stepper to one thread.
 */
public final class StageStepper implements AutoCloseable {

    /**
     * The outcome of {@link #runUntilIdle(int)}.
     *
     * @param rounds the rounds run, including the final idle one
     * @param work the sum of all {@code doWork} results in those rounds
     * @param idle true if the last round did no work, false if the round limit stopped the run
     */
    public record Result(int rounds, long work, boolean idle) {
    }

    private final Stage[] stages;
    private boolean started;
    private boolean closed;

    /**
     * Creates a stepper over {@code stages}, in that order.
     *
     * @param stages the stages, none null; the stepper becomes their only driver
     * @throws NullPointerException if the list or a stage is null
     */
    public StageStepper(List<? extends Stage> stages) {
        this.stages = stages.toArray(new Stage[0]);
        for (Stage stage : this.stages) {
            Objects.requireNonNull(stage, "stage");
        }
    }

    /**
     * Creates a stepper over {@code stages}, in that order.
     *
     * @param stages the stages, none null
     * @return the stepper
     * @throws NullPointerException if a stage is null
     */
    public static StageStepper of(Stage... stages) {
        return new StageStepper(List.of(stages));
    }

    /**
     * Runs one round: {@code doWork} once on each stage, in order (starting the stages first if
     * this is the first round).
     *
     * <p>Runs on the calling thread; does not block unless a stage does.
     *
     * @return the sum of this round's {@code doWork} results (negative results count as 0)
     * @throws IllegalStateException if the stepper is closed
     * @throws RuntimeException whatever a stage throws
     */
    public long step() {
        if (closed) {
            throw new IllegalStateException("stepper is closed");
        }
        if (!started) {
            started = true;
            for (Stage stage : stages) {
                stage.onStart();
            }
        }
        long work = 0;
        for (Stage stage : stages) {
            work += Math.max(0, stage.doWork());
        }
        return work;
    }

    /**
     * Runs rounds until one does no work (every stage idle) or {@code maxRounds} rounds have run.
     *
     * <p>Runs on the calling thread.
     *
     * @param maxRounds the most rounds to run, positive
     * @return how many rounds ran, the work done, and whether the stages went idle
     * @throws IllegalArgumentException if {@code maxRounds} is not positive
     * @throws IllegalStateException if the stepper is closed
     * @throws RuntimeException whatever a stage throws
     */
    public Result runUntilIdle(int maxRounds) {
        if (maxRounds <= 0) {
            throw new IllegalArgumentException("maxRounds must be positive: " + maxRounds);
        }
        long total = 0;
        for (int round = 1; round <= maxRounds; round++) {
            long work = step();
            total += work;
            if (work == 0) {
                return new Result(round, total, true);
            }
        }
        return new Result(maxRounds, total, false);
    }

    /**
     * Calls {@link Stage#onClose()} on every stage, in order, if they were started; idempotent.
     * If several hooks throw, the first exception propagates with the others suppressed, after all
     * hooks have run.
     *
     * <p>Runs on the calling thread.
     *
     * @throws RuntimeException the first exception thrown by an {@code onClose}
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!started) {
            return;
        }
        RuntimeException first = null;
        for (Stage stage : stages) {
            try {
                stage.onClose();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
