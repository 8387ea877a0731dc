package dev.parallax.core.net;

/** A received frame is malformed: unknown version or type, or a body that does not decode. */
public class BadFrameException extends RuntimeException {
    public BadFrameException(String message) {
        super(message);
    }

    public BadFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
