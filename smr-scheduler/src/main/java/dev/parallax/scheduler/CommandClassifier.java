package dev.parallax.scheduler;

import dev.parallax.core.Command;

/**
 * Tells the request class of a command (seed 001 §4.1, Definition 2): the application's knowledge
 * of which commands may conflict, expressed as an index into a
 * {@link dev.parallax.scheduler.classmap.ClassMap}.
 *
 * <p>Threads: called by the executor's scheduling thread (the caller of
 * {@link dev.parallax.core.spi.Executor#execute}), once per command. Must be deterministic, fast
 * and free of side effects; it must not keep the command's payload.
 */
@FunctionalInterface
public interface CommandClassifier {

    /**
     * @return the class index of {@code command}, in {@code [0, classMap.classCount())}
     * @throws RuntimeException if the command cannot be classified; the executor then answers the
     *                          command with the error result {@code "unclassifiable command: <type>:
     *                          <message>"} (through
     *                          {@link dev.parallax.core.spi.ResultSink#onUnclassifiable}) without
     *                          executing it, and goes on. The exception must be deterministic, so
     *                          that every replica gives the same answer.
     */
    int classify(Command command);
}
