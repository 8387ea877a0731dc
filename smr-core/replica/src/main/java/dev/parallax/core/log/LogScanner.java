package dev.parallax.core.log;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesUtil;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads every excerpt of every segment once, at open, and finds the longest valid prefix of
 * records: each record's CRC must match and its index must be one more than the previous one's.
 * It stops the prefix at the first excerpt that is damaged, unfinished (a header Chronicle left
 * "not complete" because the writer died) or out of sequence, and keeps reading after it only to
 * count valid records beyond the cut and to collect sync markers (see {@link LogRecordFormat}).
 *
 * <p>Single-use, single-threaded; blocks on file reads.
 */
final class LogScanner {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }

    /**
     * What the scan found.
     *
     * @param segments    segments holding records of the valid prefix, with their first indexes
     * @param firstRecord index of the first valid record, or -1 if there is none
     * @param end         one past the last valid record, or -1 if there is none
     * @param durableHint highest {@code durableNext} of any valid sync marker: records below it were
     *                    forced to the device at some point
     * @param cut         where the valid prefix ends although more bytes follow, or null
     * @param emptySegments segments before the cut that hold no record (crash leftovers)
     */
    record Outcome(SegmentTable segments, long firstRecord, long end, long durableHint, TailCut cut,
                   List<Integer> emptySegments) {
    }

    private final SingleChronicleQueue queue;
    private final SegmentFiles files;
    private final LogRecordFormat format = new LogRecordFormat();
    private final byte[] header = new byte[LogRecordFormat.RECORD_HEADER_BYTES];
    private byte[] payload = new byte[4096];

    private final SegmentTable segments = new SegmentTable();
    private final List<Integer> emptySegments = new ArrayList<>();
    private long expected = -1;
    private long firstRecord = -1;
    private long durableHint;
    private long defaultIndex;

    private int cutCycle = -1;
    private long cutOffset;
    private long cutIndex;
    private String cutReason;
    private boolean cutSegmentKeepsRecords;
    private final List<Integer> laterSegments = new ArrayList<>();
    private long validRecordsAfter;

    private long segmentFirst;

    LogScanner(SingleChronicleQueue queue, SegmentFiles files) {
        this.queue = queue;
        this.files = files;
    }

    /**
     * Scans the given segments in order.
     *
     * @param cycles     the segment files present, ascending
     * @param firstIndex the stored first index: the index a cut gets when no record precedes it
     */
    Outcome scan(List<Integer> cycles, long firstIndex) throws IOException {
        defaultIndex = firstIndex;
        try (ExcerptTailer tailer = queue.createTailer()) {
            for (int cycle : cycles) {
                boolean afterCut = cutReason != null;
                if (afterCut) {
                    laterSegments.add(cycle);
                }
                segmentFirst = -1;
                scanSegment(tailer, cycle);
                if (!afterCut && segmentFirst < 0 && cutCycle != cycle) {
                    emptySegments.add(cycle);
                }
            }
        }
        TailCut cut = cutReason == null ? null : new TailCut(cutCycle, cutOffset, cutIndex, cutReason,
                cutSegmentKeepsRecords, List.copyOf(laterSegments), validRecordsAfter);
        return new Outcome(segments, firstRecord, expected, durableHint, cut, List.copyOf(emptySegments));
    }

    private void scanSegment(ExcerptTailer tailer, int cycle) throws IOException {
        long position = 0;
        try {
            if (!tailer.moveToCycle(cycle)) {
                damage(cycle, 0, "Chronicle cannot read the segment's header");
                return;
            }
            while (true) {
                try (DocumentContext dc = tailer.readingDocument(true)) {
                    if (!dc.isPresent()) {
                        int h = files.peekInt(cycle, position);
                        if (h != 0 && h != SegmentFiles.END_OF_DATA) {
                            damage(cycle, position, "unfinished or unreadable excerpt header 0x" + Integer.toHexString(h));
                        }
                        return;
                    }
                    if (tailer.cycle() != cycle) {
                        return;
                    }
                    Bytes<?> bytes = dc.wire().bytes();
                    long start = bytes.readPosition();
                    long end = bytes.readLimit();
                    position = end + BytesUtil.padOffset(end);
                    if (dc.isMetaData()) {
                        readMarker(bytes, end - start);
                    } else {
                        readRecord(bytes, cycle, start - 4, end - start);
                    }
                }
            }
        } catch (RuntimeException e) {
            damage(cycle, position, "Chronicle cannot read on: " + e);
        }
    }

    private void readMarker(Bytes<?> bytes, long length) {
        if (length == LogRecordFormat.MARKER_BYTES) {
            bytes.read(header, 0, LogRecordFormat.MARKER_BYTES);
            durableHint = Math.max(durableHint, format.markerDurableNext(header, length));
        }
    }

    private void readRecord(Bytes<?> bytes, int cycle, long headerOffset, long length) {
        String problem;
        long index = -1;
        if (length < LogRecordFormat.RECORD_HEADER_BYTES
                || length > LogRecordFormat.RECORD_HEADER_BYTES + (long) ChronicleLogOptions.MAX_RECORD_BYTES_LIMIT) {
            problem = "an excerpt of " + length + " bytes cannot be a record";
        } else {
            int payloadLength = (int) (length - LogRecordFormat.RECORD_HEADER_BYTES);
            if (payload.length < payloadLength) {
                payload = new byte[Math.max(payloadLength, payload.length * 2)];
            }
            bytes.read(header, 0, LogRecordFormat.RECORD_HEADER_BYTES);
            bytes.read(payload, 0, payloadLength);
            problem = format.checkRecord(header, payload, length);
            index = LogRecordFormat.recordIndex(header);
            if (problem == null && cutReason == null && expected >= 0 && index != expected) {
                problem = "it holds index " + index + " where " + expected + " was expected";
            }
        }
        if (cutReason != null) {
            if (problem == null) {
                validRecordsAfter++;
            }
            return;
        }
        if (problem != null) {
            damage(cycle, headerOffset, problem);
            return;
        }
        if (segmentFirst < 0) {
            segmentFirst = index;
            segments.add(cycle, index);
        }
        if (firstRecord < 0) {
            firstRecord = index;
        }
        expected = index + 1;
    }

    private void damage(int cycle, long offset, String reason) {
        if (cutReason != null) {
            return;
        }
        cutCycle = cycle;
        cutOffset = offset;
        cutIndex = expected >= 0 ? expected : defaultIndex;
        cutReason = reason;
        cutSegmentKeepsRecords = segmentFirst >= 0;
    }
}
