package dev.parallax.core.snapshot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshots of one replica in a directory: {@code snapshot-<instance>.snap}, where
 * {@code instance} is the first instance the snapshot does not cover. File layout:
 * {@code magic:4 "PXSN" | version:4 | instance:8 | bodyLength:8 | body | crc32c(body):8}.
 *
 * <p><b>Versions.</b> The store writes version {@value #VERSION} and reads 1 and 2; the layout
 * above is the same in both. The version tells the body's reader what the body holds: since
 * version 2 the replica's body carries the broadcast's delivery state after the client sessions
 * ({@code dev.parallax.core.spi.AtomicBroadcast#deliveryState}); a version 1 body has none.
 * Snapshot transfer ships files unchanged, whatever their version.
 *
 * <p>{@link #write} is atomic: the body goes to a temporary file that is forced to the device,
 * renamed into place and the directory forced, so after a crash a snapshot either exists whole or
 * not at all. {@link #latest} verifies the checksum and skips (and reports) a damaged file,
 * falling back to an older one. The two newest snapshots are kept.
 *
 * <p>Threads: one {@link #write} at a time (the replica's snapshot writer thread); {@link #install}
 * (the snapshot transfer's thread) and readers may run concurrently with it (a rename is atomic,
 * pruning keeps the newest files). A write whose thread is interrupted fails with the channel's
 * {@link java.nio.channels.ClosedByInterruptException} and deletes its temporary file. Blocking
 * file IO.
 */
public final class SnapshotStore {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);
    private static final int MAGIC = 0x5058534e; // "PXSN"
    /** The version {@link #write} writes. */
    public static final int VERSION = 2;
    /** The oldest version still read. */
    private static final int OLDEST_VERSION = 1;
    private static final int HEADER = 24;
    private static final Pattern NAME = Pattern.compile("snapshot-(\\d{20})\\.snap");
    private static final int KEEP = 2;

    /** Writes a snapshot body. */
    @FunctionalInterface
    public interface BodyWriter {
        void write(WritableByteChannel out) throws IOException;
    }

    /** Bytes of a snapshot file before its body: magic, version, instance, body length. */
    public static final int HEADER_BYTES = HEADER;

    /**
     * What the header of a snapshot file announces: the instance it covers up to and the size of
     * the whole file (header, body and checksum).
     */
    public record FileHeader(long instance, long fileBytes) {
    }

    /**
     * Parses the first {@link #HEADER_BYTES} bytes of a snapshot file (from the buffer's position;
     * the buffer is not moved). Does not verify the checksum.
     *
     * @return empty if the bytes are not a snapshot header of a readable version or announce a
     *         negative or overflowing length
     * @throws IllegalArgumentException if fewer than {@link #HEADER_BYTES} bytes remain
     */
    public static Optional<FileHeader> readHeader(ByteBuffer header) {
        if (header.remaining() < HEADER) {
            throw new IllegalArgumentException("a snapshot header has " + HEADER + " bytes, got " + header.remaining());
        }
        ByteBuffer h = header.duplicate();
        if (h.getInt() != MAGIC || !readable(h.getInt())) {
            return Optional.empty();
        }
        long instance = h.getLong();
        long length = h.getLong();
        if (length < 0 || length > Long.MAX_VALUE - HEADER - 8) {
            return Optional.empty();
        }
        return Optional.of(new FileHeader(instance, HEADER + length + 8));
    }

    /** Whether this store reads snapshot files of {@code version}. */
    public static boolean readable(int version) {
        return version >= OLDEST_VERSION && version <= VERSION;
    }

    /**
     * A verified snapshot file.
     *
     * @param version the file's format version (see the class comment): what its body holds
     */
    public record Snapshot(long instance, Path file, long bodyLength, int version) {
    }

    private final Path dir;

    /** @throws UncheckedIOException if the directory cannot be created */
    public SnapshotStore(Path dir) {
        try {
            this.dir = Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create snapshot directory " + dir, e);
        }
    }

    public Path directory() {
        return dir;
    }

    /**
     * Writes the snapshot covering every instance below {@code instance} atomically and removes
     * all but the newest snapshots.
     *
     * @throws IOException if writing fails; the previous snapshot is then still in place
     */
    public Snapshot write(long instance, BodyWriter body) throws IOException {
        Path tmp = dir.resolve(name(instance) + ".tmp");
        long length;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(HEADER).putInt(MAGIC).putInt(VERSION).putLong(instance).putLong(0).flip(), 0);
            ch.position(HEADER);
            CrcChannel crc = new CrcChannel(ch);
            body.write(crc);
            length = crc.written;
            ch.write(ByteBuffer.allocate(8).putLong(0, crc.crc.getValue()));
            ch.write(ByteBuffer.allocate(8).putLong(0, length), 16);
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Path target = dir.resolve(name(instance));
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory();
        prune();
        return new Snapshot(instance, target, length, VERSION);
    }

    /** Installs a snapshot file received from a peer (already complete), verifying it first. */
    public Snapshot install(Path received) throws IOException {
        Snapshot s = verify(received).orElseThrow(() -> new IOException("received snapshot " + received + " is damaged"));
        Path target = dir.resolve(name(s.instance()));
        Files.move(received, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory();
        prune();
        return new Snapshot(s.instance(), target, s.bodyLength(), s.version());
    }

    /** The newest snapshot whose checksum verifies, if any. */
    public Optional<Snapshot> latest() {
        for (Path p : files()) {
            try {
                Optional<Snapshot> s = verify(p);
                if (s.isPresent()) {
                    return s;
                }
                LOG.warn("snapshot {} is damaged (bad header or checksum); trying an older one", p);
            } catch (IOException e) {
                LOG.warn("snapshot {} cannot be read: {}; trying an older one", p, e.toString());
            }
        }
        return Optional.empty();
    }

    /** A channel over the body of {@code s} (verified when it was found). */
    public ReadableByteChannel openBody(Snapshot s) throws IOException {
        FileChannel ch = FileChannel.open(s.file(), StandardOpenOption.READ);
        ch.position(HEADER);
        return new BoundedChannel(ch, s.bodyLength());
    }

    /** Reads and checks a snapshot file's header and checksum. */
    public static Optional<Snapshot> verify(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER + 8) {
                return Optional.empty();
            }
            ByteBuffer h = ByteBuffer.allocate(HEADER);
            ch.read(h, 0);
            h.flip();
            if (h.getInt() != MAGIC) {
                return Optional.empty();
            }
            int version = h.getInt();
            if (!readable(version)) {
                return Optional.empty();
            }
            long instance = h.getLong();
            long length = h.getLong();
            if (length < 0 || HEADER + length + 8 != size) {
                return Optional.empty();
            }
            CRC32C crc = new CRC32C();
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            long pos = HEADER;
            long end = HEADER + length;
            while (pos < end) {
                buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
                int n = ch.read(buf, pos);
                if (n < 0) {
                    return Optional.empty();
                }
                buf.flip();
                crc.update(buf);
                pos += n;
            }
            ByteBuffer stored = ByteBuffer.allocate(8);
            ch.read(stored, end);
            return stored.getLong(0) == crc.getValue() ? Optional.of(new Snapshot(instance, file, length, version)) : Optional.empty();
        }
    }

    private List<Path> files() {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> NAME.matcher(p.getFileName().toString()).matches()).forEach(out::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(Comparator.comparingLong(SnapshotStore::instanceOf).reversed());
        return out;
    }

    private static long instanceOf(Path p) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    private void prune() throws IOException {
        List<Path> all = files();
        for (int i = KEEP; i < all.size(); i++) {
            Files.deleteIfExists(all.get(i));
        }
    }

    private void forceDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some file systems cannot open a directory for fsync; the rename is still atomic.
            LOG.debug("cannot fsync directory {}: {}", dir, e.toString());
        }
    }

    private static String name(long instance) {
        return String.format("snapshot-%020d.snap", instance);
    }

    /** Counts and checksums what passes through. */
    private static final class CrcChannel implements WritableByteChannel {
        final FileChannel inner;
        final CRC32C crc = new CRC32C();
        long written;

        CrcChannel(FileChannel inner) {
            this.inner = inner;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            ByteBuffer view = src.duplicate();
            int n = inner.write(src);
            view.limit(view.position() + n);
            crc.update(view);
            written += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return inner.isOpen();
        }

        @Override
        public void close() {
            // The store closes the file.
        }
    }

    /** A read channel that ends after {@code remaining} bytes. */
    private static final class BoundedChannel implements ReadableByteChannel {
        private final FileChannel inner;
        private long remaining;

        BoundedChannel(FileChannel inner, long remaining) {
            this.inner = inner;
            this.remaining = remaining;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int limit = dst.limit();
            if (dst.remaining() > remaining) {
                dst.limit(dst.position() + (int) remaining);
            }
            int n = inner.read(dst);
            dst.limit(limit);
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }

        @Override
        public boolean isOpen() {
            return inner.isOpen();
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }

    /** For tests and tools: a stream view of a snapshot body. */
    public static java.io.InputStream asStream(ReadableByteChannel ch) {
        return Channels.newInputStream(ch);
    }
}
