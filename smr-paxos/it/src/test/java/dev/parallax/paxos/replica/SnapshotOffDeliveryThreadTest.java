package dev.parallax.paxos.replica;

import dev.parallax.core.SnapshotCapture;
import dev.parallax.core.StateMachine;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.session.ClientSessions;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.core.testkit.cluster.TextKv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshots written off the delivery thread, over three real replicas: while every replica's snapshot write is held on a latch
 * (as a slow disk would hold it), commands keep being ordered, executed and answered — the leader
 * keeps proposing — and once the writes go through, each snapshot holds the state as it was when
 * captured, and the snapshot that came due meanwhile is taken next. Before the hand-off the write
 * ran on the delivery thread, and the first command after the latch closed timed out.
 */
class SnapshotOffDeliveryThreadTest {
    private static final long EVERY = 50;
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The replica's default reply window, which its session table's snapshot records. */
    private static final int REPLY_WINDOW = 1024;

    /** {@link TextKv} whose capture copies its map and writes the copy once {@link #gate} opens. */
    private static final class GatedKv implements StateMachine {
        private final TextKv kv;
        private final CountDownLatch entered;
        private final CountDownLatch gate;
        /** What the captures froze, by size (every replica freezes the same state at a position). */
        final Map<Integer, Map<String, String>> captured;

        GatedKv(TextKv kv, CountDownLatch entered, CountDownLatch gate, Map<Integer, Map<String, String>> captured) {
            this.kv = kv;
            this.entered = entered;
            this.gate = gate;
            this.captured = captured;
        }

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return kv.execute(command);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            kv.snapshot(out);
        }

        @Override
        public SnapshotCapture capture() {
            TextKv frozen = new TextKv();
            frozen.data.putAll(kv.data);
            captured.putIfAbsent(frozen.data.size(), new TreeMap<>(frozen.data));
            return out -> {
                entered.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException("snapshot write abandoned");
                }
                frozen.snapshot(out);
            };
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            kv.restore(in);
        }
    }

    @Test
    void commandsAreOrderedExecutedAndAnsweredWhileEverySnapshotWriteIsHeld(@TempDir Path dir) throws Exception {
        CountDownLatch entered = new CountDownLatch(3);
        CountDownLatch gate = new CountDownLatch(1);
        Map<Integer, Map<String, String>> captured = new ConcurrentHashMap<>();
        try (LocalCluster cluster = PaxosClusters.of(3, kv -> new GatedKv((TextKv) kv, entered, gate, captured), 16 << 20,
                dir, EVERY)) {
            SmrClient client = cluster.client(Duration.ofSeconds(10));
            int i = 0;
            while (entered.getCount() > 0 && i < 10 * EVERY) {
                client.invoke(cmd("SET k" + i + " v" + i)).get(10, TimeUnit.SECONDS);
                i++;
            }
            assertThat(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("every replica is writing a snapshot").isTrue();
            double[] executedBefore = new double[3];
            for (int r = 0; r < 3; r++) {
                executedBefore[r] = counter(cluster.replicas.get(r), "parallax.commands.executed");
            }

            for (int j = 0; j < 4 * EVERY; j++, i++) {
                client.invoke(cmd("SET k" + i + " v" + i)).get(10, TimeUnit.SECONDS);
            }

            int written = i;
            for (int r = 0; r < 3; r++) {
                Replica replica = cluster.replicas.get(r);
                Await.until("replica " + r + " executed every command", WAIT,
                        () -> counter(replica, "parallax.commands.executed") >= written);
                assertThat(counter(replica, "parallax.commands.executed") - executedBefore[r])
                        .as("replica %d executed while its snapshot write was held", r).isGreaterThanOrEqualTo(4 * EVERY);
                assertThat(counter(replica, "parallax.snapshots.taken")).as("replica %d's write is still held", r).isZero();
                assertThat(counter(replica, "parallax.snapshots.deferred"))
                        .as("replica %d: the snapshots due meanwhile wait for the write in flight", r).isEqualTo(1.0);
            }

            gate.countDown();
            for (int r = 0; r < 3; r++) {
                Replica replica = cluster.replicas.get(r);
                Await.until("replica " + r + "'s first snapshot", WAIT, () -> counter(replica, "parallax.snapshots.taken") >= 1);
            }
            // The deferred snapshot is taken at the first delivery after the write ended.
            for (int r = 0; r < 3; r++) {
                Replica replica = cluster.replicas.get(r);
                int before = i;
                while (counter(replica, "parallax.snapshots.taken") < 2 && i < before + 10 * EVERY) {
                    client.invoke(cmd("SET k" + i + " v" + i)).get(10, TimeUnit.SECONDS);
                    i++;
                }
                Await.until("replica " + r + "'s deferred snapshot", WAIT, () -> counter(replica, "parallax.snapshots.taken") >= 2);
                assertThat(counter(replica, "parallax.snapshots.failed")).isZero();
            }

            Map<String, String> first = captured.values().stream().min((a, b) -> Integer.compare(a.size(), b.size()))
                    .orElseThrow();
            for (int r = 0; r < 3; r++) {
                SnapshotStore store = new SnapshotStore(dir.resolve("replica-" + r).resolve("snapshots"));
                SnapshotStore.Snapshot oldest = oldest(store);
                assertThat(oldest.instance()).as("replica %d's first snapshot point", r).isEqualTo(EVERY);
                assertThat(contents(store, oldest)).as("replica %d's first snapshot holds the state it captured, not the "
                        + "state when the write went through", r).isEqualTo(first);
            }
        } finally {
            gate.countDown();
        }
    }

    private static double counter(Replica r, String name) {
        return r.meterRegistry().get(name).counter().count();
    }

    /** The older of the two snapshots a store keeps. */
    private static SnapshotStore.Snapshot oldest(SnapshotStore store) throws IOException {
        try (var files = java.nio.file.Files.list(store.directory())) {
            Path p = files.filter(f -> f.getFileName().toString().endsWith(".snap")).sorted().findFirst().orElseThrow();
            return SnapshotStore.verify(p).orElseThrow();
        }
    }

    private static Map<String, String> contents(SnapshotStore store, SnapshotStore.Snapshot s) throws IOException {
        try (ReadableByteChannel in = store.openBody(s)) {
            DataInputStream d = new DataInputStream(Channels.newInputStream(in));
            new ClientSessions(REPLY_WINDOW, 16).readFrom(d);
            d.skipNBytes(d.readInt()); // the broadcast's delivery state (snapshot version 2)
            TextKv kv = new TextKv();
            kv.restore(in);
            return kv.data;
        }
    }
}
