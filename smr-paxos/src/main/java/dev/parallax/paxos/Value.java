package dev.parallax.paxos;

import dev.parallax.core.membership.MembershipChange;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A value consensus decides on: an opaque batch of commands, the no-op a new leader uses to
 * fill a gap (seed 000 §III-A; Lamport, "Paxos Made Simple" §3), or a membership change (a
 * configuration command: {@link #membership}), which the core applies and nobody executes.
 *
 * <p>Immutable and thread-safe: the bytes are a read-only view that nobody modifies. Equality is by
 * content.
 */
public final class Value {
    /** The no-op: decided to fill a gap, delivered to nobody. */
    public static final Value NOOP = new Value(ByteBuffer.allocate(0).asReadOnlyBuffer(), false);

    private final ByteBuffer bytes;
    private final boolean membership;
    private int hash;

    private Value(ByteBuffer bytes, boolean membership) {
        this.bytes = bytes;
        this.membership = membership;
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
        return new Value(bytes.slice().asReadOnlyBuffer(), false);
    }

    /** A configuration command carrying {@code change}. */
    public static Value membership(MembershipChange change) {
        return membershipOf(change.encode());
    }

    /**
     * A configuration command over the encoded change {@code bytes} (as read from the wire or the
     * log; checked when decided, see {@link #membershipChange()}).
     *
     * @throws IllegalArgumentException if empty
     */
    public static Value membershipOf(byte[] bytes) {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("a membership value must not be empty");
        }
        return new Value(ByteBuffer.wrap(bytes).asReadOnlyBuffer(), true);
    }

    /** Whether this is a configuration command rather than commands or the no-op. */
    public boolean isMembership() {
        return membership;
    }

    /**
     * The change this configuration command carries.
     *
     * @throws IllegalStateException    if this is not a configuration command
     * @throws IllegalArgumentException if its bytes are malformed
     */
    public MembershipChange membershipChange() {
        if (!membership) {
            throw new IllegalStateException("not a membership value: " + this);
        }
        return MembershipChange.decode(bytes.duplicate());
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
        return this == o || o instanceof Value v && membership == v.membership && bytes.equals(v.bytes);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = (bytes.hashCode() + (membership ? 0x9E3779B9 : 0)) | 1;
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
        if (membership) {
            try {
                return "config{" + membershipChange() + "}";
            } catch (IllegalArgumentException e) {
                return "config{malformed " + size() + "B}";
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return "v" + size() + "B#" + Long.toHexString(crc.getValue());
    }
}
