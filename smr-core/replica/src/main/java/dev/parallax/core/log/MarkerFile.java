package dev.parallax.core.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An empty file in a log directory whose presence is the information ({@link RunningMarker},
 * {@link CreationMark}): created and removed durably (the directory is forced after each change, so
 * a power loss cannot undo it).
 *
 * <p>Stateless; every method does blocking file I/O. Thread-safe.
 */
final class MarkerFile {
    private MarkerFile() {
    }

    /** Whether {@code name} exists in {@code dir}. */
    static boolean present(Path dir, String name) {
        return Files.exists(dir.resolve(name));
    }

    /** Creates {@code name} in {@code dir} if missing and makes its creation durable. */
    static void place(Path dir, String name, StorageIo io) throws IOException {
        Path file = dir.resolve(name);
        if (!Files.exists(file)) {
            Files.createFile(file);
            FirstIndexFile.forceDirectory(dir, io);
        }
    }

    /** Deletes {@code name} from {@code dir}, if present, and makes the deletion durable. */
    static void remove(Path dir, String name, StorageIo io) throws IOException {
        if (Files.deleteIfExists(dir.resolve(name))) {
            FirstIndexFile.forceDirectory(dir, io);
        }
    }
}
