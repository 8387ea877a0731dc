package dev.parallax.examples.kv;

import java.nio.ByteBuffer;

/**
 * The binary reply format of the key-value state machine:
 *
 * <pre>
 * reply := 0x00                      OK
 *        | 0x01                      nil
 *        | 0x02 value:i64            integer
 *        | 0x03 length:i32 bytes     bulk
 *        | 0x04 count:i32 reply{count}   array
 * </pre>
 *
 * Stateless and thread-safe; the shared constant buffers are handed out as fresh read-only views.
 */
final class KvReplyFormat {
    static final byte OK = 0;
    static final byte NIL = 1;
    static final byte INTEGER = 2;
    static final byte BULK = 3;
    static final byte ARRAY = 4;

    private static final ByteBuffer OK_REPLY = ByteBuffer.wrap(new byte[] {OK}).asReadOnlyBuffer();
    private static final ByteBuffer NIL_REPLY = ByteBuffer.wrap(new byte[] {NIL}).asReadOnlyBuffer();

    private KvReplyFormat() {
    }

    static ByteBuffer ok() {
        return OK_REPLY.duplicate();
    }

    static ByteBuffer nil() {
        return NIL_REPLY.duplicate();
    }

    static ByteBuffer integer(long value) {
        return ByteBuffer.allocate(1 + Long.BYTES).put(INTEGER).putLong(value).flip();
    }

    static ByteBuffer bulkOrNil(byte[] value) {
        if (value == null) {
            return nil();
        }
        return ByteBuffer.allocate(bulkSize(value)).put(BULK).putInt(value.length).put(value).flip();
    }

    /** The encoded size of a bulk or nil element. */
    static int bulkSize(byte[] value) {
        return value == null ? 1 : 1 + Integer.BYTES + value.length;
    }

    /** Appends a bulk or nil element to {@code out}, which has room for it. */
    static void putBulkOrNil(ByteBuffer out, byte[] value) {
        if (value == null) {
            out.put(NIL);
        } else {
            out.put(BULK).putInt(value.length).put(value);
        }
    }
}
