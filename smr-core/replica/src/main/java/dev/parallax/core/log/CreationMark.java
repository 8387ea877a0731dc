package dev.parallax.core.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code parallax-log.created}: an empty file placed (durably) in a log directory the first time a
 * log opens there, and never removed. A directory holding neither this mark nor any record is one
 * this log never ran in: either a brand-new log or one whose files were wiped or replaced (a new
 * disk, a deleted or mistyped data directory). The two look the same on disk, so
 * {@link ChronicleLogOptions#emptyDirectory()} says which one the caller expects. A directory with
 * records but no mark (written before the mark existed) is an existing log and gets the mark.
 *
 * <p>Stateless; every method does blocking file I/O. Thread-safe.
 */
final class CreationMark {
    static final String FILE_NAME = "parallax-log.created";

    private CreationMark() {
    }

    /** Whether the mark is present (a log has opened in this directory before). */
    static boolean present(Path dir) {
        return MarkerFile.present(dir, FILE_NAME);
    }

    /** Places the mark if missing and makes its creation durable. */
    static void place(Path dir, StorageIo io) throws IOException {
        MarkerFile.place(dir, FILE_NAME, io);
    }
}
