package dev.parallax.core.spi;

/**
 * A {@link DurableLog} could not store or read records (I/O error, disk full, corruption). The
 * record that triggered it must be treated as not stored: an acceptor that gets this stops voting.
 */
public class DurableLogException extends RuntimeException {
    public DurableLogException(String message, Throwable cause) {
        super(message, cause);
    }

    public DurableLogException(String message) {
        super(message);
    }
}
