package dev.parallax.core.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Finds and damages the bytes of a closed log's segment files, as a crash or a failing disk would. */
final class LogFiles {
    private LogFiles() {
    }

    /** The segment files of a log directory, in segment order. */
    static List<Path> segments(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> SegmentFiles.cycleOf(p.getFileName().toString()) >= 0).sorted().collect(Collectors.toList());
        }
    }

    /** A record payload that occurs once in the log: {@code "record-<i>-"} padded with its own digits. */
    static byte[] payload(long i, int length) {
        String head = "record-" + i + "-";
        StringBuilder sb = new StringBuilder(head);
        while (sb.length() < length) {
            sb.append((char) ('a' + (i + sb.length()) % 26));
        }
        return sb.substring(0, Math.max(length, head.length())).getBytes(StandardCharsets.US_ASCII);
    }

    /** Where {@code needle} first occurs in one of the directory's segment files. */
    static Location find(Path dir, byte[] needle) throws IOException {
        for (Path file : segments(dir)) {
            long at = indexOf(file, needle);
            if (at >= 0) {
                return new Location(file, at);
            }
        }
        throw new AssertionError("not found in any segment of " + dir + ": " + new String(needle, StandardCharsets.US_ASCII));
    }

    /** The file and offset of a payload; the record's Chronicle header is 20 bytes before it. */
    record Location(Path file, long offset) {
        long recordHeaderOffset() {
            return offset - LogRecordFormat.RECORD_HEADER_BYTES - 4;
        }
    }

    private static long indexOf(Path file, byte[] needle) throws IOException {
        long size = Files.size(file);
        int block = 1 << 20;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate(block + needle.length);
            for (long base = 0; base < size; base += block) {
                buf.clear();
                while (buf.hasRemaining() && ch.read(buf, base + buf.position()) > 0) {
                    // keep reading until the buffer is full or the file ends
                }
                int n = buf.position();
                byte[] a = buf.array();
                outer:
                for (int i = 0; i + needle.length <= n; i++) {
                    for (int j = 0; j < needle.length; j++) {
                        if (a[i + j] != needle[j]) {
                            continue outer;
                        }
                    }
                    return base + i;
                }
            }
        }
        return -1;
    }

    static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) ~b.get(0)).position(0);
            ch.write(b, offset);
        }
    }

    static void writeIntLe(Path file, long offset, int value) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), offset);
        }
    }

    static void truncate(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }
}
