package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.core.spi.WorkerExecutor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ServiceManager's per-worker lanes ({@link WorkerLanes}, P-SMR: seed 003 (Ring Paxos /
 * Multi-Ring / P-SMR) ch. 6), driven by hand on two lane threads with a two-worker executor whose
 * shared commands meet on a barrier: commands filtered to their workers, malformed batches counted
 * and passed, empty batches to every group taken as snapshot barriers (and others ignored), session
 * tables per worker in the snapshot, and snapshots of the other execution refused on install.
 */
class WorkerLanesTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** Key -> value, one map entry per key; safe for concurrent commands on different keys. */
    private static final class Register implements StateMachine {
        final Map<String, String> data = new ConcurrentHashMap<>();

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            String[] kv = StandardCharsets.UTF_8.decode(command).toString().split("=", 2);
            if (kv[0].equals("boom")) {
                throw new IllegalArgumentException("boom");
            }
            return ByteBuffer.wrap(String.valueOf(data.put(kv[0], kv[1])).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            out.write(ByteBuffer.wrap(new java.util.TreeMap<>(data).toString().getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            data.clear();
            java.io.InputStream s = java.nio.channels.Channels.newInputStream(in);
            String text = new String(s.readAllBytes(), StandardCharsets.UTF_8);
            for (String e : text.substring(1, text.length() - 1).split(", ")) {
                if (!e.isEmpty()) {
                    String[] kv = e.split("=", 2);
                    data.put(kv[0], kv[1]);
                }
            }
        }
    }

    /**
     * Two workers, group g to worker g mod 2; a command of both workers executes on worker 0 once
     * both arrived (a cyclic barrier), then both leave together.
     */
    private static final class TwoWorkers implements WorkerExecutor {
        private final CyclicBarrier meet = new CyclicBarrier(2);
        private StateMachine machine;
        private ResultSink results;
        private Admission admission;
        volatile boolean released;

        @Override
        public int workers() {
            return 2;
        }

        @Override
        public long workersOf(GroupSet groups) {
            long mask = 0;
            for (int g = groups.first(); g >= 0; g = groups.next(g)) {
                mask |= 1L << (g % 2);
            }
            return mask;
        }

        @Override
        public int executorOf(GroupSet groups) {
            return Long.numberOfTrailingZeros(workersOf(groups));
        }

        @Override
        public void startPerWorker(StateMachine stateMachine, ResultSink results, Admission admission) {
            this.machine = stateMachine;
            this.results = results;
            this.admission = admission;
        }

        @Override
        public void deliver(int worker, Command command) throws InterruptedException {
            if (released) {
                throw new IllegalStateException("released");
            }
            long w = workersOf(command.groups());
            if (w == 3) {
                await();
            }
            if (worker == executorOf(command.groups()) && admission.admit(command)) {
                results.onResult(command, SequentialExecutor.run(machine, command));
            }
            if (w == 3) {
                await();
            }
        }

        private void await() throws InterruptedException {
            try {
                meet.await(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.BrokenBarrierException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void releaseWorkers() {
            released = true;
        }

        @Override
        public void restartWorkers() {
            released = false;
        }

        @Override
        public void start(StateMachine stateMachine, ResultSink results) {
            throw new UnsupportedOperationException("per worker only");
        }

        @Override
        public void execute(Command command) {
            throw new UnsupportedOperationException("per worker only");
        }

        @Override
        public void awaitQuiescence() {
            throw new UnsupportedOperationException("per worker only");
        }

        @Override
        public void close() {
        }
    }

    /** Records proposals (the barriers the lanes ask for) and the delivery state it is asked for. */
    private static final class PerWorkerBroadcast implements AtomicBroadcast {
        final List<ByteBuffer> proposed = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile byte[] installed;

        @Override
        public boolean deliversPerWorker() {
            return true;
        }

        @Override
        public byte[] deliveryState() {
            return "cut".getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void snapshotInstalled(long nextSequence, byte[] deliveryState) {
            installed = deliveryState;
        }

        @Override
        public int lanes() {
            return 3;
        }

        @Override
        public int laneOf(GroupSet groups) {
            return groups.size() > 1 ? 2 : groups.first();
        }

        @Override
        public boolean propose(int lane, ByteBuffer value) {
            proposed.add(value);
            return true;
        }

        @Override
        public void start(DeliveryListener listener) {
            throw new UnsupportedOperationException("the test delivers by hand");
        }

        @Override
        public boolean propose(ByteBuffer value) {
            return propose(0, value);
        }

        @Override
        public int redirectHint() {
            return ANY_REPLICA;
        }

        @Override
        public void close() {
        }
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private ServiceManager perWorker(Register machine, TwoWorkers executor, SnapshotStore store, long every,
                                     AtomicBroadcast broadcast) {
        ServiceManager m = new ServiceManager(new ClientSessions[] {new ClientSessions(16, 16), new ClientSessions(16, 16)},
                executor, executor, new ReplyRouter(), registry, 0, machine, store, every, Long.MAX_VALUE);
        m.broadcast(broadcast);
        executor.startPerWorker(machine, m, m.lanes());
        open.add(m);
        return m;
    }

    private static Command put(long client, long seq, String kv, int... groups) {
        return new Command(new CommandId(client, GroupSet.of(groups), seq), ByteBuffer.wrap(kv.getBytes(StandardCharsets.UTF_8)));
    }

    private static ByteBuffer batch(Command... commands) {
        return CommandBatch.encode(List.of(commands));
    }

    /** Delivers {@code value} to both lanes concurrently (as both workers' streams carry it). */
    private static void toBoth(WorkerLanes lanes, long sequence, GroupSet groups, ByteBuffer value) throws Exception {
        Thread other = new Thread(() -> {
            try {
                lanes.deliver(1, sequence, groups, value.duplicate());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        other.start();
        lanes.deliver(0, sequence, groups, value.duplicate());
        other.join(30_000);
        assertThat(other.isAlive()).isFalse();
    }

    @Test
    @DisplayName("each lane runs only its workers' commands; a shared command runs once; malformed batches are counted and passed")
    void lanesFilterByWorkerAndPassMalformedBatches() throws Exception {
        Register machine = new Register();
        TwoWorkers executor = new TwoWorkers();
        ServiceManager m = perWorker(machine, executor, null, 1000, new PerWorkerBroadcast());
        WorkerLanes lanes = m.lanes();
        lanes.deliver(0, 0, GroupSet.of(0), batch(put(1, 1, "a=1", 0), put(2, 1, "b=1", 0)));
        lanes.deliver(1, 0, GroupSet.of(1), batch(put(1, 1, "c=1", 1)));
        lanes.deliver(0, 1, GroupSet.of(0), ByteBuffer.wrap(new byte[] {0, 0, 0, 9, 1}));
        toBoth(lanes, 1, GroupSet.of(0, 1), batch(put(1, 1, "a=2", 0, 1), put(3, 1, "boom=x", 0, 1)));
        lanes.deliver(0, 2, GroupSet.of(0), batch(put(1, 2, "a=3", 0)));
        assertThat(machine.data).containsEntry("a", "3").containsEntry("b", "1").containsEntry("c", "1");
        assertThat(registry.find("parallax.batches.malformed").counter().count()).isEqualTo(1);
        assertThat(registry.find("parallax.commands.executed").counter().count())
                .as("a=1 b=1 c=1 a=2 boom a=3: each once").isEqualTo(6);
        assertThat(registry.find("parallax.commands.rejected").counter().count()).as("boom threw").isEqualTo(1);
        assertThat(lanes.position()).as("the sum of the lanes' deliveries: 4 on lane 0, 2 on lane 1").isEqualTo(6);
    }

    @Test
    @DisplayName("sessions are per stream in the executing worker's table: a retried command is answered from the cache, never re-executed")
    void retriesAreDuplicatesPerStream() throws Exception {
        Register machine = new Register();
        ServiceManager m = perWorker(machine, new TwoWorkers(), null, 1000, new PerWorkerBroadcast());
        WorkerLanes lanes = m.lanes();
        lanes.deliver(1, 0, GroupSet.of(1), batch(put(1, 1, "k=1", 1)));
        lanes.deliver(1, 1, GroupSet.of(1), batch(put(1, 1, "k=2", 1)));
        assertThat(machine.data).containsEntry("k", "1");
        assertThat(registry.find("parallax.commands.duplicate").counter().count()).isEqualTo(1);
    }

    @Test
    @DisplayName("a due snapshot is proposed as an empty batch to every group; both workers meet on it and it is taken at the sum of their positions")
    void snapshotsAreTakenAtBarriers(@TempDir Path dir) throws Exception {
        SnapshotStore store = new SnapshotStore(dir.resolve("a"));
        PerWorkerBroadcast broadcast = new PerWorkerBroadcast();
        Register machine = new Register();
        ServiceManager m = perWorker(machine, new TwoWorkers(), store, 3, broadcast);
        WorkerLanes lanes = m.lanes();
        lanes.deliver(0, 0, GroupSet.of(0), batch(put(1, 1, "a=1", 0)));
        lanes.deliver(1, 0, GroupSet.of(1), batch(put(1, 1, "b=1", 1)));
        assertThat(broadcast.proposed).isEmpty();
        lanes.deliver(0, 1, GroupSet.of(0), batch(put(1, 2, "a=2", 0)));
        assertThat(broadcast.proposed).as("one barrier proposed when due, not one per delivery").hasSize(1);
        lanes.deliver(1, 1, GroupSet.of(1), batch(put(1, 2, "b=2", 1)));
        assertThat(broadcast.proposed).hasSize(1);
        assertThat(CommandBatch.decode(broadcast.proposed.get(0).duplicate())).isEmpty();
        lanes.deliver(0, 2, GroupSet.of(0), CommandBatch.encode(List.of()));
        assertThat(store.latest()).as("an empty batch to one group is no barrier").isEmpty();
        toBoth(lanes, 3, GroupSet.of(0, 1), broadcast.proposed.get(0));
        assertThat(m.awaitSnapshotWritten(Duration.ofSeconds(30))).isTrue();
        SnapshotStore.Snapshot s = store.latest().orElseThrow();
        assertThat(s.instance()).as("3 + 2 deliveries before the barrier, and the barrier in both lanes").isEqualTo(7);

        Register restored = new Register();
        PerWorkerBroadcast target = new PerWorkerBroadcast();
        ServiceManager fresh = perWorker(restored, new TwoWorkers(), new SnapshotStore(dir.resolve("b")), 1000, target);
        fresh.install(s);
        assertThat(restored.data).containsEntry("a", "2").containsEntry("b", "2");
        assertThat(new String(target.installed, StandardCharsets.UTF_8)).isEqualTo("cut");
        assertThat(fresh.lanes().position()).isEqualTo(7);
        fresh.lanes().deliver(1, 7, GroupSet.of(1), batch(put(1, 2, "b=3", 1)));
        assertThat(restored.data).as("the session table of worker 1 travelled: b's #2 is a duplicate")
                .containsEntry("b", "2");

        SequentialExecutor one = new SequentialExecutor();
        Register other = new Register();
        ServiceManager sequential = new ServiceManager(new ClientSessions(16, 16), one, new ReplyRouter(),
                registry, 0, other, new SnapshotStore(dir.resolve("c")), 1000, Long.MAX_VALUE);
        one.start(other, sequential);
        open.add(one);
        open.add(sequential);
        assertThatThrownBy(() -> sequential.install(s)).isInstanceOf(IOException.class)
                .hasMessageContaining("per-worker execution (p-smr)");
    }
}
