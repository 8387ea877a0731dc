package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The write side of a {@link ChronicleDurableLog}'s segment files: appends records (one Chronicle
 * excerpt each, {@link LogRecordFormat}) and sync markers, rolls to a new segment once the current
 * one holds {@link ChronicleLogOptions#segmentBytes()}, and deletes the segment files a truncation
 * freed. It is the single writer of the {@link SegmentTable}, of the next index, and of the segment
 * files themselves; it tells the {@link SegmentSyncer} which segments it wrote.
 *
 * <p>Confined to the log's writer thread. {@link #append} makes no system call in the common case
 * (it copies into memory-mapped pages); every few MiB it maps a new chunk or starts a new segment,
 * and once per MiB it asks the file system for the free space. {@link #deleteSegmentsBelow} blocks
 * on file deletion.
 */
final class RecordAppender {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleDurableLog.class);
    /** Bytes an append may add to a segment beyond its payload: our header, Chronicle's, padding. */
    private static final int APPEND_OVERHEAD = LogRecordFormat.RECORD_HEADER_BYTES + 8;

    private final Path dir;
    private final ChronicleLogOptions options;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final LogicalClock clock;
    private final SegmentTable segments;
    private final SegmentFiles files;
    private final SegmentSyncer syncer;
    private final SpaceGuard space;
    private final WriteFailure failure;
    private final LogRecordFormat format = new LogRecordFormat();

    private long nextIndex;
    private boolean segmentHasRecords;
    private long segmentBytes;

    /**
     * @param nextIndex the index the next record gets (one past the last recovered record)
     */
    RecordAppender(Path dir, ChronicleLogOptions options, SingleChronicleQueue queue, LogicalClock clock,
                   SegmentTable segments, SegmentFiles files, SegmentSyncer syncer, SpaceGuard space,
                   WriteFailure failure, long nextIndex) {
        this.dir = dir;
        this.options = options;
        this.queue = queue;
        this.clock = clock;
        this.segments = segments;
        this.files = files;
        this.syncer = syncer;
        this.space = space;
        this.failure = failure;
        this.nextIndex = nextIndex;
        this.appender = queue.createAppender();
        appender.singleThreadedCheckDisabled(true);
    }

    /** The index the next record gets. */
    long nextIndex() {
        return nextIndex;
    }

    /**
     * Writes the record into the current segment's mapping (the page cache); no allocation.
     *
     * @throws IllegalArgumentException if the record is larger than
     *                                  {@link ChronicleLogOptions#maxRecordBytes()}
     * @throws DurableLogException      if the disk is (nearly) full (the log stays usable) or if
     *                                  the write failed (recorded in the {@link WriteFailure})
     */
    long append(ByteBuffer record) {
        int length = record.remaining();
        if (length > options.maxRecordBytes()) {
            throw new IllegalArgumentException("record of " + length + " bytes exceeds maxRecordBytes "
                    + options.maxRecordBytes());
        }
        space.reserve(length + (long) APPEND_OVERHEAD);
        if (segmentHasRecords && segmentBytes >= options.segmentBytes()) {
            clock.advance();
            segmentHasRecords = false;
        }
        long index = nextIndex;
        byte[] header = format.recordHeader(index, record);
        try (DocumentContext dc = appender.writingDocument()) {
            boolean written = false;
            try {
                Bytes<?> bytes = dc.wire().bytes();
                bytes.write(header, 0, LogRecordFormat.RECORD_HEADER_BYTES);
                writePayload(bytes, record, length);
                segmentBytes = bytes.writePosition();
                written = true;
            } finally {
                if (!written) {
                    dc.rollbackOnClose();
                }
            }
        } catch (RuntimeException | InternalError e) {
            // InternalError is how the JVM reports SIGBUS on a mapped page (file system full or file truncated).
            throw failure.fail("cannot append record " + index + " to " + dir, e);
        }
        int cycle = clock.cycle();
        if (!segmentHasRecords) {
            segments.add(cycle, index);
            segmentHasRecords = true;
            syncer.noteNewFile();
        }
        syncer.noteWrite(cycle);
        nextIndex = index + 1;
        return index;
    }

    /**
     * Copies the payload without moving the caller's buffer. Chronicle's
     * {@code write(long, ByteBuffer, int, int)} is not used for heap buffers: it indexes
     * {@code array()} without {@code arrayOffset()} (wrong bytes for a slice) and fails on
     * read-only buffers.
     */
    private void writePayload(Bytes<?> bytes, ByteBuffer record, int length) {
        int position = record.position();
        if (record.hasArray()) {
            bytes.write(record.array(), record.arrayOffset() + position, length);
        } else if (record.isDirect()) {
            long at = bytes.writePosition();
            bytes.writeSkip(length);
            bytes.write(at, record, position, length);
        } else {
            byte[] scratch = format.scratch();
            for (int done = 0; done < length; ) {
                int n = Math.min(scratch.length, length - done);
                record.get(position + done, scratch, 0, n);
                bytes.write(scratch, 0, n);
                done += n;
            }
        }
    }

    /**
     * Appends a sync marker stating that every record below {@code durableNext} reached the device
     * (a Chronicle metadata excerpt, see {@link LogRecordFormat}). The caller handles a failure
     * (a {@link RuntimeException} or an {@link InternalError} from a faulting mapping).
     */
    void appendMarker(long durableNext) {
        try (DocumentContext dc = appender.writingDocument(true)) {
            dc.wire().bytes().write(format.marker(durableNext), 0, LogRecordFormat.MARKER_BYTES);
        }
        syncer.noteWrite(clock.cycle());
    }

    /**
     * Deletes every segment file holding only records below {@code firstIndex}. A failed deletion
     * is logged at WARN and retried at the next call.
     */
    void deleteSegmentsBelow(long firstIndex) {
        int n = segments.countWhollyBelow(firstIndex);
        int deleted = 0;
        try {
            while (deleted < n) {
                files.delete(segments.cycle(deleted));
                deleted++;
            }
        } catch (IOException e) {
            LOG.warn("Cannot delete trimmed segment {} of {}; will retry at the next sync", files.path(segments.cycle(deleted)), dir, e);
        }
        if (deleted > 0) {
            segments.removeFirst(deleted);
            queue.refreshDirectoryListing();
        }
    }

    /** Closes the Chronicle appender; idempotent. */
    void close() {
        appender.close();
    }
}
