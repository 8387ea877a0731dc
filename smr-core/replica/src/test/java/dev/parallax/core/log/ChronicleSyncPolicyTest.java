package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLogException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What each {@link SyncPolicy} forces to the device, counted through an instrumented {@link StorageIo}. */
class ChronicleSyncPolicyTest {
    @TempDir
    Path dir;
    private final FaultyStorageIo io = new FaultyStorageIo();
    private final ManualClock clock = new ManualClock();
    private ChronicleDurableLog log;

    private ChronicleDurableLog open(SyncPolicy policy) {
        log = ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy)
                .withSyncInterval(Duration.ofMillis(10)).withClock(clock), io);
        return log;
    }

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private static void append(ChronicleDurableLog l, int n) {
        for (int i = 0; i < n; i++) {
            l.append(ByteBuffer.allocate(100));
        }
    }

    @Test
    void everyBatchForcesOncePerSyncWhateverTheBatchSize() {
        ChronicleDurableLog l = open(SyncPolicy.EVERY_BATCH);
        int atOpen = io.forces();
        append(l, 100);
        l.sync();
        int first = io.forces() - atOpen;
        assertThat(first).as("the segment, and the directory for the new segment file").isEqualTo(2);
        assertThat(l.durableIndex()).isEqualTo(100);
        append(l, 1_000);
        l.sync();
        assertThat(io.forces() - atOpen - first).as("one force covers the whole batch").isEqualTo(1);
        assertThat(l.durableIndex()).isEqualTo(1_100);
        l.sync();
        assertThat(io.forces() - atOpen - first).as("nothing new, nothing forced").isEqualTo(1);
    }

    @Test
    void periodicForcesOnlyOnceTheIntervalHasPassed() {
        ChronicleDurableLog l = open(SyncPolicy.PERIODIC);
        append(l, 10);
        l.sync();
        assertThat(l.durableIndex()).as("the first sync after open forces").isEqualTo(10);
        int forced = io.forces();
        append(l, 10);
        clock.advance(Duration.ofMillis(9));
        l.sync();
        assertThat(io.forces()).isEqualTo(forced);
        assertThat(l.durableIndex()).as("not forced: not durable").isEqualTo(10);
        clock.advance(Duration.ofMillis(1));
        append(l, 5);
        l.sync();
        assertThat(io.forces()).isEqualTo(forced + 1);
        assertThat(l.durableIndex()).isEqualTo(25);
    }

    @Test
    void periodicReportsADeviceErrorAtTheNextForce() {
        ChronicleDurableLog l = open(SyncPolicy.PERIODIC);
        append(l, 1);
        l.sync();
        io.failForces();
        append(l, 1);
        l.sync();
        clock.advance(Duration.ofMillis(10));
        assertThatThrownBy(l::sync).isInstanceOf(DurableLogException.class);
        assertThat(l.durableIndex()).isEqualTo(1);
    }

    @Test
    void noneNeverForcesRecordsButDoesForceATruncation() {
        ChronicleDurableLog l = open(SyncPolicy.NONE);
        int atOpen = io.forces(); // the directory, for the running marker
        append(l, 100);
        l.sync();
        assertThat(io.forces() - atOpen).isZero();
        assertThat(l.durableIndex()).isEqualTo(100);
        l.truncateBefore(50);
        l.sync();
        assertThat(io.forces() - atOpen).as("the first-index file and its directory").isEqualTo(2);
        l.close();
        assertThat(open(SyncPolicy.NONE).firstIndex()).isEqualTo(50);
    }

    @Test
    void openForcesWhatItFindsUnlessThePolicyIsNone() {
        ChronicleDurableLog l = open(SyncPolicy.NONE);
        int atOpen = io.forces(); // the directory, for the running marker
        append(l, 10);
        l.sync();
        l.crashForTest(); // a clean close would force
        assertThat(io.forces() - atOpen).isZero();
        ChronicleDurableLog reopened = open(SyncPolicy.EVERY_BATCH);
        assertThat(io.forces() - atOpen).as("the segment and the directory").isEqualTo(2);
        assertThat(reopened.durableIndex()).isEqualTo(10);
    }
}
