package dev.parallax.examples.kv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The snapshot format of the key-value state machine:
 *
 * <pre>
 * snapshot := magic:i32 ("PXKV") version:i32 (1) count:i64 entry{count}      (big-endian)
 * entry    := keyLength:i32 key valueLength:i32 value
 * </pre>
 *
 * Entries are written in unsigned lexicographic key order, so equal maps give byte-identical
 * snapshots whatever their insertion history. Stateless and thread-safe; the channels must be
 * blocking and are used by the calling thread only.
 */
final class KvSnapshotFormat {
    static final int MAGIC = 0x50584B56;
    static final int VERSION = 1;
    private static final int BUFFER_BYTES = 64 * 1024;
    /** Large values are read in growing chunks so a corrupt length fails at end of input, not in the allocator. */
    private static final int FIRST_CHUNK_BYTES = 1 << 20;

    private KvSnapshotFormat() {
    }

    /**
     * Writes the entries of {@code tables} as one snapshot, in key order; the tables' key sets
     * must be disjoint (the partitions of one store).
     */
    static void write(List<? extends Map<ByteKey, byte[]>> tables, WritableByteChannel out) throws IOException {
        int count = 0;
        for (Map<ByteKey, byte[]> table : tables) {
            count += table.size();
        }
        @SuppressWarnings("unchecked")
        Map.Entry<ByteKey, byte[]>[] entries = new Map.Entry[count];
        int n = 0;
        for (Map<ByteKey, byte[]> table : tables) {
            for (Map.Entry<ByteKey, byte[]> e : table.entrySet()) {
                entries[n++] = e;
            }
        }
        Arrays.sort(entries, Map.Entry.comparingByKey());
        Output o = new Output(out);
        o.putInt(MAGIC);
        o.putInt(VERSION);
        o.putLong(entries.length);
        for (Map.Entry<ByteKey, byte[]> e : entries) {
            o.putBytes(e.getKey().bytes());
            o.putBytes(e.getValue());
        }
        o.flush();
    }

    static HashMap<ByteKey, byte[]> read(ReadableByteChannel in) throws IOException {
        Input i = new Input(in);
        int magic = i.readInt();
        if (magic != MAGIC) {
            throw new IOException("not a KV snapshot: magic 0x" + Integer.toHexString(magic));
        }
        int version = i.readInt();
        if (version != VERSION) {
            throw new IOException("unsupported KV snapshot version " + version);
        }
        long count = i.readLong();
        if (count < 0 || count > Integer.MAX_VALUE) {
            throw new IOException("malformed KV snapshot: entry count " + count);
        }
        HashMap<ByteKey, byte[]> map = new HashMap<>();
        for (long e = 0; e < count; e++) {
            ByteKey key = new ByteKey(i.readBytes());
            if (map.put(key, i.readBytes()) != null) {
                throw new IOException("malformed KV snapshot: duplicate key in entry " + e);
            }
        }
        if (!i.atEnd()) {
            throw new IOException("malformed KV snapshot: trailing bytes after " + count + " entries");
        }
        return map;
    }

    /** Buffered big-endian writes to a blocking channel. */
    private static final class Output {
        private final WritableByteChannel out;
        private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES);

        Output(WritableByteChannel out) {
            this.out = out;
        }

        void putInt(int v) throws IOException {
            room(Integer.BYTES);
            buf.putInt(v);
        }

        void putLong(long v) throws IOException {
            room(Long.BYTES);
            buf.putLong(v);
        }

        void putBytes(byte[] b) throws IOException {
            putInt(b.length);
            if (b.length <= buf.remaining()) {
                buf.put(b);
                return;
            }
            flush();
            if (b.length <= buf.capacity()) {
                buf.put(b);
            } else {
                writeFully(ByteBuffer.wrap(b));
            }
        }

        void flush() throws IOException {
            buf.flip();
            writeFully(buf);
            buf.clear();
        }

        private void room(int n) throws IOException {
            if (buf.remaining() < n) {
                flush();
            }
        }

        private void writeFully(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                out.write(src);
            }
        }
    }

    /** Buffered big-endian reads from a blocking channel; end of input inside a value is an error. */
    private static final class Input {
        private final ReadableByteChannel in;
        private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES).limit(0);

        Input(ReadableByteChannel in) {
            this.in = in;
        }

        int readInt() throws IOException {
            require(Integer.BYTES);
            return buf.getInt();
        }

        long readLong() throws IOException {
            require(Long.BYTES);
            return buf.getLong();
        }

        byte[] readBytes() throws IOException {
            int length = readInt();
            if (length < 0) {
                throw new IOException("malformed KV snapshot: negative length " + length);
            }
            byte[] bytes = new byte[Math.min(length, FIRST_CHUNK_BYTES)];
            int filled = 0;
            while (filled < length) {
                if (filled == bytes.length) {
                    bytes = Arrays.copyOf(bytes, (int) Math.min(length, 2L * bytes.length));
                }
                if (buf.hasRemaining()) {
                    int n = Math.min(buf.remaining(), bytes.length - filled);
                    buf.get(bytes, filled, n);
                    filled += n;
                } else {
                    int n = in.read(ByteBuffer.wrap(bytes, filled, bytes.length - filled));
                    if (n < 0) {
                        throw truncated();
                    }
                    filled += n;
                }
            }
            return bytes;
        }

        boolean atEnd() throws IOException {
            if (buf.hasRemaining()) {
                return false;
            }
            buf.clear();
            int n;
            do {
                n = in.read(buf);
            } while (n == 0);
            buf.flip();
            return n < 0;
        }

        private void require(int n) throws IOException {
            if (buf.remaining() >= n) {
                return;
            }
            buf.compact();
            while (buf.position() < n) {
                if (in.read(buf) < 0) {
                    throw truncated();
                }
            }
            buf.flip();
        }

        private static IOException truncated() {
            return new IOException("malformed KV snapshot: truncated");
        }
    }
}
