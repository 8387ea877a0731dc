package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.SnapshotCapture;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quiescent hand-off of snapshots: the delivery thread captures the state and
 * goes on while the writer thread writes it; a snapshot due meanwhile is deferred, not lost; the
 * broadcast hears of a snapshot only once it is durable, on the writer thread; install and close
 * abandon a write in flight and leave nothing half-written behind. Here the test thread is the
 * delivery thread, so a {@code deliver} that returns while the write is held is the proof that the
 * write is off that thread.
 */
class SnapshotHandOffTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** Counts commands; its capture writes the count on the writer thread once {@link #gate} opens. */
    private static final class GatedCounter implements StateMachine {
        volatile long executed;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        volatile boolean failWrites;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            executed++;
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            write(out, executed);
        }

        @Override
        public SnapshotCapture capture() {
            long frozen = executed;
            return out -> {
                entered.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException("writer interrupted");
                }
                if (failWrites) {
                    throw new IOException("injected: disk full");
                }
                write(out, frozen);
            };
        }

        static void write(WritableByteChannel out, long count) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(8).putLong(0, count);
            while (b.hasRemaining()) {
                out.write(b);
            }
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            executed = new DataInputStream(Channels.newInputStream(in)).readLong();
        }
    }

    /** Records what the ServiceManager tells a broadcast about snapshots, and on which thread. */
    private static final class RecordingBroadcast implements AtomicBroadcast {
        final List<String> events = new CopyOnWriteArrayList<>();
        final SnapshotStore store;

        RecordingBroadcast(SnapshotStore store) {
            this.store = store;
        }

        @Override
        public void snapshotTaken(long nextSequence) {
            long durable = store.latest().map(SnapshotStore.Snapshot::instance).orElse(-1L);
            events.add("taken " + nextSequence + " (latest on disk " + durable + ") on " + Thread.currentThread().getName());
        }

        @Override
        public void snapshotInstalled(long nextSequence) {
            events.add("installed " + nextSequence);
        }

        @Override
        public void start(DeliveryListener listener) {
            throw new UnsupportedOperationException("the test delivers by hand");
        }

        @Override
        public boolean propose(ByteBuffer value) {
            throw new UnsupportedOperationException("the test delivers by hand");
        }

        @Override
        public int redirectHint() {
            return ANY_REPLICA;
        }

        @Override
        public void close() {
        }
    }

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final SequentialExecutor executor = new SequentialExecutor();

    private ServiceManager manager(StateMachine sm, SnapshotStore store, long every, AtomicBroadcast broadcast) {
        ServiceManager m = new ServiceManager(new ClientSessions(16, 16), executor, new ReplyRouter(), registry, 0, sm, store,
                every, Long.MAX_VALUE);
        m.broadcast(broadcast);
        executor.start(sm, m);
        return m;
    }

    private static ByteBuffer batch(long sequence) {
        return CommandBatch.encode(List.of(new Command(new CommandId(7, sequence), ByteBuffer.allocate(16))));
    }

    private double count(String name) {
        return registry.get(name).counter().count();
    }

    private static void deliver(ServiceManager m, long from, long to) throws InterruptedException {
        for (long i = from; i < to; i++) {
            m.deliver(i, batch(i + 1));
        }
    }

    private static long storedCount(SnapshotStore store, SnapshotStore.Snapshot s) throws IOException {
        try (ReadableByteChannel in = store.openBody(s)) {
            DataInputStream d = new DataInputStream(Channels.newInputStream(in));
            new ClientSessions(16, 16).readFrom(d);
            d.skipNBytes(d.readInt()); // the broadcast's delivery state (version 2)
            return d.readLong();
        }
    }

    private static List<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void deliveryGoesOnWhileTheWriteIsHeldAndASnapshotDueMeanwhileIsDeferredNotSkipped(@TempDir Path dir)
            throws Exception {
        GatedCounter sm = new GatedCounter();
        SnapshotStore store = new SnapshotStore(dir);
        RecordingBroadcast broadcast = new RecordingBroadcast(store);
        ServiceManager m = manager(sm, store, 2, broadcast);

        deliver(m, 0, 2); // a snapshot at 2 is captured and handed over
        assertThat(sm.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the writer thread started writing").isTrue();
        deliver(m, 2, 8); // snapshots due at 4 and 6 find the write in flight
        assertThat(sm.executed).as("every command executed while the write was held").isEqualTo(8);
        assertThat(count("parallax.snapshots.taken")).isZero();
        assertThat(count("parallax.snapshots.deferred")).as("one deferral per write in flight").isEqualTo(1.0);
        assertThat(broadcast.events).as("no compaction before the snapshot is durable").isEmpty();

        sm.gate.countDown();
        assertThat(m.awaitSnapshotWritten(WAIT)).isTrue();
        assertThat(count("parallax.snapshots.taken")).isEqualTo(1.0);
        SnapshotStore.Snapshot first = store.latest().orElseThrow();
        assertThat(first.instance()).isEqualTo(2);
        assertThat(storedCount(store, first)).as("the state as captured at 2, not as it was when written").isEqualTo(2);
        assertThat(broadcast.events).containsExactly("taken 2 (latest on disk 2) on replica-0-snapshot-writer");

        m.deliver(8, batch(9)); // the deferred snapshot: due since 4, taken at the first delivery after the write
        assertThat(m.awaitSnapshotWritten(WAIT)).isTrue();
        assertThat(store.latest().map(SnapshotStore.Snapshot::instance)).contains(9L);
        assertThat(storedCount(store, store.latest().orElseThrow())).isEqualTo(9);
        assertThat(broadcast.events).last().isEqualTo("taken 9 (latest on disk 9) on replica-0-snapshot-writer");
        assertThat(count("parallax.snapshots.taken")).isEqualTo(2.0);
        assertThat(registry.get("parallax.snapshots.write").timer().count()).isEqualTo(2);
        assertThat(registry.get("parallax.snapshots.capture").timer().count()).isEqualTo(2);
        m.close();
    }

    @Test
    void aWriteThatFailsOnTheWriterThreadIsCountedAndNothingIsCompacted(@TempDir Path dir) throws Exception {
        GatedCounter sm = new GatedCounter();
        sm.failWrites = true;
        sm.gate.countDown();
        SnapshotStore store = new SnapshotStore(dir);
        RecordingBroadcast broadcast = new RecordingBroadcast(store);
        ServiceManager m = manager(sm, store, 2, broadcast);

        deliver(m, 0, 2);
        assertThat(m.awaitSnapshotWritten(WAIT)).isTrue();
        assertThat(count("parallax.snapshots.failed")).isEqualTo(1.0);
        assertThat(count("parallax.snapshots.taken")).isZero();
        assertThat(broadcast.events).as("the log stays uncompacted").isEmpty();
        assertThat(files(dir)).as("no temporary or partial file left").isEmpty();

        sm.failWrites = false;
        deliver(m, 2, 4);
        assertThat(m.awaitSnapshotWritten(WAIT)).isTrue();
        assertThat(count("parallax.snapshots.taken")).as("the next interval snapshots again").isEqualTo(1.0);
        assertThat(store.latest().map(SnapshotStore.Snapshot::instance)).contains(4L);
        m.close();
    }

    @Test
    void aDefaultCaptureThatRunsOutOfHeapFailsThatSnapshotAndDeliveryGoesOn(@TempDir Path dir) throws Exception {
        GatedCounter counter = new GatedCounter();
        StateMachine hungry = new StateMachine() {
            @Override
            public ByteBuffer execute(ByteBuffer command) {
                return counter.execute(command);
            }

            @Override
            public void snapshot(WritableByteChannel out) {
                throw new OutOfMemoryError("injected: Java heap space");
            }

            @Override
            public void restore(ReadableByteChannel in) throws IOException {
                counter.restore(in);
            }
        };
        SnapshotStore store = new SnapshotStore(dir);
        RecordingBroadcast broadcast = new RecordingBroadcast(store);
        ServiceManager m = manager(hungry, store, 2, broadcast);

        deliver(m, 0, 5);
        assertThat(counter.executed).isEqualTo(5);
        assertThat(count("parallax.snapshots.failed")).as("snapshots due at 2 and 4").isEqualTo(2.0);
        assertThat(count("parallax.snapshots.taken")).isZero();
        assertThat(m.failure()).as("the replica stays healthy").isNull();
        assertThat(broadcast.events).isEmpty();
        assertThat(files(dir)).isEmpty();
        m.close();
    }

    @Test
    void anInstallAbandonsTheOlderWriteInFlightAndRestoresOnlyAfterItEnded(@TempDir Path dir) throws Exception {
        GatedCounter sm = new GatedCounter();
        SnapshotStore store = new SnapshotStore(dir);
        RecordingBroadcast broadcast = new RecordingBroadcast(store);
        ServiceManager m = manager(sm, store, 2, broadcast);
        deliver(m, 0, 2);
        assertThat(sm.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // A newer snapshot arrives (as SnapshotTransfer puts it into the store) while the write at 2 is held.
        SnapshotStore.Snapshot newer = store.write(100, out -> {
            DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
            new ClientSessions(16, 16).writeTo(d);
            d.writeInt(0); // no delivery state (version 2 layout)
            d.writeLong(100);
            d.flush();
        });
        m.install(newer);

        assertThat(sm.executed).as("restored from the newer snapshot").isEqualTo(100);
        assertThat(count("parallax.snapshots.abandoned")).isEqualTo(1.0);
        assertThat(count("parallax.snapshots.taken")).isZero();
        assertThat(count("parallax.snapshots.failed")).isZero();
        assertThat(broadcast.events).as("the abandoned write compacts nothing").containsExactly("installed 100");
        assertThat(files(dir)).containsExactly(String.format("snapshot-%020d.snap", 100));

        deliver(m, 100, 102); // the next snapshot, at 102, is held like the first: close abandons it
        assertThat(m.awaitSnapshotWritten(Duration.ZERO)).as("a write at 102 is in flight").isFalse();
        m.close();
        assertThat(count("parallax.snapshots.abandoned")).isEqualTo(2.0);
        assertThat(files(dir)).containsExactly(String.format("snapshot-%020d.snap", 100));
    }

    @Test
    void closeAbandonsTheWriteInFlightAndLeavesNoHalfWrittenSnapshot(@TempDir Path dir) throws Exception {
        GatedCounter sm = new GatedCounter();
        SnapshotStore store = new SnapshotStore(dir);
        RecordingBroadcast broadcast = new RecordingBroadcast(store);
        ServiceManager m = manager(sm, store, 2, broadcast);
        deliver(m, 0, 2);
        assertThat(sm.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        m.close();

        assertThat(m.awaitSnapshotWritten(Duration.ZERO)).as("close waited for the writer thread to end").isTrue();
        assertThat(count("parallax.snapshots.abandoned")).isEqualTo(1.0);
        assertThat(count("parallax.snapshots.taken")).isZero();
        assertThat(count("parallax.snapshots.failed")).isZero();
        assertThat(broadcast.events).isEmpty();
        assertThat(files(dir)).as("neither the snapshot nor its temporary file").isEmpty();
        assertThat(store.latest()).isEmpty();
    }
}
