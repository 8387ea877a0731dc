package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code parallax-log.running}: an empty file whose presence means "a process may have appended
 * records to this log that no force covered, and may have acted on them". It is created (and the
 * directory forced, so a power loss cannot undo the creation) when a log whose sync does not force
 * opens, and deleted (directory forced again) only by a clean close that first forced every record.
 * Finding it at open therefore means the previous process stopped without such a close: under
 * {@link SyncPolicy#PERIODIC} or {@link SyncPolicy#NONE} a kernel crash or power loss may have
 * dropped records it had synced ("amnesia"). A marker is a file rather than a record so that it
 * survives the loss of every segment, and so that a brand-new directory (no marker) is told apart
 * from one whose records were all lost. It also stays while a log opened over a lost directory
 * ({@link CreationMark}) has not been rebuilt from peers, whatever the sync policy.
 *
 * <p>Stateless; every method does blocking file I/O. Thread-safe.
 */
final class RunningMarker {
    static final String FILE_NAME = "parallax-log.running";

    private RunningMarker() {
    }

    /** Whether the marker is present (the previous process did not close the log cleanly). */
    static boolean present(Path dir) {
        return MarkerFile.present(dir, FILE_NAME);
    }

    /** Creates the marker if missing and makes its creation durable. */
    static void place(Path dir, StorageIo io) throws IOException {
        MarkerFile.place(dir, FILE_NAME, io);
    }

    /** Deletes the marker, if present, and makes the deletion durable. */
    static void remove(Path dir, StorageIo io) throws IOException {
        MarkerFile.remove(dir, FILE_NAME, io);
    }
}
