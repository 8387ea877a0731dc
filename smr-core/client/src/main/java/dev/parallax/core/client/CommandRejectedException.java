package dev.parallax.core.client;

/**
 * The state machine rejected the command (it threw while executing it). Every replica rejected it
 * the same way and the state is unchanged; retrying the same command gives the same error.
 */
public class CommandRejectedException extends RuntimeException {
    public CommandRejectedException(String message) {
        super(message);
    }
}
