package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS lock on {@code parallax-log.lock} in the log directory, held while a log is open.
 * The OS drops it when the process dies, so holding it proves that no other live process (and no
 * other open log in this JVM) writes the directory; recovery relies on that.
 *
 * <p>Thread-safe; {@link #acquire} and {@link #release} do blocking file I/O.
 */
final class DirectoryLock {
    static final String FILE_NAME = "parallax-log.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock without waiting.
     *
     * @throws DurableLogException if another process or another open log holds it, or on I/O error
     */
    static DirectoryLock acquire(Path dir) {
        Path file = dir.resolve(FILE_NAME);
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = ch.tryLock();
            if (lock == null) {
                throw new DurableLogException(dir + " is in use by another process (" + file + " is locked)");
            }
            return new DirectoryLock(ch, lock);
        } catch (OverlappingFileLockException e) {
            closeQuietly(ch);
            throw new DurableLogException(dir + " is already open in this JVM", e);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new DurableLogException("cannot lock " + file, e);
        } catch (DurableLogException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    /** Releases the lock; idempotent, never throws. */
    void release() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } catch (IOException ignored) {
            // Closing the channel below releases the lock as well.
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // Nothing was written through this channel; there is nothing to lose.
            }
        }
    }
}
