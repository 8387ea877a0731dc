package dev.parallax.core.spi;

/**
 * Bytes received from the network (or read from a log) do not decode: an unknown type, a truncated
 * body, a count or length beyond the bytes left, trailing bytes. The transport that meets it closes
 * the offending connection, counts it and goes on; it never reaches protocol code.
 */
public class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
