package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.DurableLogException;
import dev.parallax.core.testkit.DurableLogContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Chronicle log passes the shared {@link DurableLogContract} under {@link SyncPolicy#EVERY_BATCH}
 * (a crash is a close without sync; broken storage is a device whose forces fail), plus its own
 * recovery, truncation and failure behaviour, with the segment files damaged on disk as a crash or a
 * failing disk leaves them.
 */
class ChronicleDurableLogTest extends DurableLogContract {
    private static final int PAYLOAD = 100;

    @TempDir
    Path dir;
    private final FaultyStorageIo io = new FaultyStorageIo();
    private ChronicleLogOptions options = ChronicleLogOptions.defaults().withSegmentBytes(256 << 10);

    @Override
    protected DurableLog openLog() {
        return ChronicleDurableLog.open(dir, options, io);
    }

    @Override
    protected void crash(DurableLog open) {
        open.close();
    }

    @Override
    protected void breakStorage(DurableLog open) {
        io.failForces();
    }

    private ChronicleDurableLog chronicle() {
        return (ChronicleDurableLog) log();
    }

    private void appendRecords(DurableLog l, long from, long to) {
        for (long i = from; i < to; i++) {
            assertThat(l.append(ByteBuffer.wrap(LogFiles.payload(i, PAYLOAD)))).isEqualTo(i);
        }
    }

    /** Reads every record from {@code from} and checks that record {@code i} holds payload {@code i}. */
    private static long checkRecords(DurableLog l, long from) {
        long[] next = {from};
        l.read(from, Integer.MAX_VALUE, (i, r) -> {
            assertThat(i).isEqualTo(next[0]++);
            byte[] b = new byte[r.remaining()];
            r.get(b);
            assertThat(b).isEqualTo(LogFiles.payload(i, PAYLOAD));
        });
        return next[0];
    }

    @Test
    void recordsSurviveReopenAcrossManySegments() throws IOException {
        appendRecords(log(), 0, 5_000);
        log().sync();
        assertThat(LogFiles.segments(dir)).hasSizeGreaterThan(2);
        DurableLog reopened = reopenCleanly();
        assertThat(reopened.firstIndex()).isZero();
        assertThat(reopened.nextIndex()).isEqualTo(5_000);
        assertThat(reopened.durableIndex()).isEqualTo(5_000);
        assertThat(checkRecords(reopened, 0)).isEqualTo(5_000);
        assertThat(checkRecords(reopened, 4_321)).isEqualTo(5_000);
        appendRecords(reopened, 5_000, 5_010);
        assertThat(checkRecords(reopened, 4_990)).isEqualTo(5_010);
    }

    @Test
    void segmentFilesAreNamedByChronicleForTheirSegmentNumber() throws IOException {
        appendRecords(log(), 0, 3);
        log().sync();
        assertThat(LogFiles.segments(dir)).extracting(p -> p.getFileName().toString()).containsExactly("19700101F.cq4");
        assertThat(SegmentFiles.cycleOf("19700102F.cq4")).isEqualTo(1);
        assertThat(new SegmentFiles(dir).path(365).getFileName().toString()).isEqualTo("19710101F.cq4");
        DurableLog reopened = reopenCleanly();
        appendRecords(reopened, 3, 4);
        reopened.sync();
        assertThat(LogFiles.segments(dir)).extracting(p -> p.getFileName().toString())
                .containsExactly("19700101F.cq4", "19700102F.cq4");
    }

    @Test
    void truncateBeforeDeletesWholeSegmentsBelowTheCutAtTheNextSync() throws IOException {
        appendRecords(log(), 0, 5_000);
        log().sync();
        int before = LogFiles.segments(dir).size();
        log().truncateBefore(4_000);
        assertThat(LogFiles.segments(dir)).hasSize(before);
        log().sync();
        int after = LogFiles.segments(dir).size();
        assertThat(after).isLessThan(before).isGreaterThanOrEqualTo(1);
        assertThat(checkRecords(log(), 4_000)).isEqualTo(5_000);
        DurableLog reopened = reopenAfterCrash();
        assertThat(reopened.firstIndex()).isEqualTo(4_000);
        assertThat(reopened.nextIndex()).isEqualTo(5_000);
        assertThat(checkRecords(reopened, 4_000)).isEqualTo(5_000);
        assertThatThrownBy(() -> reopened.read(3_999, 1, (i, r) -> { })).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnsyncedTruncationIsForgottenByACrash() {
        appendRecords(log(), 0, 10);
        log().sync();
        log().truncateBefore(5);
        DurableLog reopened = reopenAfterCrash();
        assertThat(reopened.firstIndex()).isZero();
        assertThat(checkRecords(reopened, 0)).isEqualTo(10);
    }

    @Test
    void truncatingEverythingSurvivesReopenWithNoRecordLeft() {
        appendRecords(log(), 0, 10);
        log().truncateBefore(10);
        log().sync();
        DurableLog reopened = reopenCleanly();
        assertThat(reopened.firstIndex()).isEqualTo(10);
        assertThat(reopened.nextIndex()).isEqualTo(10);
        assertThat(reopened.append(ByteBuffer.wrap(LogFiles.payload(10, PAYLOAD)))).isEqualTo(10);
        reopened.sync();
        assertThat(checkRecords(reopenCleanly(), 10)).isEqualTo(11);
    }

    @Test
    void aDamagedTailRecordIsCutWithAWarning() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        log().close();
        LogFiles.Location last = LogFiles.find(dir, LogFiles.payload(9, PAYLOAD));
        LogFiles.flipByte(last.file(), last.offset() + 50);
        try (CapturedStderr err = new CapturedStderr()) {
            DurableLog reopened = reopenCleanly();
            assertThat(err.text()).contains("WARN").contains("Cut the log").contains("at index 9").contains("CRC32C mismatch");
            assertThat(reopened.nextIndex()).isEqualTo(9);
            assertThat(checkRecords(reopened, 0)).isEqualTo(9);
            assertThat(reopened.append(ByteBuffer.wrap(LogFiles.payload(9, PAYLOAD)))).isEqualTo(9);
            reopened.sync();
        }
        try (CapturedStderr err = new CapturedStderr()) {
            DurableLog again = reopenCleanly();
            assertThat(err.text()).doesNotContain("Cut the log");
            assertThat(checkRecords(again, 0)).isEqualTo(10);
        }
    }

    @Test
    void aFileTruncatedInsideTheLastRecordIsCut() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        log().close();
        LogFiles.Location last = LogFiles.find(dir, LogFiles.payload(9, PAYLOAD));
        LogFiles.truncate(last.file(), last.offset() + 30);
        DurableLog reopened = reopenCleanly();
        assertThat(reopened.nextIndex()).isEqualTo(9);
        assertThat(checkRecords(reopened, 0)).isEqualTo(9);
        appendRecords(reopened, 9, 20);
        reopened.sync();
        assertThat(checkRecords(reopenCleanly(), 0)).isEqualTo(20);
    }

    @Test
    void anUnfinishedExcerptLeftByADyingWriterIsCut() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        log().close();
        LogFiles.Location last = LogFiles.find(dir, LogFiles.payload(9, PAYLOAD));
        long end = last.offset() + PAYLOAD;
        long next = (end + 3) & ~3L;
        // Chronicle's "not complete" header with a length: a writer died in the middle of this excerpt.
        LogFiles.writeIntLe(last.file(), next, 0x8000_0000 | 116);
        LogFiles.writeIntLe(last.file(), next + 4, 10);
        try (CapturedStderr err = new CapturedStderr()) {
            DurableLog reopened = reopenCleanly();
            assertThat(err.text()).contains("Cut the log").contains("at index 10").contains("unfinished");
            assertThat(reopened.nextIndex()).isEqualTo(10);
            appendRecords(reopened, 10, 12);
            reopened.sync();
        }
        assertThat(checkRecords(reopenCleanly(), 0)).isEqualTo(12);
    }

    @Test
    void damageBeyondTheForcedPrefixIsCutTogetherWithValidRecordsAfterIt() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        appendRecords(log(), 10, 11);
        log().sync();
        appendRecords(log(), 11, 20);
        log().close();
        // Pages reach the disk in any order: record 12 torn, 13..19 intact.
        LogFiles.Location torn = LogFiles.find(dir, LogFiles.payload(12, PAYLOAD));
        LogFiles.flipByte(torn.file(), torn.offset() + 10);
        try (CapturedStderr err = new CapturedStderr()) {
            DurableLog reopened = reopenCleanly();
            assertThat(err.text()).contains("at index 12").contains("7 later record(s) with valid checksums");
            assertThat(reopened.nextIndex()).isEqualTo(12);
            assertThat(checkRecords(reopened, 0)).isEqualTo(12);
        }
    }

    @Test
    void damageInsideTheForcedPrefixRefusesToOpen() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        appendRecords(log(), 10, 11);
        log().sync();
        appendRecords(log(), 11, 12);
        log().sync();
        log().close();
        LogFiles.Location damaged = LogFiles.find(dir, LogFiles.payload(5, PAYLOAD));
        LogFiles.flipByte(damaged.file(), damaged.offset() + 10);
        assertThatThrownBy(this::reopenCleanly)
                .isInstanceOf(DurableLogException.class)
                .hasMessageContaining("record 5")
                .hasMessageContaining("forced to the device")
                .hasMessageContaining("Refusing to open");
        LogFiles.flipByte(damaged.file(), damaged.offset() + 10);
        try (DurableLog repaired = openLog()) {
            assertThat(checkRecords(repaired, 0)).isEqualTo(12);
        }
    }

    @Test
    void aDamagedExcerptLengthIsCut() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        log().close();
        LogFiles.Location last = LogFiles.find(dir, LogFiles.payload(9, PAYLOAD));
        LogFiles.writeIntLe(last.file(), last.recordHeaderOffset(), LogRecordFormat.RECORD_HEADER_BYTES + PAYLOAD + 64);
        try (CapturedStderr err = new CapturedStderr()) {
            DurableLog reopened = reopenCleanly();
            assertThat(err.text()).contains("at index 9").contains("does not match");
            assertThat(reopened.nextIndex()).isEqualTo(9);
        }
    }

    @Test
    void withoutAMarkerDamageInAnEarlierSegmentCutsEveryLaterSegment() throws IOException {
        appendRecords(log(), 0, 5_000);
        log().sync();
        log().close();
        int before = LogFiles.segments(dir).size();
        LogFiles.Location damaged = LogFiles.find(dir, LogFiles.payload(1_000, PAYLOAD));
        int later = before - 1 - LogFiles.segments(dir).indexOf(damaged.file());
        assertThat(later).isPositive();
        LogFiles.flipByte(damaged.file(), damaged.offset());
        try (CapturedStderr err = new CapturedStderr()) {
            DurableLog reopened = reopenCleanly();
            assertThat(err.text()).contains("at index 1000").contains("discarded " + later + " later segment file(s)");
            assertThat(reopened.nextIndex()).isEqualTo(1_000);
            assertThat(checkRecords(reopened, 0)).isEqualTo(1_000);
        }
        assertThat(LogFiles.segments(dir)).hasSize(before - later);
    }

    @Test
    void segmentsBelowTheFirstIndexThatACrashKeptAreDeletedAtOpen() throws IOException {
        appendRecords(log(), 0, 5_000);
        log().sync();
        Path saved = Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-saved"));
        for (Path p : LogFiles.segments(dir)) {
            Files.copy(p, saved.resolve(p.getFileName()));
        }
        log().truncateBefore(4_000);
        log().sync();
        log().close();
        int kept = LogFiles.segments(dir).size();
        for (Path p : LogFiles.segments(saved)) {
            if (!Files.exists(dir.resolve(p.getFileName()))) {
                Files.copy(p, dir.resolve(p.getFileName()));
            }
        }
        assertThat(LogFiles.segments(dir)).hasSizeGreaterThan(kept);
        DurableLog reopened = reopenCleanly();
        assertThat(LogFiles.segments(dir)).hasSize(kept);
        assertThat(reopened.firstIndex()).isEqualTo(4_000);
        assertThat(checkRecords(reopened, 4_000)).isEqualTo(5_000);
    }

    @Test
    void aSegmentFileTruncatedUnderTheOpenLogFailsTheAppendAndTheJvmLivesOn() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        // The kernel unmaps the truncated pages: the next write into them raises SIGBUS, which the
        // JVM turns into an InternalError, as when a full file system cannot back a page.
        LogFiles.truncate(LogFiles.segments(dir).get(0), 0);
        assertThatThrownBy(() -> log().append(ByteBuffer.allocate(PAYLOAD)))
                .isInstanceOf(DurableLogException.class).hasCauseInstanceOf(InternalError.class);
        assertThatThrownBy(log()::sync).isInstanceOf(DurableLogException.class).hasMessageContaining("failed earlier");
        assertThat(log().durableIndex()).isEqualTo(10);
    }

    @Test
    void aMissingSegmentRefusesToOpen() throws IOException {
        appendRecords(log(), 0, 5_000);
        log().sync();
        log().close();
        List<Path> segments = LogFiles.segments(dir);
        Files.delete(segments.get(0));
        assertThatThrownBy(this::openLog).isInstanceOf(DurableLogException.class).hasMessageContaining("missing");
    }

    @Test
    void readVerifiesChecksumsOfRecordsDamagedWhileOpen() throws IOException {
        appendRecords(log(), 0, 10);
        log().sync();
        LogFiles.Location damaged = LogFiles.find(dir, LogFiles.payload(4, PAYLOAD));
        LogFiles.flipByte(damaged.file(), damaged.offset() + 1);
        assertThat(checkRecords(log(), 5)).isEqualTo(10);
        assertThatThrownBy(() -> checkRecords(log(), 0))
                .isInstanceOf(DurableLogException.class).hasMessageContaining("record 4").hasMessageContaining("CRC32C");
    }

    @Test
    void aFailedForcePoisonsTheLogButKeepsReadsAndDurableIndex() {
        appendRecords(log(), 0, 5);
        log().sync();
        io.failForces();
        appendRecords(log(), 5, 6);
        assertThatThrownBy(log()::sync).isInstanceOf(DurableLogException.class).hasMessageContaining("device");
        assertThat(log().durableIndex()).isEqualTo(5);
        assertThatThrownBy(() -> log().append(ByteBuffer.allocate(1)))
                .isInstanceOf(DurableLogException.class).hasMessageContaining("failed earlier");
        assertThatThrownBy(log()::sync).isInstanceOf(DurableLogException.class);
        assertThat(checkRecords(log(), 0)).isEqualTo(6);
    }

    @Test
    void aFullDiskRefusesAppendsUntilSpaceIsFreed() {
        options = options.withDiskReserveBytes(1 << 20);
        appendRecords(log(), 0, 3);
        io.usableSpace(512 << 10);
        assertThatThrownBy(() -> {
            for (long i = 3; i < 1_000_000; i++) {
                log().append(ByteBuffer.wrap(LogFiles.payload(i, PAYLOAD)));
            }
        }).isInstanceOf(DurableLogException.class).hasMessageContaining("disk full");
        long next = log().nextIndex();
        assertThat(next).as("the guard looks at the disk at least once per MiB appended").isLessThan(20_000);
        assertThatThrownBy(() -> log().append(ByteBuffer.allocate(1))).hasMessageContaining("disk full");
        io.usableSpace(-1);
        assertThat(log().append(ByteBuffer.wrap(LogFiles.payload(next, PAYLOAD)))).isEqualTo(next);
        log().sync();
        assertThat(checkRecords(log(), 0)).isEqualTo(next + 1);
    }

    @Test
    void aSecondOpenOfTheSameDirectoryIsRefused() {
        log();
        assertThatThrownBy(this::openLog).isInstanceOf(DurableLogException.class).hasMessageContaining("already open");
    }

    @Test
    void recordsAboveTheSizeLimitAreRejected() {
        options = options.withMaxRecordBytes(1_000);
        assertThatThrownBy(() -> log().append(ByteBuffer.allocate(1_001))).isInstanceOf(IllegalArgumentException.class);
        assertThat(log().append(ByteBuffer.allocate(1_000))).isZero();
    }

    @Test
    void recordsWrittenUnderALargerLimitStayReadableWithASmallerOne() {
        byte[] big = LogFiles.payload(0, 3 << 20);
        log().append(ByteBuffer.wrap(big));
        appendRecords(log(), 1, 3);
        log().sync();
        options = options.withMaxRecordBytes(64 << 10);
        DurableLog reopened = reopenCleanly();
        List<Integer> sizes = new ArrayList<>();
        reopened.read(0, 3, (i, r) -> sizes.add(r.remaining()));
        assertThat(sizes).containsExactly(3 << 20, PAYLOAD, PAYLOAD);
        appendRecords(reopened, 3, 4);
    }

    @Test
    void visitorsGetReadOnlyBuffersStartingAtTheRecord() {
        log().append(ByteBuffer.wrap(new byte[]{7, 8, 9}));
        List<ByteBuffer> seen = new ArrayList<>();
        log().read(0, 1, (i, r) -> {
            assertThat(r.isReadOnly()).isTrue();
            assertThat(r.position()).isZero();
            assertThat(r.get(0)).isEqualTo((byte) 7);
            seen.add(r);
        });
        assertThat(seen).hasSize(1);
    }

    @Test
    void directHeapSlicedAndReadOnlyBuffersAreStoredAlike() {
        List<ByteBuffer> buffers = new ArrayList<>();
        ByteBuffer direct = ByteBuffer.allocateDirect(200);
        direct.put(LogFiles.payload(0, PAYLOAD)).flip();
        buffers.add(direct);
        ByteBuffer offset = ByteBuffer.wrap(new byte[300], 50, PAYLOAD);
        offset.put(LogFiles.payload(1, PAYLOAD)).position(50);
        buffers.add(offset);
        byte[] padded = new byte[PAYLOAD + 70];
        System.arraycopy(LogFiles.payload(2, PAYLOAD), 0, padded, 70, PAYLOAD);
        buffers.add(ByteBuffer.wrap(padded).position(70).slice());
        buffers.add(ByteBuffer.wrap(LogFiles.payload(3, PAYLOAD)).asReadOnlyBuffer());
        ByteBuffer directSlice = ByteBuffer.allocateDirect(PAYLOAD + 30).position(30).slice();
        directSlice.put(LogFiles.payload(4, PAYLOAD)).flip();
        buffers.add(directSlice);
        byte[] big = LogFiles.payload(5, 10_000);
        buffers.add(ByteBuffer.wrap(big).asReadOnlyBuffer());
        for (ByteBuffer b : buffers) {
            int position = b.position();
            log().append(b);
            assertThat(b.position()).isEqualTo(position);
        }
        long[] next = {0};
        reopenCleanly().read(0, 10, (i, r) -> {
            byte[] b = new byte[r.remaining()];
            r.get(b);
            assertThat(b).isEqualTo(i == 5 ? big : LogFiles.payload(i, PAYLOAD));
            next[0]++;
        });
        assertThat(next[0]).isEqualTo(6);
    }
}
