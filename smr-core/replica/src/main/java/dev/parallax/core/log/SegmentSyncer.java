package dev.parallax.core.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Forces the segment files written since the last force, and the directory when a segment file
 * was created, to the device. Chronicle Queue's own {@code sync()} ({@code MappedBytesStore.syncUpTo}
 * with {@code SyncMode.SYNC}) is not used: it msyncs only the mapping chunk currently being written
 * (not an earlier chunk or a segment left by a roll), and it logs a failed {@code msync} instead of
 * reporting it. {@link FileChannel#force} on the segment file covers every chunk and throws.
 *
 * <p>Single-threaded (the log's writer); {@link #force} blocks on the device.
 */
final class SegmentSyncer implements AutoCloseable {
    private final SegmentFiles files;
    private final StorageIo io;
    /** Lowest segment written since the last force, or -1. */
    private int firstUnforced = -1;
    private int lastUnforced = -1;
    private boolean directoryUnforced;
    private FileChannel channel;
    private int channelCycle = -1;

    SegmentSyncer(SegmentFiles files, StorageIo io) {
        this.files = files;
        this.io = io;
    }

    /** Notes a write into segment {@code cycle} (cheap: called on every append). */
    void noteWrite(int cycle) {
        if (firstUnforced < 0) {
            firstUnforced = cycle;
        }
        lastUnforced = cycle;
    }

    /** Notes that a segment file was created, so the directory needs a force too. */
    void noteNewFile() {
        directoryUnforced = true;
    }

    /** Forces everything noted since the last successful call. */
    void force() throws IOException {
        if (firstUnforced >= 0) {
            for (int c = firstUnforced; c < lastUnforced; c++) {
                forceOnce(files.path(c));
            }
            io.force(channelFor(lastUnforced));
        }
        if (directoryUnforced) {
            FirstIndexFile.forceDirectory(files.dir(), io);
        }
        firstUnforced = -1;
        lastUnforced = -1;
        directoryUnforced = false;
    }

    /** Forces the given segments and the directory (used at open). */
    void forceAll(Iterable<Integer> cycles) throws IOException {
        for (int c : cycles) {
            forceOnce(files.path(c));
        }
        FirstIndexFile.forceDirectory(files.dir(), io);
    }

    private void forceOnce(Path file) throws IOException {
        if (Files.exists(file)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                io.force(ch);
            }
        }
    }

    private FileChannel channelFor(int cycle) throws IOException {
        if (channelCycle != cycle) {
            closeChannel();
            channel = FileChannel.open(files.path(cycle), StandardOpenOption.READ);
            channelCycle = cycle;
        }
        return channel;
    }

    private void closeChannel() throws IOException {
        if (channel != null) {
            FileChannel ch = channel;
            channel = null;
            channelCycle = -1;
            ch.close();
        }
    }

    /** Closes the cached file channel; does not force. */
    @Override
    public void close() throws IOException {
        closeChannel();
    }
}
