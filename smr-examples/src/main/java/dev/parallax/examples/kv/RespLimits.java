package dev.parallax.examples.kv;

/**
 * Size limits on RESP requests; a request over any of them is a protocol error that closes its
 * connection. Immutable and thread-safe.
 *
 * @param maxArrayLength  most arguments in one request, array or inline
 * @param maxBulkLength   most bytes in one argument
 * @param maxInlineLength most bytes in one inline (telnet-style) request line
 */
public record RespLimits(int maxArrayLength, int maxBulkLength, int maxInlineLength) {

    /**
     * Redis' own limits for bulk strings (512 MB) and inline lines (64 KB), and a million
     * arguments per request.
     */
    public static final RespLimits DEFAULTS = new RespLimits(1024 * 1024, 512 * 1024 * 1024, 64 * 1024);

    /** @throws IllegalArgumentException if a limit is not positive */
    public RespLimits {
        if (maxArrayLength < 1 || maxBulkLength < 1 || maxInlineLength < 1) {
            throw new IllegalArgumentException("RESP limits must be positive: " + maxArrayLength + ", "
                    + maxBulkLength + ", " + maxInlineLength);
        }
    }
}
