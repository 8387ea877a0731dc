package dev.parallax.scheduler.ssmr;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The replicated caching state of one replica (seed 004 (S-SMR) §IV-C): the variables other
 * partitions sent it ({@link #held}, per owner) and, for the variables it owns, what it believes
 * each other partition holds ({@link #mirror}, per reader: is that copy current?). Both are bounded
 * (entries and bytes, per owner or per reader) and evict in insertion order of their last use —
 * only {@link CachedExchange}'s operations change them, in delivery order, so every replica of a
 * partition holds the same contents, and an owner's mirror of a reader follows the reader's cache
 * of that owner step by step (the same commands, the same sizes, the same bounds).
 *
 * <p>Kept by {@link SsmrStateMachine} and written into its snapshot ({@link #write}, {@link #read}).
 * Not thread-safe: the executing thread uses it; the snapshot reads it at quiescence.
 */
final class ReadCache {
    /** A variable's name, compared by content. */
    record Key(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    /** What an owner believes a reader holds of one variable: current or not, and its size there. */
    static final class Seen {
        boolean current;
        final int size;

        Seen(boolean current, int size) {
            this.current = current;
            this.size = size;
        }
    }

    /** One bounded map in use order (the last used last); evicts the eldest. */
    static final class Lru<V> {
        final LinkedHashMap<Key, V> map = new LinkedHashMap<>();
        long bytes;
        private final java.util.function.ToIntFunction<V> sizeOf;

        Lru(java.util.function.ToIntFunction<V> sizeOf) {
            this.sizeOf = sizeOf;
        }

        V remove(Key k) {
            V v = map.remove(k);
            if (v != null) {
                bytes -= sizeOf.applyAsInt(v);
            }
            return v;
        }

        void put(Key k, V v, int maxEntries, long maxBytes) {
            remove(k);
            map.put(k, v);
            bytes += sizeOf.applyAsInt(v);
            Iterator<V> it = map.values().iterator();
            while ((map.size() > maxEntries || bytes > maxBytes) && it.hasNext()) {
                bytes -= sizeOf.applyAsInt(it.next());
                it.remove();
            }
        }

        V get(Key k) {
            return map.get(k);
        }

        int size() {
            return map.size();
        }
    }

    /** Owner partition → the variables it sent (values). */
    final TreeMap<Integer, Lru<byte[]>> held = new TreeMap<>();
    /** Reader partition → what it holds of this partition's variables. */
    final TreeMap<Integer, Lru<Seen>> mirror = new TreeMap<>();

    Lru<byte[]> held(int owner) {
        return held.computeIfAbsent(owner, o -> new Lru<>(v -> v.length));
    }

    Lru<Seen> mirror(int reader) {
        return mirror.computeIfAbsent(reader, r -> new Lru<>(s -> s.size));
    }

    /** True if some reader may hold a copy of a variable of this partition (writes must then be noted). */
    boolean hasMirrors() {
        for (Lru<Seen> m : mirror.values()) {
            if (m.size() > 0) {
                return true;
            }
        }
        return false;
    }

    /** Entries held of other partitions' variables. */
    int heldEntries() {
        int n = 0;
        for (Lru<byte[]> l : held.values()) {
            n += l.size();
        }
        return n;
    }

    /** True if nothing is held nor mirrored. */
    boolean isEmpty() {
        return heldEntries() == 0 && !hasMirrors();
    }

    /** Forgets everything (a restore of a snapshot without caching state). */
    void clear() {
        held.clear();
        mirror.clear();
    }

    /**
     * Writes the state: {@code owners:i32}, per owner {@code owner:i32 n:i32} and n times
     * {@code keyLength:i32 key valueLength:i32 value}; then {@code readers:i32}, per reader
     * {@code reader:i32 n:i32} and n times {@code keyLength:i32 key current:u8 size:i32}; each map
     * eldest first.
     */
    void write(DataOutputStream out) throws IOException {
        out.writeInt(held.size());
        for (Map.Entry<Integer, Lru<byte[]>> o : held.entrySet()) {
            out.writeInt(o.getKey());
            out.writeInt(o.getValue().size());
            for (Map.Entry<Key, byte[]> e : o.getValue().map.entrySet()) {
                out.writeInt(e.getKey().bytes().length);
                out.write(e.getKey().bytes());
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
        }
        out.writeInt(mirror.size());
        for (Map.Entry<Integer, Lru<Seen>> r : mirror.entrySet()) {
            out.writeInt(r.getKey());
            out.writeInt(r.getValue().size());
            for (Map.Entry<Key, Seen> e : r.getValue().map.entrySet()) {
                out.writeInt(e.getKey().bytes().length);
                out.write(e.getKey().bytes());
                out.writeByte(e.getValue().current ? 1 : 0);
                out.writeInt(e.getValue().size);
            }
        }
    }

    /** Replaces the state with what {@link #write} wrote; on error the state is unchanged. */
    void read(DataInputStream in) throws IOException {
        TreeMap<Integer, Lru<byte[]>> h = new TreeMap<>();
        int owners = in.readInt();
        check(owners >= 0 && owners <= 64, "owners " + owners);
        for (int i = 0; i < owners; i++) {
            int owner = in.readInt();
            Lru<byte[]> lru = new Lru<>(v -> v.length);
            int n = in.readInt();
            check(n >= 0, "entries " + n);
            for (int j = 0; j < n; j++) {
                Key k = new Key(bytes(in));
                byte[] v = bytes(in);
                lru.map.put(k, v);
                lru.bytes += v.length;
            }
            h.put(owner, lru);
        }
        TreeMap<Integer, Lru<Seen>> m = new TreeMap<>();
        int readers = in.readInt();
        check(readers >= 0 && readers <= 64, "readers " + readers);
        for (int i = 0; i < readers; i++) {
            int reader = in.readInt();
            Lru<Seen> lru = new Lru<>(s -> s.size);
            int n = in.readInt();
            check(n >= 0, "entries " + n);
            for (int j = 0; j < n; j++) {
                Key k = new Key(bytes(in));
                boolean current = in.readByte() == 1;
                int size = in.readInt();
                check(size >= 0, "size " + size);
                lru.map.put(k, new Seen(current, size));
                lru.bytes += size;
            }
            m.put(reader, lru);
        }
        held.clear();
        held.putAll(h);
        mirror.clear();
        mirror.putAll(m);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        check(length >= 0 && length <= 64 << 20, "length " + length);
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }

    private static void check(boolean ok, String what) throws IOException {
        if (!ok) {
            throw new IOException("malformed S-SMR cache state: " + what);
        }
    }
}
