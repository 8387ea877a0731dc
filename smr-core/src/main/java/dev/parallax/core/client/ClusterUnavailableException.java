package dev.parallax.core.client;

/**
 * No replica could order the command in time: no quorum answered (too many replicas down or
 * unreachable). The command may or may not have been executed.
 */
public class ClusterUnavailableException extends RuntimeException {
    public ClusterUnavailableException(String message) {
        super(message);
    }

    public ClusterUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
