package dev.parallax.examples.kv;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A decoded reply of the key-value state machine: what a client of the replicated store sees
 * without the RESP front end (tests, a command-line client).
 *
 * <p>The wire format (written by {@link KvStateMachine}, read by {@link #decode}) is a tag byte per
 * value: OK, nil, a 64-bit integer, a length-prefixed bulk string, or a counted array of these.
 * All implementations are immutable and thread-safe.
 */
public sealed interface KvReply permits KvReply.Ok, KvReply.Nil, KvReply.Int, KvReply.Bulk, KvReply.Multi {

    /** The OK status reply. */
    Ok OK = new Ok();
    /** The nil reply (absent key, unmet SET condition). */
    Nil NIL = new Nil();

    /** The encoded reply in a fresh heap buffer, positioned at 0. */
    ByteBuffer encode();

    /**
     * Decodes the reply between {@code in}'s position and limit; {@code in} itself is not moved.
     *
     * @throws IllegalArgumentException if the bytes are not exactly one well-formed reply
     */
    static KvReply decode(ByteBuffer in) {
        ByteBuffer view = in.duplicate();
        KvReply reply = decodeValue(view, 0);
        if (view.hasRemaining()) {
            throw new IllegalArgumentException("malformed KV reply: " + view.remaining() + " trailing bytes");
        }
        return reply;
    }

    private static KvReply decodeValue(ByteBuffer in, int depth) {
        if (!in.hasRemaining()) {
            throw new IllegalArgumentException("malformed KV reply: truncated");
        }
        byte tag = in.get();
        try {
            switch (tag) {
                case KvReplyFormat.OK:
                    return OK;
                case KvReplyFormat.NIL:
                    return NIL;
                case KvReplyFormat.INTEGER:
                    return new Int(in.getLong());
                case KvReplyFormat.BULK: {
                    int length = in.getInt();
                    if (length < 0 || length > in.remaining()) {
                        throw new IllegalArgumentException("malformed KV reply: bulk length " + length);
                    }
                    byte[] value = new byte[length];
                    in.get(value);
                    return new Bulk(value);
                }
                case KvReplyFormat.ARRAY: {
                    int count = in.getInt();
                    if (depth > 0 || count < 0 || count > in.remaining()) {
                        throw new IllegalArgumentException("malformed KV reply: array of " + count
                                + " at depth " + depth);
                    }
                    List<KvReply> elements = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        elements.add(decodeValue(in, depth + 1));
                    }
                    return new Multi(elements);
                }
                default:
                    throw new IllegalArgumentException("malformed KV reply: unknown tag " + tag);
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("malformed KV reply: truncated", e);
        }
    }

    /** The OK status. */
    record Ok() implements KvReply {
        @Override
        public ByteBuffer encode() {
            return ByteBuffer.allocate(1).put(KvReplyFormat.OK).flip();
        }
    }

    /** The nil value. */
    record Nil() implements KvReply {
        @Override
        public ByteBuffer encode() {
            return ByteBuffer.allocate(1).put(KvReplyFormat.NIL).flip();
        }
    }

    /** A signed 64-bit integer (counts, INCR results). */
    record Int(long value) implements KvReply {
        @Override
        public ByteBuffer encode() {
            return KvReplyFormat.integer(value);
        }
    }

    /** A binary-safe string; the array is copied in and out. */
    record Bulk(byte[] value) implements KvReply {
        /** @throws NullPointerException if {@code value} is null */
        public Bulk {
            value = Objects.requireNonNull(value, "value").clone();
        }

        /** A copy of the bytes. */
        @Override
        public byte[] value() {
            return value.clone();
        }

        @Override
        public ByteBuffer encode() {
            return KvReplyFormat.bulkOrNil(value);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bulk b && Arrays.equals(value, b.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "Bulk[" + value.length + " B]";
        }
    }

    /** An array of bulk or nil values (MGET); one level deep. */
    record Multi(List<KvReply> elements) implements KvReply {
        /** @throws IllegalArgumentException if an element is itself an array */
        public Multi {
            elements = List.copyOf(elements);
            for (KvReply e : elements) {
                if (!(e instanceof Bulk || e instanceof Nil || e instanceof Int || e instanceof Ok)) {
                    throw new IllegalArgumentException("arrays hold scalar replies only: " + e);
                }
            }
        }

        @Override
        public ByteBuffer encode() {
            List<ByteBuffer> parts = new ArrayList<>(elements.size());
            int size = 1 + Integer.BYTES;
            for (KvReply e : elements) {
                ByteBuffer part = e.encode();
                size += part.remaining();
                parts.add(part);
            }
            ByteBuffer out = ByteBuffer.allocate(size).put(KvReplyFormat.ARRAY).putInt(elements.size());
            parts.forEach(out::put);
            return out.flip();
        }
    }
}
