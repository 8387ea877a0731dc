package dev.parallax.core.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The two questions the log asks the storage stack directly: how much space is left, and "force
 * this file to the device". Package-private so that tests can substitute an implementation that
 * fails like a full or broken disk; production code always uses {@link #SYSTEM}.
 *
 * <p>Implementations must be thread-safe; both methods block on I/O.
 */
interface StorageIo {

    /** Usable bytes on the file system holding {@code dir}. */
    long usableSpace(Path dir) throws IOException;

    /**
     * Forces the file's data (and the metadata needed to read it back, such as its size) to the
     * device: {@code fdatasync} on Linux. On Linux this also writes back the file's pages dirtied
     * through a shared memory mapping, which is how Chronicle Queue writes.
     */
    void force(FileChannel channel) throws IOException;

    /** The real file system. */
    StorageIo SYSTEM = new StorageIo() {
        @Override
        public long usableSpace(Path dir) throws IOException {
            return Files.getFileStore(dir).getUsableSpace();
        }

        @Override
        public void force(FileChannel channel) throws IOException {
            channel.force(false);
        }

        @Override
        public String toString() {
            return "StorageIo.SYSTEM";
        }
    };
}
