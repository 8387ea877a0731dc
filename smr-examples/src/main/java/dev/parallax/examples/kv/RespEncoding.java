package dev.parallax.examples.kv;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Writes RESP2 replies into Netty buffers: local {@link RespReply}s, error lines, and state machine
 * replies translated from the {@link KvReplyFormat} binary form without building objects.
 * Stateless and thread-safe.
 */
final class RespEncoding {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NIL = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_ERROR_CHARS = 4096;

    private RespEncoding() {
    }

    static void writeLocal(ByteBuf out, RespReply reply) {
        if (reply instanceof RespReply.Simple s) {
            out.writeByte('+');
            out.writeCharSequence(s.text(), StandardCharsets.UTF_8);
            out.writeBytes(CRLF);
        } else if (reply instanceof RespReply.Error e) {
            writeError(out, e.message());
        } else if (reply instanceof RespReply.Int i) {
            writeNumberLine(out, ':', i.value());
        } else if (reply instanceof RespReply.Bulk b) {
            writeBulkOrNil(out, b.value());
        } else if (reply instanceof RespReply.Array a) {
            writeNumberLine(out, '*', a.elements().size());
            for (RespReply element : a.elements()) {
                writeLocal(out, element);
            }
        }
    }

    /**
     * Writes {@code -message}; CR and LF become spaces, as Redis does, and overlong text is cut.
     * Characters up to U+00FF are written as one byte each, so argument bytes quoted in an error
     * (decoded as ISO-8859-1) go back to the client unchanged, as Redis echoes them; others as UTF-8.
     */
    static void writeError(ByteBuf out, String message) {
        out.writeByte('-');
        int n = Math.min(message.length(), MAX_ERROR_CHARS);
        for (int i = 0; i < n; i++) {
            char c = message.charAt(i);
            if (c == '\r' || c == '\n') {
                out.writeByte(' ');
            } else if (c <= 0xff) {
                out.writeByte(c);
            } else {
                out.writeCharSequence(String.valueOf(c), StandardCharsets.UTF_8);
            }
        }
        out.writeBytes(CRLF);
    }

    /**
     * Translates one binary state machine reply into RESP. On malformed input nothing is written.
     *
     * @throws IllegalArgumentException if {@code reply} is not one well-formed {@link KvReplyFormat} value
     */
    static void writeKvReply(ByteBuf out, ByteBuffer reply) {
        int mark = out.writerIndex();
        try {
            int end = writeKvValue(out, reply, reply.position(), true);
            if (end != reply.limit()) {
                throw new IllegalArgumentException("malformed KV reply: trailing bytes");
            }
        } catch (RuntimeException e) {
            out.writerIndex(mark);
            throw e instanceof IllegalArgumentException iae ? iae
                    : new IllegalArgumentException("malformed KV reply: " + e, e);
        }
    }

    /** Writes the value at {@code pos}; returns the position after it. Absolute reads only. */
    private static int writeKvValue(ByteBuf out, ByteBuffer in, int pos, boolean arrayAllowed) {
        byte tag = in.get(pos++);
        switch (tag) {
            case KvReplyFormat.OK:
                out.writeBytes(OK);
                return pos;
            case KvReplyFormat.NIL:
                out.writeBytes(NIL);
                return pos;
            case KvReplyFormat.INTEGER:
                writeNumberLine(out, ':', in.getLong(pos));
                return pos + Long.BYTES;
            case KvReplyFormat.BULK: {
                int length = in.getInt(pos);
                pos += Integer.BYTES;
                if (length < 0 || length > in.limit() - pos) {
                    throw new IllegalArgumentException("malformed KV reply: bulk length " + length);
                }
                writeNumberLine(out, '$', length);
                out.writeBytes(in.duplicate().limit(pos + length).position(pos));
                out.writeBytes(CRLF);
                return pos + length;
            }
            case KvReplyFormat.ARRAY: {
                int count = in.getInt(pos);
                pos += Integer.BYTES;
                if (!arrayAllowed || count < 0 || count > in.limit() - pos) {
                    throw new IllegalArgumentException("malformed KV reply: array of " + count);
                }
                writeNumberLine(out, '*', count);
                for (int i = 0; i < count; i++) {
                    pos = writeKvValue(out, in, pos, false);
                }
                return pos;
            }
            default:
                throw new IllegalArgumentException("malformed KV reply: unknown tag " + tag);
        }
    }

    private static void writeBulkOrNil(ByteBuf out, byte[] value) {
        if (value == null) {
            out.writeBytes(NIL);
            return;
        }
        writeNumberLine(out, '$', value.length);
        out.writeBytes(value);
        out.writeBytes(CRLF);
    }

    /** Writes {@code <type><decimal>\r\n} without allocating. */
    static void writeNumberLine(ByteBuf out, char type, long value) {
        out.writeByte(type);
        if (value == Long.MIN_VALUE) {
            out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
        } else {
            if (value < 0) {
                out.writeByte('-');
                value = -value;
            }
            long divisor = 1;
            while (divisor <= value / 10) {
                divisor *= 10;
            }
            for (; divisor > 0; divisor /= 10) {
                out.writeByte((int) ('0' + (value / divisor) % 10));
            }
        }
        out.writeBytes(CRLF);
    }
}
