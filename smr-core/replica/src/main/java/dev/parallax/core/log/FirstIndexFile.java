package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * {@code parallax-log.meta}: the log's first index (raised by {@code truncateBefore}), 20 bytes
 * {@code magic:4 version:4 firstIndex:8 crc32c:4}, little-endian. Replaced atomically: written to
 * {@code parallax-log.meta.tmp}, forced, renamed over the old file, then the directory is forced,
 * so a crash leaves either the old or the new value, never a torn one. Absent means 0.
 *
 * <p>Thread-safe (no state beyond paths); every method does blocking file I/O.
 */
final class FirstIndexFile {
    static final String FILE_NAME = "parallax-log.meta";
    static final String TEMP_NAME = FILE_NAME + ".tmp";
    /** "PXLM" read as a little-endian int. */
    private static final int MAGIC = 0x4D4C_5850;
    private static final int VERSION = 1;
    private static final int BYTES = 20;

    private final Path file;
    private final Path temp;
    private final StorageIo io;

    FirstIndexFile(Path dir, StorageIo io) {
        this.file = dir.resolve(FILE_NAME);
        this.temp = dir.resolve(TEMP_NAME);
        this.io = io;
    }

    /**
     * Reads the stored first index; 0 if there is no file. Deletes a temporary file left by a
     * crash during {@link #write}.
     *
     * @throws DurableLogException if the file exists but is damaged (it is only ever replaced
     *                             atomically, so damage means the storage failed)
     */
    long read() throws IOException {
        Files.deleteIfExists(temp);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return 0;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length != BYTES || b.getInt(0) != MAGIC || b.getInt(4) != VERSION || b.getInt(16) != crc(bytes)) {
            throw new DurableLogException(file + " is damaged (" + bytes.length + " bytes); it holds the log's first index "
                    + "and is only ever replaced atomically, so the storage under it has failed");
        }
        return b.getLong(8);
    }

    /** Durably replaces the stored first index (blocks for two forces and a rename). */
    void write(long firstIndex) throws IOException {
        byte[] bytes = new byte[BYTES];
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, MAGIC).putInt(4, VERSION).putLong(8, firstIndex);
        b.putInt(16, crc(bytes));
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer src = ByteBuffer.wrap(bytes);
            while (src.hasRemaining()) {
                ch.write(src);
            }
            io.force(ch);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(file.getParent(), io);
    }

    /** Forces a directory, making file creations, renames and deletions in it durable. */
    static void forceDirectory(Path dir, StorageIo io) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            io.force(ch);
        }
    }

    private static int crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, 16);
        return (int) crc.getValue();
    }
}
