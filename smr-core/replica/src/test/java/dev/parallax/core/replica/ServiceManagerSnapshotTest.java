package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.snapshot.SnapshotStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** When the ServiceManager snapshots (instance count or decided bytes), and what a failed snapshot leaves. */
class ServiceManagerSnapshotTest {
    private static final int PAYLOAD = 280;
    /** One command of {@link #PAYLOAD} bytes in a batch. */
    private static final int BATCH_BYTES = CommandBatch.encodedSize(1, PAYLOAD);

    /** Counts commands; its snapshot is the count, or fails when told to. */
    private static final class Counting implements StateMachine {
        long executed;
        boolean failSnapshots;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            executed++;
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            if (failSnapshots) {
                throw new IOException("injected: disk full");
            }
            out.write(ByteBuffer.allocate(8).putLong(0, executed));
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(8);
            in.read(b);
            executed = b.getLong(0);
        }
    }

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final SequentialExecutor executor = new SequentialExecutor();

    private ServiceManager manager(Counting sm, SnapshotStore store, long every, long bytes) {
        ServiceManager m = new ServiceManager(new ClientSessions(16, 16), executor, new ReplyRouter(), registry, 0, sm, store,
                every, bytes);
        executor.start(sm, m);
        return m;
    }

    private static ByteBuffer batch(long sequence) {
        return CommandBatch.encode(List.of(new Command(new CommandId(7, sequence), ByteBuffer.allocate(PAYLOAD))));
    }

    private double count(String name) {
        return registry.get(name).counter().count();
    }

    private static void awaitWritten(ServiceManager m) throws InterruptedException {
        assertThat(m.awaitSnapshotWritten(Duration.ofSeconds(30))).as("the snapshot write ended").isTrue();
    }

    @Test
    void aSnapshotIsTakenWhenTheDecidedBytesReachTheThresholdBeforeTheInstanceCount(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir);
        ServiceManager m = manager(new Counting(), store, 1_000_000, 4L * BATCH_BYTES);
        for (long i = 0; i < 3; i++) {
            m.deliver(i, batch(i + 1));
        }
        assertThat(count("parallax.snapshots.taken")).as("3 batches are below the byte threshold").isZero();
        m.deliver(3, batch(4));
        awaitWritten(m);
        assertThat(count("parallax.snapshots.taken")).isEqualTo(1.0);
        assertThat(store.latest()).map(SnapshotStore.Snapshot::instance).contains(4L);
        for (long i = 4; i < 7; i++) {
            m.deliver(i, batch(i + 1));
        }
        assertThat(count("parallax.snapshots.taken")).as("the byte count restarts after a snapshot").isEqualTo(1.0);
        m.deliver(7, batch(8));
        awaitWritten(m);
        assertThat(count("parallax.snapshots.taken")).isEqualTo(2.0);
        assertThat(store.latest()).map(SnapshotStore.Snapshot::instance).contains(8L);
    }

    @Test
    void theInstanceCountStillTriggersWhenItComesFirst(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir);
        ServiceManager m = manager(new Counting(), store, 5, Long.MAX_VALUE);
        for (long i = 0; i < 5; i++) {
            m.deliver(i, batch(i + 1));
        }
        awaitWritten(m);
        assertThat(count("parallax.snapshots.taken")).isEqualTo(1.0);
        assertThat(store.latest()).map(SnapshotStore.Snapshot::instance).contains(5L);
    }

    @Test
    void aFailedSnapshotIsCountedAndDeliveryGoesOn(@TempDir Path dir) throws Exception {
        Counting sm = new Counting();
        sm.failSnapshots = true;
        SnapshotStore store = new SnapshotStore(dir);
        ServiceManager m = manager(sm, store, 2, Long.MAX_VALUE);
        for (long i = 0; i < 4; i++) {
            m.deliver(i, batch(i + 1));
        }
        assertThat(count("parallax.snapshots.failed")).isEqualTo(2.0);
        assertThat(count("parallax.snapshots.taken")).isZero();
        assertThat(store.latest()).as("no partial snapshot left").isEmpty();
        assertThat(sm.executed).as("every command still ran").isEqualTo(4);

        sm.failSnapshots = false;
        m.deliver(4, batch(5));
        m.deliver(5, batch(6));
        awaitWritten(m);
        assertThat(count("parallax.snapshots.taken")).as("the next interval snapshots again").isEqualTo(1.0);
        assertThat(count("parallax.snapshots.failed")).isEqualTo(2.0);
    }

    @Test
    void aRequestedSnapshotIsTakenAfterTheNextDeliveryOnly(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir);
        ServiceManager m = manager(new Counting(), store, 1_000_000, Long.MAX_VALUE);
        m.deliver(0, batch(1));
        m.deliver(1, batch(2));
        assertThat(m.executedBelow()).isEqualTo(2);
        m.requestSnapshot();
        assertThat(count("parallax.snapshots.taken")).as("nothing is taken off the delivery thread").isZero();
        m.deliver(2, batch(3));
        awaitWritten(m);
        assertThat(count("parallax.snapshots.taken")).isEqualTo(1.0);
        assertThat(store.latest()).map(SnapshotStore.Snapshot::instance).contains(3L);
        m.deliver(3, batch(4));
        awaitWritten(m);
        assertThat(count("parallax.snapshots.taken")).as("one request, one snapshot").isEqualTo(1.0);
        assertThat(m.executedBelow()).isEqualTo(4);
    }

    @Test
    void aSnapshotRequestToAReplicaWithoutADataDirectoryIsRefusedWithTheReason() {
        ServiceManager m = manager(new Counting(), null, 5, Long.MAX_VALUE);
        org.assertj.core.api.Assertions.assertThatThrownBy(m::requestSnapshot)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no data directory");
    }
}
