package dev.parallax.paxos.multicast;

import java.nio.ByteBuffer;

/**
 * What {@link PaxosMulticast} orders in a stream: a message (its origin process, the origin's
 * sequence number for it in this stream, its group set and its bytes) or a skip (an empty
 * instance a stream's leader decides so that subscribers merging an idle stream with busy ones
 * keep delivering). {@code (origin, sequence)} names a message: a copy the origin resent may be
 * decided again, and {@link OriginSequences} delivers only the first.
 *
 * <p><b>Encoding.</b> The first byte is the kind and the format version:
 * <ul>
 *   <li>{@code 3} — message, format 2: {@code origin:int sequence:long groupBits:long bytes};</li>
 *   <li>{@code 2} — skip: {@code proposer:int};</li>
 *   <li>{@code 1} — message, format 1 (no sequence number). Retired: never written, and decoded
 *       as {@link Kind#UNREADABLE}. No stream holds one (format 2 came before any data on disk).</li>
 * </ul>
 * Never empty (Multi-Paxos reserves the empty value for its no-op). A message with no group or a
 * negative sequence number is unreadable. Immutable.
 */
record Envelope(Kind kind, int origin, long sequence, long groupBits, ByteBuffer payload) {
    enum Kind { MESSAGE, SKIP, UNREADABLE }

    private static final byte SKIP_TAG = 2;
    private static final byte MESSAGE_TAG = 3;
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
        return UNREADABLE;
    }
}
