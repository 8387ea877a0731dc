package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;
import dev.parallax.core.spi.SyncPolicy;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The sync side of a {@link ChronicleDurableLog}: makes appended records durable as the
 * {@link SyncPolicy} of its {@link ChronicleLogOptions} defines it, and owns the durable index.
 * Each force first appends a sync marker stating what the previous force covered (see
 * {@link LogRecordFormat}), then forces the segments written since ({@link SegmentSyncer}). A sync
 * also persists a pending truncation ({@link FirstIndexFile}) and has the {@link RecordAppender}
 * delete the segment files it freed. A failed force or first-index write is recorded in the
 * {@link WriteFailure}; the durable index then keeps its value from the last successful sync.
 *
 * Each successful force's duration goes to the options' {@link ForceObserver}.
 *
 * <p>Confined to the log's writer thread. {@link #sync} blocks for one {@code fdatasync} per segment
 * written since the last force (usually one) when it forces, and on the file system when it
 * persists the first index or deletes segments.
 */
final class LogSyncer {
    private final Path dir;
    private final ChronicleLogOptions options;
    private final RecordAppender appender;
    private final SegmentSyncer syncer;
    private final FirstIndexFile firstIndexFile;
    private final WriteFailure failure;
    private final long syncIntervalNanos;

    private long storedFirstIndex;
    private long durableIndex;
    private long lastMarker;
    private boolean forcedSinceOpen;
    private long lastForceNanos;

    /**
     * @param firstIndex  the first index stored at open
     * @param nextIndex   one past the last record found at open (all of them durable)
     * @param durableHint the highest {@code durableNext} of a sync marker found at open
     */
    LogSyncer(Path dir, ChronicleLogOptions options, RecordAppender appender, SegmentSyncer syncer,
              FirstIndexFile firstIndexFile, WriteFailure failure, long firstIndex, long nextIndex, long durableHint) {
        this.dir = dir;
        this.options = options;
        this.appender = appender;
        this.syncer = syncer;
        this.firstIndexFile = firstIndexFile;
        this.failure = failure;
        this.syncIntervalNanos = options.syncInterval().toNanos();
        this.storedFirstIndex = firstIndex;
        this.durableIndex = nextIndex;
        this.lastMarker = durableHint;
    }

    /** One past the last record the forces covered (under {@link SyncPolicy#NONE}: synced). */
    long durableIndex() {
        return durableIndex;
    }

    /**
     * Makes the records below {@code nextIndex} durable as the sync policy defines it, persists
     * {@code firstIndex} if it moved and deletes the segment files it frees.
     *
     * @throws DurableLogException if the device failed (recorded in the {@link WriteFailure})
     */
    void sync(long nextIndex, long firstIndex) {
        long target = nextIndex;
        switch (options.syncPolicy()) {
            case EVERY_BATCH -> {
                if (target > durableIndex) {
                    force(target);
                }
            }
            case PERIODIC -> {
                if (target > durableIndex && (!forcedSinceOpen || options.clock().nanoTime() - lastForceNanos >= syncIntervalNanos)) {
                    force(target);
                }
            }
            case NONE -> durableIndex = target;
        }
        if (firstIndex > storedFirstIndex) {
            try {
                firstIndexFile.write(firstIndex);
            } catch (IOException | RuntimeException e) {
                throw failure.fail("cannot persist first index " + firstIndex + " in " + dir, e);
            }
            storedFirstIndex = firstIndex;
        }
        appender.deleteSegmentsBelow(storedFirstIndex);
    }

    private void force(long target) {
        long start = options.clock().nanoTime();
        try {
            if (durableIndex > lastMarker) {
                // States what the previous force achieved; this force makes the statement durable.
                appender.appendMarker(durableIndex);
                lastMarker = durableIndex;
            }
            syncer.force();
        } catch (IOException | RuntimeException | InternalError e) {
            throw failure.fail("cannot force records " + durableIndex + " to " + (target - 1) + " of " + dir + " to the device", e);
        }
        durableIndex = target;
        forcedSinceOpen = true;
        lastForceNanos = options.clock().nanoTime();
        options.forces().forced(lastForceNanos - start);
    }
}
