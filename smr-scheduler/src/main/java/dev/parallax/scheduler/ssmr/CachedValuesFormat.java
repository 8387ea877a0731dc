package dev.parallax.scheduler.ssmr;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The bytes of a {@link PartitionMessage.CachedValues} and of a cached partition's entry in the
 * {@link RemoteValuesLog} (seed 004 (S-SMR) §IV-C's cache-validation message): big-endian
 * {@code count:i32}, then per variable, in {@link CachedReads#reads} order, {@code 0} (⊥: the
 * receiver's cached copy is current) or {@code 1 length:i32 bytes} (the value). A count of
 * {@code -1} says the owner could not read its variables (the command fails there; no cache
 * changes anywhere). Stateless; thread-safe.
 */
final class CachedValuesFormat {
    /** The marker of an owner whose reads failed. */
    static final int FAILED = -1;

    private CachedValuesFormat() {
    }

    /** What the bytes say: failed, or one entry per variable (null = ⊥). */
    record Decoded(boolean failed, List<ByteBuffer> entries) {
    }

    /** The encoding of {@code entries} (null = ⊥). */
    static ByteBuffer encode(List<ByteBuffer> entries) {
        int size = 4;
        for (ByteBuffer e : entries) {
            size += e == null ? 1 : 5 + e.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(entries.size());
        for (ByteBuffer e : entries) {
            if (e == null) {
                out.put((byte) 0);
            } else {
                out.put((byte) 1).putInt(e.remaining()).put(e.duplicate());
            }
        }
        return out.flip();
    }

    /** The failed marker. */
    static ByteBuffer failed() {
        return ByteBuffer.allocate(4).putInt(FAILED).flip();
    }

    /** Decodes from position to limit (not moved); null if malformed. Never throws. */
    static Decoded decode(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        if (b.remaining() < 4) {
            return null;
        }
        int count = b.getInt();
        if (count == FAILED) {
            return b.hasRemaining() ? null : new Decoded(true, List.of());
        }
        if (count < 0 || count > b.remaining()) {
            return null; // every entry takes at least one byte
        }
        List<ByteBuffer> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (!b.hasRemaining()) {
                return null;
            }
            byte tag = b.get();
            if (tag == 0) {
                entries.add(null);
            } else if (tag == 1 && b.remaining() >= 4) {
                int length = b.getInt();
                if (length < 0 || length > b.remaining()) {
                    return null;
                }
                ByteBuffer v = b.slice(b.position(), length).asReadOnlyBuffer();
                b.position(b.position() + length);
                entries.add(v);
            } else {
                return null;
            }
        }
        return b.hasRemaining() ? null : new Decoded(false, Collections.unmodifiableList(entries));
    }

    /** True if {@link #decode} accepts the bytes. */
    static boolean valid(ByteBuffer bytes) {
        return decode(bytes) != null;
    }
}
