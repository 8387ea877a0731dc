package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLogException;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Opens a log directory: locks it, reads the stored first index, scans every segment
 * ({@link LogScanner}), cuts a torn tail or refuses to open, removes segments left over by a crash,
 * and forces what it found to the device.
 *
 * <p><b>Cut or refuse.</b> A damaged, unfinished or out-of-sequence excerpt ends the valid prefix.
 * If a sync marker proves that a force covered it (the damage lies below the highest
 * {@code durableNext} of any valid marker, even one found after the damage), the damage is in data
 * the log promised was durable: a media or firmware failure. Cutting would silently drop promised
 * votes, so the open fails with {@link DurableLogException} and the operator must rebuild the
 * replica from its peers. Otherwise the damage lies in writes no completed force covered (a process
 * or power failure in the middle of a batch; the kernel may have written later pages before earlier
 * ones), and the contract allows losing them: the log ends before it, with a WARN line naming the
 * file, offset, index and reason, and the count of discarded later records and segments.
 *
 * <p>Stateless; {@link #open} blocks on file I/O and runs on the caller's thread.
 */
final class LogOpener {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleDurableLog.class);
    /** Chronicle's table store; rebuilt from the cycle files whenever it is missing. */
    static final String CHRONICLE_METADATA = "metadata.cq4t";
    private static final long CHRONICLE_TIMEOUT_MS = 2_000;

    /** A recovered log, ready for appends. */
    record Opened(DirectoryLock lock, SingleChronicleQueue queue, LogicalClock clock, SegmentTable segments,
                  long firstIndex, long nextIndex, long durableHint) {
    }

    private LogOpener() {
    }

    static Opened open(Path dir, ChronicleLogOptions options, StorageIo io) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new DurableLogException("cannot create the log directory " + dir, e);
        }
        DirectoryLock lock = DirectoryLock.acquire(dir);
        SingleChronicleQueue queue = null;
        try {
            SegmentFiles files = new SegmentFiles(dir);
            long storedFirst = new FirstIndexFile(dir, io).read();
            List<Integer> cycles = files.list();
            LogicalClock clock = new LogicalClock(cycles.isEmpty() ? 0 : cycles.get(cycles.size() - 1) + 1);
            queue = openQueue(dir, clock, options);
            LogScanner.Outcome scan = new LogScanner(queue, files).scan(cycles, storedFirst);
            refuseIfDurableDataIsMissing(files, scan, storedFirst);
            if (scan.cut() != null || !scan.emptySegments().isEmpty()) {
                closeQueue(queue);
                queue = null;
                repair(files, scan, io);
                queue = openQueue(dir, clock, options);
            }
            SegmentTable segments = scan.segments();
            int trimmed = segments.countWhollyBelow(storedFirst);
            for (int i = 0; i < trimmed; i++) {
                files.delete(segments.cycle(i));
            }
            if (trimmed > 0) {
                segments.removeFirst(trimmed);
                queue.refreshDirectoryListing();
            }
            long next = Math.max(scan.end() < 0 ? storedFirst : scan.end(), storedFirst);
            if (options.syncPolicy() != SyncPolicy.NONE) {
                try (SegmentSyncer syncer = new SegmentSyncer(files, io)) {
                    syncer.forceAll(files.list());
                }
            }
            LOG.info("Opened log {}: records [{}, {}) in {} segment(s), sync policy {}", dir, storedFirst, next,
                    segments.size(), options.syncPolicy());
            return new Opened(lock, queue, clock, segments, storedFirst, next, scan.durableHint());
        } catch (IOException | RuntimeException e) {
            if (queue != null) {
                closeQueue(queue);
            }
            lock.release();
            if (e instanceof DurableLogException) {
                throw (DurableLogException) e;
            }
            throw new DurableLogException("cannot open the log in " + dir, e);
        }
    }

    private static void refuseIfDurableDataIsMissing(SegmentFiles files, LogScanner.Outcome scan, long storedFirst) {
        if (scan.firstRecord() > storedFirst) {
            throw new DurableLogException("records " + storedFirst + " to " + (scan.firstRecord() - 1) + " are missing from "
                    + files.dir() + ": the first segment starts at " + scan.firstRecord() + " but the log's first index is "
                    + storedFirst + " (segment files were deleted or lost); refusing to open");
        }
        TailCut cut = scan.cut();
        if (cut != null && cut.index() < scan.durableHint()) {
            throw new DurableLogException("record " + cut.index() + " in " + files.path(cut.cycle()) + " at offset "
                    + cut.offset() + " is damaged (" + cut.reason() + "), but a sync marker shows that every record below "
                    + scan.durableHint() + " had been forced to the device: the durable part of the log is damaged "
                    + "(media or firmware failure). Refusing to open; rebuild this replica's data directory from its peers");
        }
    }

    /** Applies the cut and removes empty segments, in an order that a crash at any point keeps safe. */
    private static void repair(SegmentFiles files, LogScanner.Outcome scan, StorageIo io) throws IOException {
        TailCut cut = scan.cut();
        if (cut != null) {
            for (int c : cut.laterSegments()) {
                files.delete(c);
            }
        }
        for (int c : scan.emptySegments()) {
            files.delete(c);
        }
        FirstIndexFile.forceDirectory(files.dir(), io);
        if (cut == null) {
            return;
        }
        if (cut.segmentKeepsRecords()) {
            files.endSegmentAt(cut.cycle(), cut.offset(), io);
        } else {
            files.delete(cut.cycle());
            FirstIndexFile.forceDirectory(files.dir(), io);
        }
        LOG.warn("Cut the log in {} at index {}: {} at offset {} of {}; discarded {} later segment file(s) and {} "
                        + "later record(s) with valid checksums (writes no completed sync had covered)",
                files.dir(), cut.index(), cut.reason(), cut.offset(), files.path(cut.cycle()).getFileName(),
                cut.laterSegments().size(), cut.validRecordsAfter());
    }

    private static SingleChronicleQueue openQueue(Path dir, LogicalClock clock, ChronicleLogOptions options)
            throws IOException {
        // Only Chronicle's locks (held by a dead writer after a crash) and caches live in its table
        // store; deleting it is safe while we hold the directory lock, and Chronicle rebuilds it.
        Files.deleteIfExists(dir.resolve(CHRONICLE_METADATA));
        return SingleChronicleQueueBuilder.binary(dir.toFile())
                .rollCycle(RollCycles.FAST_DAILY)
                .timeProvider(clock)
                .blockSize(blockSize(options.maxRecordBytes()))
                // The log forces files itself (SegmentSyncer); no msync when Chronicle unmaps a chunk.
                .syncMode(SyncMode.NONE)
                .timeoutMS(CHRONICLE_TIMEOUT_MS)
                .build();
    }

    /**
     * Chronicle's mapping chunk: an excerpt must fit in the quarter of a chunk that overlaps the
     * next one, so the chunk is four times the largest excerpt, rounded up to a power of two.
     */
    static long blockSize(int maxRecordBytes) {
        long need = 4L * (maxRecordBytes + LogRecordFormat.RECORD_HEADER_BYTES + 64);
        return Math.max(1L << 20, Long.highestOneBit(need - 1) << 1);
    }

    static void closeQueue(SingleChronicleQueue queue) {
        queue.close();
        BackgroundResourceReleaser.releasePendingResources();
    }
}
