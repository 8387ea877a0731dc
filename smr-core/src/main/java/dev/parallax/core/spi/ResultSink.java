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
    void onResult(Command command, CommandResult result);
}
