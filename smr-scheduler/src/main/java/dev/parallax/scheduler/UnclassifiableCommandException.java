package dev.parallax.scheduler;

import dev.parallax.core.CommandResult;

/**
 * The application's classifier or conflict relation could not handle a command. The executor
 * catches it in {@link WorkerPoolExecutor#execute} and answers the command with
 * {@link #result()} instead of scheduling it. The message depends only on the command and the
 * application's code, so it is the same on every replica. Without stack trace: it is an expected
 * outcome of bad input, not a bug.
 */
final class UnclassifiableCommandException extends RuntimeException {

    private UnclassifiableCommandException(String message) {
        super(message, null, false, false);
    }

    /** The classifier threw {@code cause}. */
    static UnclassifiableCommandException classifierThrew(RuntimeException cause) {
        return new UnclassifiableCommandException("unclassifiable command: " + CommandResult.failed(cause).error());
    }

    /** The classifier returned {@code cls}, outside {@code [0, classCount)}. */
    static UnclassifiableCommandException classOutOfRange(int cls, int classCount) {
        return new UnclassifiableCommandException("unclassifiable command: classifier returned class " + cls
                + ", outside [0, " + classCount + ")");
    }

    /** The conflict relation threw {@code cause}. */
    static UnclassifiableCommandException relationThrew(RuntimeException cause) {
        return new UnclassifiableCommandException("unclassifiable command: conflict relation threw "
                + CommandResult.failed(cause).error());
    }

    /** The error result the command gets. */
    CommandResult result() {
        return CommandResult.error(getMessage());
    }
}
