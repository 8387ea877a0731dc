package dev.parallax.core.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Names and raw access to the segment files of a log directory.
 *
 * <p>Each segment is one Chronicle Queue cycle file. The log drives Chronicle with a logical clock
 * (see {@link LogicalClock}) and the {@code FAST_DAILY} roll cycle, so segment {@code n} is the
 * file Chronicle names after day {@code n} since 1970-01-01: {@code 19700101F.cq4} is segment 0,
 * {@code 19700102F.cq4} segment 1. The date means nothing else.
 *
 * <p>Stateless apart from the directory; thread-safe. Every method does blocking file I/O.
 */
final class SegmentFiles {
    static final String SUFFIX = "F.cq4";
    /** Chronicle's end-of-cycle header ({@code Wires.END_OF_DATA}). */
    static final int END_OF_DATA = 0xC000_0000;

    private final Path dir;

    SegmentFiles(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** The file of segment {@code cycle}. */
    Path path(int cycle) {
        return dir.resolve(LocalDate.ofEpochDay(cycle).format(DateTimeFormatter.BASIC_ISO_DATE) + SUFFIX);
    }

    /** The segment number a file name stands for, or -1 if it names no segment. */
    static int cycleOf(String fileName) {
        if (fileName.length() != 8 + SUFFIX.length() || !fileName.endsWith(SUFFIX)) {
            return -1;
        }
        try {
            long day = LocalDate.parse(fileName.substring(0, 8), DateTimeFormatter.BASIC_ISO_DATE).toEpochDay();
            return day >= 0 && day <= Integer.MAX_VALUE ? (int) day : -1;
        } catch (DateTimeParseException e) {
            return -1;
        }
    }

    /** Segment numbers present in the directory, ascending. */
    List<Integer> list() throws IOException {
        List<Integer> cycles = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : stream) {
                int c = cycleOf(p.getFileName().toString());
                if (c >= 0) {
                    cycles.add(c);
                }
            }
        }
        Collections.sort(cycles);
        return cycles;
    }

    /** The little-endian int at {@code offset} of a segment file; 0 beyond its end. */
    int peekInt(int cycle, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(path(cycle), StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (b.hasRemaining()) {
                if (ch.read(b, offset + b.position()) < 0) {
                    break;
                }
            }
            return b.position() == 4 ? b.getInt(0) : 0;
        }
    }

    /**
     * Writes Chronicle's end-of-cycle header at {@code offset} of a segment file and forces the
     * file: Chronicle readers stop there and writers never append to the segment again, so the
     * bytes after it are dead. The file must not be open in a Chronicle queue.
     */
    void endSegmentAt(int cycle, long offset, StorageIo io) throws IOException {
        try (FileChannel ch = FileChannel.open(path(cycle), StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, END_OF_DATA);
            while (b.hasRemaining()) {
                ch.write(b, offset + b.position());
            }
            io.force(ch);
        }
    }

    /** Deletes a segment file if it exists. */
    void delete(int cycle) throws IOException {
        Files.deleteIfExists(path(cycle));
    }
}
