package dev.parallax.examples.kv;

/**
 * The key-value state machine rejects a well-formed command, for example INCR on a value that is
 * not an integer. The message is a Redis-style error reply: an upper-case code, then the text
 * ({@code "ERR value is not an integer or out of range"}); the RESP front end sends it as is.
 * The state is unchanged when this is thrown.
 */
public final class KvCommandException extends RuntimeException {
    /** Creates the exception with a Redis-style error message (code first). */
    public KvCommandException(String message) {
        super(message);
    }
}
