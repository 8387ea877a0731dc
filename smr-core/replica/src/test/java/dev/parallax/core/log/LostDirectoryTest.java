package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.log.ChronicleLogOptions.EmptyDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lost data directory, at the log: the creation mark ({@link CreationMark}) tells a directory a log has
 * run in from an empty one; under {@link EmptyDirectory#LOST} an empty, never-used directory (a
 * wiped or missing one) reports {@code amnesiaPossible()} until resolved, across restarts and under
 * every sync policy; under {@link EmptyDirectory#NEW} (a bootstrap) it is a new log.
 */
class LostDirectoryTest {
    @TempDir
    Path dir;

    private final FaultyStorageIo io = new FaultyStorageIo();

    private ChronicleDurableLog open(SyncPolicy policy, EmptyDirectory empty) {
        return ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy).withEmptyDirectory(empty), io);
    }

    private static void appendSynced(ChronicleDurableLog log, int count) {
        for (int i = 0; i < count; i++) {
            log.append(ByteBuffer.wrap(new byte[]{(byte) i}));
        }
        log.sync();
    }

    @Test
    void aBootstrappedNewLogReportsNoAmnesiaAndMarksItsDirectory() {
        try (ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.NEW)) {
            assertThat(log.amnesiaPossible()).isFalse();
            assertThat(dir.resolve(CreationMark.FILE_NAME)).exists();
            assertThat(dir.resolve(RunningMarker.FILE_NAME)).doesNotExist();
        }
        try (ChronicleDurableLog again = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST)) {
            assertThat(again.amnesiaPossible()).as("empty, but a log ran here: not lost").isFalse();
        }
    }

    @Test
    void anEmptyNeverUsedDirectoryIsLostUnderEveryPolicyUntilResolved() {
        for (SyncPolicy policy : SyncPolicy.values()) {
            Path sub = dir.resolve(policy.name());
            try (ChronicleDurableLog log = ChronicleDurableLog.open(sub,
                    ChronicleLogOptions.defaults().withSyncPolicy(policy).withEmptyDirectory(EmptyDirectory.LOST), io)) {
                assertThat(log.amnesiaPossible()).as(policy.name()).isTrue();
                assertThat(sub.resolve(RunningMarker.FILE_NAME)).as(policy.name()).exists();
            }
            try (ChronicleDurableLog again = ChronicleDurableLog.open(sub,
                    ChronicleLogOptions.defaults().withSyncPolicy(policy).withEmptyDirectory(EmptyDirectory.NEW), io)) {
                assertThat(again.amnesiaPossible()).as("a restart before recovery, even with bootstrap: " + policy).isTrue();
                again.amnesiaResolved();
            }
            try (ChronicleDurableLog third = ChronicleDurableLog.open(sub,
                    ChronicleLogOptions.defaults().withSyncPolicy(policy).withEmptyDirectory(EmptyDirectory.LOST), io)) {
                assertThat(third.amnesiaPossible()).as("resolved, then closed cleanly: " + policy).isFalse();
            }
        }
    }

    @Test
    void underEveryBatchAResolvedLossSurvivesACrashWithoutReportingAmnesiaAgain() {
        ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST);
        assertThat(log.amnesiaPossible()).isTrue();
        appendSynced(log, 3);
        log.amnesiaResolved();
        assertThat(dir.resolve(RunningMarker.FILE_NAME)).as("removed at once: every record is forced").doesNotExist();
        log.crashForTest();
        try (ChronicleDurableLog again = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST)) {
            assertThat(again.amnesiaPossible()).isFalse();
            assertThat(again.nextIndex()).isEqualTo(3);
        }
    }

    /**
     * The runtime resolves the amnesia after a step whose last records it appended without asking
     * for a sync (decisions learned in catch-up, say): the marker must still go once those records
     * are forced, or every later SIGKILL of this replica under EVERY_BATCH reports amnesia again,
     * and its peer recovery then needs a quorum of the others, which stalls the cluster while
     * another replica is down.
     */
    @Test
    void underEveryBatchALossResolvedBeforeTheLastSyncIsClearedByThatSync() {
        ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST);
        assertThat(log.amnesiaPossible()).isTrue();
        appendSynced(log, 2);
        log.append(ByteBuffer.wrap(new byte[]{7})); // appended, not yet synced
        log.amnesiaResolved();
        assertThat(log.amnesiaPossible()).isFalse();
        log.sync();
        assertThat(dir.resolve(RunningMarker.FILE_NAME)).as("removed by the sync that forced every record").doesNotExist();
        log.crashForTest();
        try (ChronicleDurableLog again = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST)) {
            assertThat(again.amnesiaPossible()).as("a crash after the recovery was resolved and synced").isFalse();
            assertThat(again.nextIndex()).isEqualTo(3);
        }
    }

    @Test
    void aWipeAfterUseIsDetectedAtTheNextOpen() throws Exception {
        try (ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.NEW)) {
            appendSynced(log, 4);
        }
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.delete(f);
            }
        }
        try (ChronicleDurableLog wiped = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST)) {
            assertThat(wiped.nextIndex()).isZero();
            assertThat(wiped.amnesiaPossible()).as("every promise and vote is gone").isTrue();
        }
    }

    @Test
    void aLogWithRecordsButNoMarkIsAnExistingLogAndGetsTheMark() throws Exception {
        try (ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.NEW)) {
            appendSynced(log, 2);
        }
        Files.delete(dir.resolve(CreationMark.FILE_NAME)); // as written before the mark existed
        try (ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH, EmptyDirectory.LOST)) {
            assertThat(log.amnesiaPossible()).isFalse();
            assertThat(log.nextIndex()).isEqualTo(2);
        }
        assertThat(dir.resolve(CreationMark.FILE_NAME)).exists();
    }
}
