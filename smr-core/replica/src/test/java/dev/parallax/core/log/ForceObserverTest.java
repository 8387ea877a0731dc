package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log tells its {@link ForceObserver} how long each force took, by the log's clock: once per
 * sync that forces, never for a sync with nothing new, nor under {@link SyncPolicy#NONE}, nor for
 * the forces at open.
 */
class ForceObserverTest {
    @TempDir
    Path dir;
    private final ManualClock clock = new ManualClock();
    private final List<Long> forces = new ArrayList<>();
    private ChronicleDurableLog log;

    /** A device whose every force takes 3 ms of the manual clock. */
    private final StorageIo slowDevice = new StorageIo() {
        @Override
        public long usableSpace(Path d) throws IOException {
            return SYSTEM.usableSpace(d);
        }

        @Override
        public void force(FileChannel channel) throws IOException {
            clock.advance(Duration.ofMillis(3));
            SYSTEM.force(channel);
        }
    };

    private ChronicleDurableLog open(SyncPolicy policy) {
        log = ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy).withClock(clock)
                .withForceObserver(forces::add), slowDevice);
        return log;
    }

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    @Test
    void eachForcingSyncIsTimedByTheLogsClock() {
        ChronicleDurableLog l = open(SyncPolicy.EVERY_BATCH);
        assertThat(forces).as("the forces at open are not reported").isEmpty();
        l.append(ByteBuffer.allocate(100));
        l.sync();
        assertThat(forces).as("the segment and the directory of the new segment file: two forces of 3 ms, one sync")
                .containsExactly(Duration.ofMillis(6).toNanos());
        l.append(ByteBuffer.allocate(100));
        l.sync();
        l.sync();
        assertThat(forces).as("one more force; a sync with nothing new forces nothing")
                .containsExactly(Duration.ofMillis(6).toNanos(), Duration.ofMillis(3).toNanos());
    }

    @Test
    void aLogThatNeverForcesReportsNothing() {
        ChronicleDurableLog l = open(SyncPolicy.NONE);
        l.append(ByteBuffer.allocate(100));
        l.sync();
        assertThat(forces).isEmpty();
    }
}
