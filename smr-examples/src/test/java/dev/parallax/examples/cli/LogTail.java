package dev.parallax.examples.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds and damages the last record of a (stopped) replica's acceptor log, as a torn write would.
 * Walks the raw Chronicle Queue segment files ({@code yyyyMMddF.cq4}): every excerpt starts at a
 * 4-byte aligned offset with a little-endian header (bit 31: not complete, bit 30: metadata, low 30
 * bits: length); a zero header ends the written part. The log's records are the data excerpts,
 * {@code index:8 length:4 crc:4 payload} (smr-core's LogRecordFormat); Chronicle's own index and
 * the log's sync markers are metadata.
 */
final class LogTail {
    private static final int NOT_COMPLETE = 0x8000_0000;
    private static final int META_DATA = 0x4000_0000;
    private static final int LENGTH_MASK = 0x3FFF_FFFF;
    private static final int RECORD_HEADER = 16;

    private LogTail() {
    }

    /** The last record: its segment file, the offset of its Chronicle header, its index and payload length. */
    record Record(Path file, long offset, long index, int payloadLength) {
    }

    /** The last complete record of the log in {@code logDir}; fails if there is none. */
    static Record lastRecord(Path logDir) throws IOException {
        List<Path> segments;
        try (Stream<Path> s = Files.list(logDir)) {
            segments = s.filter(p -> p.getFileName().toString().matches("\\d{8}F\\.cq4")).sorted().toList();
        }
        Record last = null;
        for (Path file : segments) {
            Record r = lastRecordIn(file);
            if (r != null) {
                last = r;
            }
        }
        if (last == null) {
            throw new AssertionError("no record in any segment of " + logDir + ": " + segments);
        }
        return last;
    }

    private static Record lastRecordIn(Path file) throws IOException {
        Record last = null;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            long pos = 0;
            ByteBuffer head = ByteBuffer.allocate(4 + RECORD_HEADER).order(ByteOrder.LITTLE_ENDIAN);
            while (pos + 4 <= size) {
                head.clear();
                ch.read(head, pos);
                int header = head.getInt(0);
                int length = header & LENGTH_MASK;
                if (header == 0 || (header & NOT_COMPLETE) != 0) {
                    break; // unwritten, end of data, or an excerpt its writer never finished
                }
                if ((header & META_DATA) == 0 && length >= RECORD_HEADER
                        && head.getInt(4 + 8) == length - RECORD_HEADER) {
                    last = new Record(file, pos, head.getLong(4), length - RECORD_HEADER);
                }
                pos = (pos + 4 + length + 3) & ~3L;
            }
        }
        return last;
    }

    /**
     * Inverts one byte of {@code r}'s payload (of its CRC if the payload is empty), so that the
     * record's CRC32C no longer matches.
     */
    static void corrupt(Record r) throws IOException {
        long at = r.offset() + 4 + (r.payloadLength() > 0 ? RECORD_HEADER + r.payloadLength() / 2 : 12);
        try (FileChannel ch = FileChannel.open(r.file(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) ~b.get(0)).position(0);
            ch.write(b, at);
            ch.force(true);
        }
    }
}
