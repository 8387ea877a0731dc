package dev.parallax.bench.systems.limits;

import dev.parallax.bench.systems.framed.FramedServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Cuts the {@code [int length][bytes]} frames of a byte stream into runs of whole frames without
 * decoding them one by one: each socket read yields at most two runs, passed on as retained slices
 * of the read's buffer (zero copy); only a frame split across reads is copied, into a carry buffer
 * that is passed on once complete. Confined to one connection's event loop; not thread-safe.
 */
final class FrameGatherer {
    /** Receives runs of whole frames. */
    interface Sink {
        /** {@code frames} holds {@code count} whole frames; the sink owns (must release or pass on) it. */
        void accept(ByteBuf frames, int count);
    }

    private ByteBuf carry;

    /**
     * Passes every whole frame of {@code in} (after what was carried from earlier reads) to
     * {@code sink} and keeps the incomplete tail. Reads {@code in} to its end; does not release it.
     *
     * @throws IllegalArgumentException if a frame length is negative or above {@link FramedServer#MAX_FRAME}
     */
    void read(ByteBuf in, ByteBufAllocator alloc, Sink sink) {
        if (carry != null && !completeCarry(in, sink)) {
            return;
        }
        int start = in.readerIndex();
        int end = start;
        int limit = in.writerIndex();
        int frames = 0;
        while (limit - end >= Integer.BYTES) {
            int length = frameLength(in.getInt(end));
            if (limit - end - Integer.BYTES < length) {
                break;
            }
            end += Integer.BYTES + length;
            frames++;
        }
        if (frames > 0) {
            in.readerIndex(end);
            sink.accept(in.retainedSlice(start, end - start), frames);
        }
        if (in.isReadable()) {
            int capacity = in.readableBytes() >= Integer.BYTES
                    ? Integer.BYTES + frameLength(in.getInt(in.readerIndex())) : 64;
            carry = alloc.buffer(capacity).writeBytes(in);
        }
    }

    /** Releases a carried partial frame; call when the connection closes. */
    void release() {
        if (carry != null) {
            carry.release();
            carry = null;
        }
    }

    /** Moves bytes of {@code in} into the carried frame; true once it is whole (and passed on). */
    private boolean completeCarry(ByteBuf in, Sink sink) {
        if (carry.readableBytes() < Integer.BYTES) {
            carry.writeBytes(in, Math.min(Integer.BYTES - carry.readableBytes(), in.readableBytes()));
            if (carry.readableBytes() < Integer.BYTES) {
                return false;
            }
        }
        int whole = Integer.BYTES + frameLength(carry.getInt(carry.readerIndex()));
        carry.writeBytes(in, Math.min(whole - carry.readableBytes(), in.readableBytes()));
        if (carry.readableBytes() < whole) {
            return false;
        }
        ByteBuf frame = carry;
        carry = null;
        sink.accept(frame, 1);
        return true;
    }

    private static int frameLength(int length) {
        if (length < 0 || length > FramedServer.MAX_FRAME) {
            throw new IllegalArgumentException("frame length " + length + " outside 0.." + FramedServer.MAX_FRAME);
        }
        return length;
    }
}
