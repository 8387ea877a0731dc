package dev.parallax.core.wire;

/**
 * A received frame is malformed: unknown version or type, or a body that does not decode. The
 * network edge's kind of {@link dev.parallax.core.spi.MalformedMessageException}.
 */
public class BadFrameException extends dev.parallax.core.spi.MalformedMessageException {
    public BadFrameException(String message) {
        super(message);
    }

    public BadFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
