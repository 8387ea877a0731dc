package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;
import dev.parallax.core.spi.RecordVisitor;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The read side of a {@link ChronicleDurableLog}: seeks to a record by index (one Chronicle index
 * lookup through the {@link SegmentTable}) and hands records to a {@link RecordVisitor} after
 * checking each one's CRC and index ({@link LogRecordFormat}). Owns the Chronicle tailer and the
 * reusable read buffer, which grows to the largest record read.
 *
 * <p>Confined to the log's writer thread. Reads memory-mapped pages (a first touch of a page faults
 * it in); does not allocate unless a record is larger than any read before.
 */
final class RecordReader {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }

    private final ExcerptTailer tailer;
    private final RollCycle rollCycle;
    private final SegmentTable segments;
    private final SegmentFiles files;
    private final LogRecordFormat format = new LogRecordFormat();
    private final byte[] readHeader = new byte[LogRecordFormat.RECORD_HEADER_BYTES];
    private byte[] readBuffer = new byte[4096];
    private ByteBuffer readView = ByteBuffer.wrap(readBuffer).asReadOnlyBuffer();

    RecordReader(SingleChronicleQueue queue, SegmentTable segments, SegmentFiles files) {
        this.rollCycle = queue.rollCycle();
        this.segments = segments;
        this.files = files;
        this.tailer = queue.createTailer();
        tailer.singleThreadedCheckDisabled(true);
    }

    /**
     * Hands the records {@code [fromIndex, end)} to {@code visitor}, all of which exist. The buffer
     * passed is read-only, starts at the record's first byte (position 0) and is reused for the
     * next record.
     *
     * @return the number of records visited
     * @throws DurableLogException if a record cannot be read or is damaged
     */
    int read(long fromIndex, long end, RecordVisitor visitor) {
        int slot = segments.slotOf(fromIndex);
        moveTo(slot, fromIndex);
        int n = 0;
        for (long i = fromIndex; i < end; i++, n++) {
            if (slot + 1 < segments.size() && i == segments.firstIndex(slot + 1)) {
                slot++;
                moveTo(slot, i);
            }
            int length = readRecord(i, slot);
            readView.limit(length).position(0);
            visitor.visit(i, readView);
        }
        return n;
    }

    private void moveTo(int slot, long index) {
        boolean found;
        try {
            found = tailer.moveToIndex(rollCycle.toIndex(segments.cycle(slot), index - segments.firstIndex(slot)));
        } catch (RuntimeException | InternalError e) {
            throw new DurableLogException("cannot seek to record " + index + " in " + segmentPath(slot), e);
        }
        if (!found) {
            throw new DurableLogException("record " + index + " is missing from " + segmentPath(slot));
        }
    }

    /** Reads record {@code index} into {@link #readBuffer}; returns its payload length. */
    private int readRecord(long index, int slot) {
        String problem;
        int payloadLength = 0;
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                throw new DurableLogException("record " + index + " is missing from " + segmentPath(slot));
            }
            Bytes<?> bytes = dc.wire().bytes();
            long length = bytes.readRemaining();
            if (length < LogRecordFormat.RECORD_HEADER_BYTES
                    || length > LogRecordFormat.RECORD_HEADER_BYTES + (long) ChronicleLogOptions.MAX_RECORD_BYTES_LIMIT) {
                problem = "an excerpt of " + length + " bytes cannot be a record";
            } else {
                payloadLength = (int) (length - LogRecordFormat.RECORD_HEADER_BYTES);
                ensureReadBuffer(payloadLength);
                bytes.read(readHeader, 0, LogRecordFormat.RECORD_HEADER_BYTES);
                bytes.read(readBuffer, 0, payloadLength);
                problem = format.checkRecord(readHeader, readBuffer, length);
                if (problem == null && LogRecordFormat.recordIndex(readHeader) != index) {
                    problem = "it holds index " + LogRecordFormat.recordIndex(readHeader);
                }
            }
        } catch (RuntimeException | InternalError e) {
            if (e instanceof DurableLogException) {
                throw (DurableLogException) e;
            }
            throw new DurableLogException("cannot read record " + index + " from " + segmentPath(slot), e);
        }
        if (problem != null) {
            throw new DurableLogException("record " + index + " in " + segmentPath(slot) + " is damaged: " + problem);
        }
        return payloadLength;
    }

    private void ensureReadBuffer(int length) {
        if (readBuffer.length < length) {
            readBuffer = new byte[Math.max(length, readBuffer.length * 2)];
            readView = ByteBuffer.wrap(readBuffer).asReadOnlyBuffer();
        }
    }

    private Path segmentPath(int slot) {
        return files.path(segments.cycle(slot));
    }

    /** Closes the Chronicle tailer; idempotent. */
    void close() {
        tailer.close();
    }
}
