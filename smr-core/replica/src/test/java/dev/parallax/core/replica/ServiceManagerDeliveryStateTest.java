package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The broadcast's delivery state travels in the snapshot (runtime change R2 of the S-Paxos plan):
 * read on the delivery thread as of the snapshot's position, handed back on install, empty for a
 * version 1 snapshot. Dedup state is replicated state: S-Paxos' executed ids (seed 002 (S-Paxos)
 * §IV-B a, footnote 5) must be identical at a replica that installed a snapshot.
 */
class ServiceManagerDeliveryStateTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** Counts commands; its snapshot is the count. */
    private static final class Counting implements StateMachine {
        long executed;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            executed++;
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(8).putLong(0, executed);
            while (b.hasRemaining()) {
                out.write(b);
            }
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(8);
            while (b.hasRemaining() && in.read(b) >= 0) {
                // read the count
            }
            executed = b.getLong(0);
        }
    }

    /**
     * A broadcast whose delivery state is what it delivered so far (as S-Paxos' execution mirror is
     * updated before the listener sees a delivery), and which records what it is told.
     */
    private static final class StatefulBroadcast implements AtomicBroadcast {
        volatile String delivered = "";
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public byte[] deliveryState() {
            events.add("state read on " + Thread.currentThread().getName());
            return delivered.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void snapshotInstalled(long nextSequence, byte[] deliveryState) {
            events.add("installed " + nextSequence + " with [" + new String(deliveryState, StandardCharsets.UTF_8) + "]");
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

    private ServiceManager manager(Counting sm, SnapshotStore store, long every, AtomicBroadcast broadcast) {
        SequentialExecutor executor = new SequentialExecutor();
        ServiceManager m = new ServiceManager(new ClientSessions(16, 16), executor, new ReplyRouter(), new SimpleMeterRegistry(),
                0, sm, store, every, Long.MAX_VALUE);
        m.broadcast(broadcast);
        executor.start(sm, m);
        open.add(executor);
        open.add(m);
        return m;
    }

    private static ByteBuffer batch(long sequence) {
        return CommandBatch.encode(List.of(new Command(new CommandId(7, sequence), ByteBuffer.allocate(16))));
    }

    /** Delivers {@code [from, to)}, the broadcast's state naming every delivered position first. */
    private static void deliver(ServiceManager m, StatefulBroadcast b, long from, long to) throws InterruptedException {
        for (long i = from; i < to; i++) {
            b.delivered = b.delivered + i + ";";
            m.deliver(i, batch(i + 1));
        }
    }

    @Test
    @DisplayName("the snapshot carries the delivery state as of its position, read on the delivery thread, and install hands it back")
    void deliveryStateRoundTrip(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir.resolve("a"));
        StatefulBroadcast source = new StatefulBroadcast();
        ServiceManager m = manager(new Counting(), store, 5, source);
        deliver(m, source, 0, 7);
        assertThat(m.awaitSnapshotWritten(Duration.ofSeconds(30))).isTrue();
        SnapshotStore.Snapshot s = store.latest().orElseThrow();
        assertThat(s.instance()).isEqualTo(5);
        assertThat(s.version()).isEqualTo(2);
        assertThat(source.events).containsExactly("state read on " + Thread.currentThread().getName());

        Counting restored = new Counting();
        StatefulBroadcast target = new StatefulBroadcast();
        ServiceManager fresh = manager(restored, new SnapshotStore(dir.resolve("b")), 1000, target);
        fresh.install(s);
        assertThat(target.events).containsExactly("installed 5 with [0;1;2;3;4;]");
        assertThat(restored.executed).as("the state machine's part follows the delivery state").isEqualTo(5);
        fresh.deliver(5, batch(6));
        assertThat(restored.executed).isEqualTo(6);
    }

    @Test
    @DisplayName("a version 1 snapshot (no delivery state) installs with an empty state")
    void versionOneInstallsWithEmptyState(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir);
        ClientSessions sessions = new ClientSessions(16, 16);
        sessions.admit(new CommandId(7, 1));
        SnapshotStore.Snapshot written = store.write(20, out -> {
            DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
            sessions.writeTo(d);
            d.writeLong(20);
            d.flush();
        });
        // The layout of version 1 is the same; only its body lacks the delivery state.
        try (FileChannel ch = FileChannel.open(written.file(), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).putInt(0, 1), 4);
        }
        SnapshotStore.Snapshot v1 = store.latest().orElseThrow();
        assertThat(v1.version()).isEqualTo(1);

        Counting restored = new Counting();
        StatefulBroadcast target = new StatefulBroadcast();
        ServiceManager m = manager(restored, new SnapshotStore(dir.resolve("b")), 1000, target);
        m.install(v1);
        assertThat(target.events).containsExactly("installed 20 with []");
        assertThat(restored.executed).isEqualTo(20);
    }

    @Test
    @DisplayName("a delivery state length that does not fit the body is refused with a clear error")
    void malformedLengthIsRefused(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir);
        SnapshotStore.Snapshot bad = store.write(9, out -> {
            DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
            new ClientSessions(16, 16).writeTo(d);
            d.writeInt(Integer.MAX_VALUE);
            d.writeLong(9);
            d.flush();
        });
        StatefulBroadcast target = new StatefulBroadcast();
        ServiceManager m = manager(new Counting(), new SnapshotStore(dir.resolve("b")), 1000, target);
        assertThatThrownBy(() -> m.install(bad)).isInstanceOf(IOException.class).hasMessageContaining("delivery state");
        assertThat(target.events).isEmpty();
        assertThat(Files.exists(bad.file())).isTrue();
    }
}
