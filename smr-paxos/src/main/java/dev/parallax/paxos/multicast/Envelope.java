package dev.parallax.paxos.multicast;

import java.nio.ByteBuffer;

/**
 * What {@link PaxosMulticast} orders in a stream: a message (its origin process, its group set and
 * its bytes) or a skip (an empty instance a stream's leader decides so that subscribers merging
 * an idle stream with busy ones keep delivering).
 *
 * <p>Encoding: kind byte {@code 1}, origin int, group bits long, bytes — or kind byte {@code 2},
 * proposer int. Never empty (Multi-Paxos reserves the empty value for its no-op). Immutable.
 */
record Envelope(Kind kind, int origin, long groupBits, ByteBuffer payload) {
    enum Kind { MESSAGE, SKIP, UNREADABLE }

    private static final byte MESSAGE_TAG = 1;
    private static final byte SKIP_TAG = 2;
    private static final int MESSAGE_HEADER = 1 + 4 + 8;

    /** A decided value that is not an envelope: consumed like a skip, delivered to nobody. */
    static final Envelope UNREADABLE = new Envelope(Kind.UNREADABLE, -1, 0, ByteBuffer.allocate(0));

    static ByteBuffer encodeMessage(int origin, long groupBits, ByteBuffer message) {
        ByteBuffer b = ByteBuffer.allocate(MESSAGE_HEADER + message.remaining());
        b.put(MESSAGE_TAG).putInt(origin).putLong(groupBits).put(message.duplicate()).flip();
        return b.asReadOnlyBuffer();
    }

    static ByteBuffer encodeSkip(int proposer) {
        ByteBuffer b = ByteBuffer.allocate(5);
        b.put(SKIP_TAG).putInt(proposer).flip();
        return b.asReadOnlyBuffer();
    }

    /** Decodes (copying the payload: {@code value} is valid only during a delivery call). */
    static Envelope decode(ByteBuffer value) {
        ByteBuffer b = value.duplicate();
        if (b.remaining() >= MESSAGE_HEADER && b.get(b.position()) == MESSAGE_TAG) {
            b.get();
            int origin = b.getInt();
            long bits = b.getLong();
            if (bits == 0) {
                return UNREADABLE;
            }
            ByteBuffer payload = ByteBuffer.allocate(b.remaining());
            payload.put(b).flip();
            return new Envelope(Kind.MESSAGE, origin, bits, payload.asReadOnlyBuffer());
        }
        if (b.remaining() == 5 && b.get(b.position()) == SKIP_TAG) {
            b.get();
            return new Envelope(Kind.SKIP, b.getInt(), 0, ByteBuffer.allocate(0));
        }
        return UNREADABLE;
    }
}
