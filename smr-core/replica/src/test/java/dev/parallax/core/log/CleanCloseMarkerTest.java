package dev.parallax.core.log;

import dev.parallax.core.log.memory.InMemoryDurableLog;

import dev.parallax.core.spi.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The running marker ({@link RunningMarker}) behind {@code DurableLog.amnesiaPossible()}: under
 * PERIODIC and NONE a log that was not closed cleanly reports possible amnesia at the next open,
 * until the caller resolves it; EVERY_BATCH never does. Also the in-memory log's model of it.
 */
class CleanCloseMarkerTest {
    @TempDir
    Path dir;

    private final FaultyStorageIo io = new FaultyStorageIo();

    private ChronicleDurableLog open(SyncPolicy policy) {
        return ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy), io);
    }

    private static void appendSynced(ChronicleDurableLog log, int count) {
        for (int i = 0; i < count; i++) {
            log.append(ByteBuffer.wrap(new byte[]{(byte) i}));
        }
        log.sync();
    }

    @Test
    void aNewLogReportsNoAmnesiaAndMarksItselfRunning() {
        try (ChronicleDurableLog log = open(SyncPolicy.NONE)) {
            assertThat(log.amnesiaPossible()).isFalse();
            assertThat(dir.resolve(RunningMarker.FILE_NAME)).exists();
        }
    }

    @Test
    void aCleanCloseUnderNoneForcesTheRecordsAndRemovesTheMarker() {
        ChronicleDurableLog log = open(SyncPolicy.NONE);
        appendSynced(log, 5);
        int forcesBefore = io.forces();
        log.close();
        assertThat(io.forces()).as("the final force of a clean close").isGreaterThan(forcesBefore);
        assertThat(dir.resolve(RunningMarker.FILE_NAME)).doesNotExist();
        try (ChronicleDurableLog again = open(SyncPolicy.NONE)) {
            assertThat(again.amnesiaPossible()).isFalse();
            assertThat(again.nextIndex()).isEqualTo(5);
        }
    }

    @Test
    void aCrashUnderNoneOrPeriodicMakesTheNextOpenReportAmnesia() {
        for (SyncPolicy policy : new SyncPolicy[]{SyncPolicy.NONE, SyncPolicy.PERIODIC}) {
            ChronicleDurableLog log = open(policy);
            appendSynced(log, 3);
            log.crashForTest();
            try (ChronicleDurableLog again = open(policy)) {
                assertThat(again.amnesiaPossible()).as(policy.name()).isTrue();
                again.amnesiaResolved();
                assertThat(again.amnesiaPossible()).isFalse();
            }
            try (ChronicleDurableLog third = open(policy)) {
                assertThat(third.amnesiaPossible()).as("resolved, then closed cleanly: " + policy).isFalse();
            }
        }
    }

    @Test
    void anUnresolvedAmnesiaSurvivesACleanClose() {
        open(SyncPolicy.NONE).crashForTest();
        open(SyncPolicy.NONE).close();
        try (ChronicleDurableLog log = open(SyncPolicy.NONE)) {
            assertThat(log.amnesiaPossible()).as("the recovery never finished, so the state is still incomplete").isTrue();
        }
    }

    @Test
    void aCrashAfterACleanReopenIsStillDetected() {
        open(SyncPolicy.NONE).close();
        ChronicleDurableLog log = open(SyncPolicy.NONE);
        appendSynced(log, 2);
        log.crashForTest();
        try (ChronicleDurableLog again = open(SyncPolicy.NONE)) {
            assertThat(again.amnesiaPossible()).isTrue();
        }
    }

    @Test
    void everyBatchNeverPlacesTheMarkerButHonoursOneLeftByAnEarlierPolicy() throws Exception {
        ChronicleDurableLog log = open(SyncPolicy.EVERY_BATCH);
        appendSynced(log, 2);
        log.crashForTest();
        try (ChronicleDurableLog again = open(SyncPolicy.EVERY_BATCH)) {
            assertThat(again.amnesiaPossible()).isFalse();
            assertThat(dir.resolve(RunningMarker.FILE_NAME)).doesNotExist();
        }
        open(SyncPolicy.NONE).crashForTest();
        try (ChronicleDurableLog switched = open(SyncPolicy.EVERY_BATCH)) {
            assertThat(switched.amnesiaPossible()).as("records lost under NONE stay lost under EVERY_BATCH").isTrue();
            switched.amnesiaResolved();
        }
        assertThat(Files.exists(dir.resolve(RunningMarker.FILE_NAME))).isFalse();
    }

    @Test
    void aFailedFinalForceLeavesTheMarker() {
        ChronicleDurableLog log = open(SyncPolicy.NONE);
        appendSynced(log, 2);
        io.failForces();
        log.close();
        assertThat(dir.resolve(RunningMarker.FILE_NAME)).exists();
    }

    @Test
    void inMemoryStorageThatDoesNotForceLosesSyncedRecordsAndReportsAmnesia() {
        InMemoryDurableLog.Storage storage = new InMemoryDurableLog.Storage();
        storage.syncReachesDevice(false);
        InMemoryDurableLog log = InMemoryDurableLog.open(storage);
        assertThat(log.amnesiaPossible()).isFalse();
        log.append(ByteBuffer.wrap(new byte[]{1}));
        log.close();
        log = InMemoryDurableLog.open(storage);
        assertThat(log.amnesiaPossible()).as("clean close").isFalse();
        log.append(ByteBuffer.wrap(new byte[]{2}));
        log.append(ByteBuffer.wrap(new byte[]{3}));
        log.sync();
        assertThat(storage.unsyncedCount()).as("synced but not forced").isEqualTo(2);
        storage.crash(0);
        log = InMemoryDurableLog.open(storage);
        assertThat(log.nextIndex()).as("only what the clean close forced survived").isEqualTo(1);
        assertThat(log.amnesiaPossible()).isTrue();
        log.close();
        assertThat(InMemoryDurableLog.open(storage).amnesiaPossible()).as("unresolved amnesia survives a clean close").isTrue();
    }

    @Test
    void inMemoryStorageThatForcesKeepsTheContract() {
        InMemoryDurableLog.Storage storage = new InMemoryDurableLog.Storage();
        InMemoryDurableLog log = InMemoryDurableLog.open(storage);
        log.append(ByteBuffer.wrap(new byte[]{1}));
        log.sync();
        storage.crash(0);
        log = InMemoryDurableLog.open(storage);
        assertThat(log.nextIndex()).isEqualTo(1);
        assertThat(log.amnesiaPossible()).isFalse();
    }
}
