package dev.parallax.examples.kv;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes RESP2 requests (https://redis.io/docs/latest/develop/reference/protocol-spec/): arrays
 * of bulk strings, as clients send them, and inline commands, as a person at a telnet prompt types
 * them. Emits one {@link RespRequest} per request, or, on input that is not RESP or breaks a
 * {@link RespLimits limit}, one {@link RespProtocolError} after which it discards everything the
 * connection sends. Like Redis, it skips blank inline lines and empty or null arrays.
 *
 * <p>Incremental: an array is read element by element across reads, so a large request is not
 * re-parsed from its start each time more bytes arrive. One instance per connection, used on its
 * event loop only; never blocks.
 */
final class RespRequestDecoder extends ByteToMessageDecoder {
    /** '*' or '$', a sign, 19 digits and CRLF fit; a longer header line is not a length. */
    private static final int MAX_HEADER_LINE = 32;
    private static final long NEED_MORE = Long.MIN_VALUE;
    private static final int INITIAL_ARGS = 16;

    private final RespLimits limits;
    private byte[][] args;
    private int expected;
    private int filled;
    private int bulkLength = -1;
    private boolean failed;

    RespRequestDecoder(RespLimits limits) {
        this.limits = limits;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            RespRequest request;
            while ((request = next(in)) != null) {
                out.add(request);
            }
        } catch (ProtocolException e) {
            failed = true;
            args = null;
            in.skipBytes(in.readableBytes());
            out.add(new RespProtocolError(e.getMessage()));
        }
    }

    /** The next complete request, or null when more bytes are needed. */
    private RespRequest next(ByteBuf in) {
        while (args == null) {
            if (!in.isReadable()) {
                return null;
            }
            if (in.getByte(in.readerIndex()) != '*') {
                byte[][] inline = readInline(in);
                if (inline == null) {
                    return null;
                }
                if (inline.length > 0) {
                    return new RespRequest(inline);
                }
                continue;
            }
            long count = readHeader(in, "mbulk count", "multibulk length");
            if (count == NEED_MORE) {
                return null;
            }
            if (count > limits.maxArrayLength()) {
                throw new ProtocolException("invalid multibulk length");
            }
            if (count > 0) {
                expected = (int) count;
                filled = 0;
                args = new byte[Math.min(expected, INITIAL_ARGS)][];
            }
        }
        while (filled < expected) {
            if (bulkLength < 0) {
                if (!in.isReadable()) {
                    return null;
                }
                byte type = in.getByte(in.readerIndex());
                if (type != '$') {
                    throw new ProtocolException("expected '$', got '" + printable(type) + "'");
                }
                long length = readHeader(in, "bulk count", "bulk length");
                if (length == NEED_MORE) {
                    return null;
                }
                if (length < 0 || length > limits.maxBulkLength()) {
                    throw new ProtocolException("invalid bulk length");
                }
                bulkLength = (int) length;
            }
            if (in.readableBytes() < bulkLength + 2L) {
                return null;
            }
            byte[] arg = new byte[bulkLength];
            in.readBytes(arg);
            if (in.readByte() != '\r' || in.readByte() != '\n') {
                throw new ProtocolException("expected CRLF after a bulk string of " + bulkLength + " bytes");
            }
            if (filled == args.length) {
                args = Arrays.copyOf(args, (int) Math.min(expected, 2L * args.length));
            }
            args[filled++] = arg;
            bulkLength = -1;
        }
        RespRequest request = new RespRequest(args);
        args = null;
        return request;
    }

    /**
     * Reads a {@code *n} or {@code $n} header line; NEED_MORE if it is not complete yet.
     *
     * @param tooBig  what Redis calls the line when it is too long
     * @param invalid what Redis calls the number when it does not parse
     */
    private static long readHeader(ByteBuf in, String tooBig, String invalid) {
        int start = in.readerIndex();
        int scanEnd = Math.min(in.writerIndex(), start + MAX_HEADER_LINE);
        int lf = in.indexOf(start, scanEnd, (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() >= MAX_HEADER_LINE) {
                throw new ProtocolException("too big " + tooBig + " string");
            }
            return NEED_MORE;
        }
        int end = lf - 1;
        if (end <= start + 1 || in.getByte(end) != '\r') {
            throw new ProtocolException("invalid " + invalid);
        }
        long value = parseLength(in, start + 1, end);
        if (value == NEED_MORE) {
            throw new ProtocolException("invalid " + invalid);
        }
        in.readerIndex(lf + 1);
        return value;
    }

    /** The decimal number in {@code [from, to)}, or NEED_MORE if it is not one. */
    private static long parseLength(ByteBuf in, int from, int to) {
        boolean negative = in.getByte(from) == '-';
        int i = negative ? from + 1 : from;
        if (i == to || to - i > 18) {
            return NEED_MORE;
        }
        long value = 0;
        for (; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9) {
                return NEED_MORE;
            }
            value = value * 10 + d;
        }
        return negative ? -value : value;
    }

    /** The arguments of the next inline line, empty for a blank one; null if it is not complete. */
    private byte[][] readInline(ByteBuf in) {
        int start = in.readerIndex();
        int scanEnd = (int) Math.min(in.writerIndex(), start + (long) limits.maxInlineLength() + 2);
        int lf = in.indexOf(start, scanEnd, (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() > limits.maxInlineLength()) {
                throw new ProtocolException("too big inline request");
            }
            return null;
        }
        int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        if (end - start > limits.maxInlineLength()) {
            throw new ProtocolException("too big inline request");
        }
        byte[] line = new byte[end - start];
        in.getBytes(start, line);
        in.readerIndex(lf + 1);
        byte[][] split;
        try {
            split = InlineArgs.split(line);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(e.getMessage());
        }
        if (split.length > limits.maxArrayLength()) {
            throw new ProtocolException("invalid multibulk length");
        }
        return split;
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff);
    }

    /** A protocol violation; its message is the reason sent to the client. Carries no stack trace. */
    private static final class ProtocolException extends RuntimeException {
        ProtocolException(String reason) {
            super(reason, null, false, false);
        }
    }
}
