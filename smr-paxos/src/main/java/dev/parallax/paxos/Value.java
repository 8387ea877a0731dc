package dev.parallax.paxos;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A value consensus decides on: an opaque batch of commands, or the no-op a new leader uses to
 * fill a gap (seed 000 §III-A; Lamport, "Paxos Made Simple" §3).
 *
 * <p>Immutable and thread-safe: the bytes are a read-only view that nobody modifies. Equality is by
 * content.
 */
public final class Value {
    /** The no-op: decided to fill a gap, delivered to nobody. */
    public static final Value NOOP = new Value(ByteBuffer.allocate(0).asReadOnlyBuffer());

    private final ByteBuffer bytes;
    private int hash;

    private Value(ByteBuffer bytes) {
        this.bytes = bytes;
    }

    /**
     * A value over {@code bytes} (position to limit, not copied: the caller must not change them).
     *
     * @throws IllegalArgumentException if empty (the empty value is reserved for {@link #NOOP})
     */
    public static Value of(ByteBuffer bytes) {
        if (!bytes.hasRemaining()) {
            throw new IllegalArgumentException("a proposed value must not be empty");
        }
        return new Value(bytes.slice().asReadOnlyBuffer());
    }

    /** A value over a copy-free wrap of {@code bytes}. */
    public static Value of(byte[] bytes) {
        return of(ByteBuffer.wrap(bytes));
    }

    public boolean isNoop() {
        return !bytes.hasRemaining();
    }

    /** Size in bytes. */
    public int size() {
        return bytes.remaining();
    }

    /** A fresh read-only view of the bytes. */
    public ByteBuffer bytes() {
        return bytes.duplicate();
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Value v && bytes.equals(v.bytes);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = bytes.hashCode() | 1;
            hash = h;
        }
        return h;
    }

    /** Deterministic: length and a checksum of the content. */
    @Override
    public String toString() {
        if (isNoop()) {
            return "noop";
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return "v" + size() + "B#" + Long.toHexString(crc.getValue());
    }
}
