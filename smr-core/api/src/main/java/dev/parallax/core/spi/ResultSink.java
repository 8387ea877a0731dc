package dev.parallax.core.spi;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;

/**
 * Receives the result of every command an {@link Executor} ran.
 *
 * <p>May be called from several executor threads at once (a parallel executor completes
 * independent commands concurrently and out of delivery order), so implementations must be
 * thread-safe and must not block for long.
 */
@FunctionalInterface
public interface ResultSink {

    /** The result of {@code command}, which the state machine executed (or rejected by throwing). */
    void onResult(Command command, CommandResult result);

    /**
     * The error result of a command the executor could not schedule because the application's
     * classifier or conflict relation threw on it; the state machine never saw the command. Called
     * on the scheduling thread, from {@link Executor#execute}. The default treats it as
     * {@link #onResult}.
     */
    default void onUnclassifiable(Command command, CommandResult result) {
        onResult(command, result);
    }

    /**
     * The executor stopped for good: the state machine threw an {@link Error} while executing
     * {@code command} (or the sink itself failed, {@code command} then {@code null}). Called once,
     * from the thread that hit the error, before any later {@link Executor#execute} or
     * {@link Executor#awaitQuiescence} throws {@link IllegalStateException}. Must not block. The
     * default does nothing.
     */
    default void onFatal(Command command, Throwable error) {
    }
}
