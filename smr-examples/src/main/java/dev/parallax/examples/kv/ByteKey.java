package dev.parallax.examples.kv;

import java.util.Arrays;

/**
 * A binary-safe map key: a byte array compared by content, with its hash computed once. Ordered
 * by unsigned lexicographic comparison, the order snapshots are written in.
 *
 * <p>Immutable as long as nobody modifies the wrapped array (the state machine owns it).
 */
final class ByteKey implements Comparable<ByteKey> {
    private final byte[] bytes;
    private final int hash;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    byte[] bytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && hash == k.hash && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(ByteKey other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }
}
