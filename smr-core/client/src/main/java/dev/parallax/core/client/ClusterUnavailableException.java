package dev.parallax.core.client;

/**
 * No replica could order the command in time: no quorum answered (too many replicas down or
 * unreachable). Thrown as itself, the command was never sent and did not execute; its subtype
 * {@link OutcomeUnknownException} says the command was sent and may or may not have executed.
 *
 * <p>Immutable; thrown (as the cause of a failed future) on the client's event loop.
 */
public class ClusterUnavailableException extends RuntimeException {
    public ClusterUnavailableException(String message) {
        super(message);
    }

    public ClusterUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
