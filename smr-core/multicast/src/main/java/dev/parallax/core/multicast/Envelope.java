package dev.parallax.core.multicast;

import java.nio.ByteBuffer;

/**
 * What {@link StreamMulticast} orders in a stream: a message (its origin process, the origin's
 * sequence number for it in this stream, its group set and its bytes), a skip (an empty instance
 * a stream's leader decides so that subscribers merging an idle stream with busy ones keep
 * delivering, {@link SkipPolicy#DEMAND}), or a skip-to (what a ring broadcast delivers for a
 * SKIP(upTo) its coordinator decided, {@link Numbering#LOGICAL}: the stream's logical next becomes
 * at least {@code upTo}, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.40-46).
 * {@code (origin, sequence)} names a message: a copy the origin resent may be decided again, and
 * {@link OriginSequences} delivers only the first.
 *
 * <p><b>Encoding.</b> The first byte is the kind and the format version:
 * <ul>
 *   <li>{@code 5} — decided notice: {@code origin:int sequence:long}. Never ordered: a stream
 *       member sends it over the forward transport to an origin that does not run the stream,
 *       so that the origin sees its message decided ({@link StreamMulticast}, "Origins outside a
 *       stream"). Decoded as {@link Kind#UNREADABLE} (a decided value that is one is
 *       consumed as a gap); read with {@link #decidedNotice};</li>
 *   <li>{@code 4} — skip-to: {@code upTo:long} (never negative), decoded with
 *       {@link #sequence()} = {@code upTo} and origin -1;</li>
 *   <li>{@code 3} — message, format 2: {@code origin:int sequence:long groupBits:long bytes};</li>
 *   <li>{@code 2} — skip: {@code proposer:int};</li>
 *   <li>{@code 1} — message, format 1 (no sequence number). Retired: never written, and decoded
 *       as {@link Kind#UNREADABLE}. No stream holds one (format 2 came before any data on disk).</li>
 * </ul>
 * Never empty (Multi-Paxos reserves the empty value for its no-op). A message with no group or a
 * negative sequence number is unreadable. Immutable.
 */
record Envelope(Kind kind, int origin, long sequence, long groupBits, ByteBuffer payload) {
    enum Kind { MESSAGE, SKIP, SKIP_TO, UNREADABLE }

    private static final byte SKIP_TAG = 2;
    private static final byte MESSAGE_TAG = 3;
    private static final byte SKIP_TO_TAG = 4;
    private static final byte DECIDED_TAG = 5;
    private static final int DECIDED_LENGTH = 1 + 4 + 8;
    private static final int SKIP_TO_LENGTH = 1 + 8;
    private static final int MESSAGE_HEADER = 1 + 4 + 8 + 8;
    private static final int SKIP_LENGTH = 1 + 4;

    /** A decided value that is not an envelope: consumed like a skip, delivered to nobody. */
    static final Envelope UNREADABLE = new Envelope(Kind.UNREADABLE, -1, -1, 0, ByteBuffer.allocate(0));

    static ByteBuffer encodeMessage(int origin, long sequence, long groupBits, ByteBuffer message) {
        ByteBuffer b = ByteBuffer.allocate(MESSAGE_HEADER + message.remaining());
        b.put(MESSAGE_TAG).putInt(origin).putLong(sequence).putLong(groupBits).put(message.duplicate()).flip();
        return b.asReadOnlyBuffer();
    }

    static ByteBuffer encodeSkip(int proposer) {
        ByteBuffer b = ByteBuffer.allocate(SKIP_LENGTH);
        b.put(SKIP_TAG).putInt(proposer).flip();
        return b.asReadOnlyBuffer();
    }

    /** @throws IllegalArgumentException if {@code upTo} is negative */
    static ByteBuffer encodeSkipTo(long upTo) {
        if (upTo < 0) {
            throw new IllegalArgumentException("a skip target is never negative, got " + upTo);
        }
        ByteBuffer b = ByteBuffer.allocate(SKIP_TO_LENGTH);
        b.put(SKIP_TO_TAG).putLong(upTo).flip();
        return b.asReadOnlyBuffer();
    }

    /** A decided notice for message {@code (origin, sequence)}: see the encoding. */
    static ByteBuffer encodeDecided(int origin, long sequence) {
        ByteBuffer b = ByteBuffer.allocate(DECIDED_LENGTH);
        b.put(DECIDED_TAG).putInt(origin).putLong(sequence).flip();
        return b.asReadOnlyBuffer();
    }

    /**
     * Reads a decided notice without copying.
     *
     * @return {@code {origin, sequence}}, or {@code null} if {@code value} is not a decided notice
     */
    static long[] decidedNotice(ByteBuffer value) {
        if (value.remaining() != DECIDED_LENGTH || value.get(value.position()) != DECIDED_TAG) {
            return null;
        }
        int origin = value.getInt(value.position() + 1);
        long sequence = value.getLong(value.position() + 5);
        return origin < 0 || sequence < 0 ? null : new long[] {origin, sequence};
    }

    /** The origin of a message envelope without decoding its payload; -1 if {@code value} is not one. */
    static int messageOrigin(ByteBuffer value) {
        if (value.remaining() < MESSAGE_HEADER || value.get(value.position()) != MESSAGE_TAG) {
            return -1;
        }
        return value.getInt(value.position() + 1);
    }

    /** Decodes (copying the payload: {@code value} is valid only during a delivery call). */
    static Envelope decode(ByteBuffer value) {
        ByteBuffer b = value.duplicate();
        if (b.remaining() >= MESSAGE_HEADER && b.get(b.position()) == MESSAGE_TAG) {
            b.get();
            int origin = b.getInt();
            long sequence = b.getLong();
            long bits = b.getLong();
            if (bits == 0 || sequence < 0) {
                return UNREADABLE;
            }
            ByteBuffer payload = ByteBuffer.allocate(b.remaining());
            payload.put(b).flip();
            return new Envelope(Kind.MESSAGE, origin, sequence, bits, payload.asReadOnlyBuffer());
        }
        if (b.remaining() == SKIP_LENGTH && b.get(b.position()) == SKIP_TAG) {
            b.get();
            return new Envelope(Kind.SKIP, b.getInt(), -1, 0, ByteBuffer.allocate(0));
        }
        if (b.remaining() == SKIP_TO_LENGTH && b.get(b.position()) == SKIP_TO_TAG) {
            b.get();
            long upTo = b.getLong();
            return upTo < 0 ? UNREADABLE : new Envelope(Kind.SKIP_TO, -1, upTo, 0, ByteBuffer.allocate(0));
        }
        return UNREADABLE;
    }
}
