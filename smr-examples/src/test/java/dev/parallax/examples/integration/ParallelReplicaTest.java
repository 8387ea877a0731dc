package dev.parallax.examples.integration;

import dev.parallax.core.StateMachine;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.spi.Executor;
import dev.parallax.examples.linkedlist.ListClassifier;
import dev.parallax.examples.linkedlist.ListCommands;
import dev.parallax.examples.linkedlist.ShardedLinkedList;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Parallel executors inside real replicas: a 3-replica Multi-Paxos cluster whose replicas run the
 * sharded linked list with early scheduling (selected through {@code Replica.Builder.executor}),
 * snapshotting every 50 instances (at points where the executor is quiescent). Every reply must
 * equal sequential execution of the same commands in the same order. Bad input (a command the
 * classifier cannot handle) and a fatal error in one replica's state machine do not stop the others.
 */
class ParallelReplicaTest {

    @ParameterizedTest
    @EnumSource(value = SyncMode.class, names = {"BUSY_WAIT", "WS_OPT", "BARRIER"})
    void earlySchedulingInsideReplicasMatchesSequentialExecution(SyncMode mode, @TempDir Path dir) throws Exception {
        ClusterMembers members = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        ClusterMembers clients = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                ListClassifier classifier = new ListClassifier(2);
                Replica r = Replica.builder()
                        .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1)
                                .dataDirectory(dir.resolve("r" + i)).build())
                        .stateMachine(new ShardedLinkedList(2, 100))
                        .executor(Execution.earlyScheduling(classifier.classMap(2), classifier, mode))
                        .ordering(MultiPaxos.protocol(3))
                        .snapshotEvery(50)
                        .bootstrap(true)
                        .build();
                replicas.add(r);
            }
            replicas.forEach(Replica::start);
            ShardedLinkedList reference = new ShardedLinkedList(2, 100);
            Random rnd = new Random(7);
            List<byte[]> commands = new ArrayList<>();
            for (int k = 0; k < 3000; k++) {
                int kind = rnd.nextInt(10);
                byte op = kind < 6 ? ListCommands.LOCAL_READ : kind < 8 ? ListCommands.LOCAL_WRITE
                        : kind < 9 ? ListCommands.GLOBAL_READ : ListCommands.GLOBAL_WRITE;
                commands.add(ListCommands.encode(op, rnd.nextInt(2), rnd.nextInt(300)));
            }
            // Every command is in flight at once: on a loaded machine the last ones wait longer than
            // the default invoke timeout (10 s, counted from when each was invoked).
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(clients).invokeTimeout(Duration.ofSeconds(60)).build())) {
                List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
                for (byte[] cmd : commands) {
                    replies.add(client.invoke(ByteBuffer.wrap(cmd)));
                }
                for (int k = 0; k < commands.size(); k++) {
                    ByteBuffer expected = reference.execute(ByteBuffer.wrap(commands.get(k)));
                    assertThat(replies.get(k).get(90, TimeUnit.SECONDS)).as("reply %d", k).isEqualTo(expected);
                }
            }
            double snapshots = 0;
            for (Replica r : replicas) {
                snapshots += r.meterRegistry().find("parallax.snapshots.taken").counter().count();
            }
            assertThat(snapshots).as("snapshots taken at quiescent points").isPositive();
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    /**
     * A 3-byte command reaches every replica; the list classifier cannot classify it, so each
     * replica answers it with the same error, counts it, and executes the rest of the batch and
     * everything after it. Each replica's machine counts the commands it executed, so the test knows
     * when all replicas are done and can compare their states.
     */
    @ParameterizedTest
    @EnumSource(value = SyncMode.class, names = {"BUSY_WAIT", "WS_OPT"})
    void anUnclassifiableCommandGetsAnErrorReplyAndTheReplicasStayEqual(SyncMode mode) throws Exception {
        int valid = 200;
        List<Counting> machines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            machines.add(new Counting(new ShardedLinkedList(2, 100), valid, -1));
        }
        ClusterMembers clients = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        List<Replica> replicas = cluster(clients, machines, () -> {
            ListClassifier classifier = new ListClassifier(2);
            return Execution.earlyScheduling(classifier.classMap(2), classifier, mode);
        });
        try {
            ShardedLinkedList reference = new ShardedLinkedList(2, 100);
            List<byte[]> commands = listCommands(valid, 11);
            commands.add(valid / 2, new byte[] {ListCommands.LOCAL_WRITE, 0, 1});
            // Every command is in flight at once: on a loaded machine the last ones wait longer than
            // the default invoke timeout (10 s, counted from when each was invoked).
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(clients).invokeTimeout(Duration.ofSeconds(60)).build())) {
                List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
                for (byte[] cmd : commands) {
                    replies.add(client.invoke(ByteBuffer.wrap(cmd)));
                }
                for (int k = 0; k < commands.size(); k++) {
                    if (k == valid / 2) {
                        CompletableFuture<ByteBuffer> garbage = replies.get(k);
                        assertThatThrownBy(() -> garbage.get(90, TimeUnit.SECONDS))
                                .isInstanceOf(ExecutionException.class).cause()
                                .isInstanceOf(CommandRejectedException.class)
                                .hasMessage("unclassifiable command: IllegalArgumentException: list commands have 9 "
                                        + "bytes, got 3");
                        continue;
                    }
                    ByteBuffer expected = reference.execute(ByteBuffer.wrap(commands.get(k)));
                    assertThat(replies.get(k).get(90, TimeUnit.SECONDS)).as("reply %d", k).isEqualTo(expected);
                }
            }
            byte[] expectedState = snapshot(reference);
            for (int i = 0; i < 3; i++) {
                assertThat(machines.get(i).done.await(30, TimeUnit.SECONDS)).as("replica %d executed all", i).isTrue();
                assertThat(machines.get(i).executed).as("replica %d never executed the garbage", i).hasValue(valid);
                assertThat(snapshot(machines.get(i).delegate)).as("replica %d state", i).isEqualTo(expectedState);
                assertThat(replicas.get(i).meterRegistry().get("parallax.commands.unclassifiable").counter().count())
                        .as("replica %d unclassifiable count", i).isEqualTo(1.0);
                assertThat(replicas.get(i).failure()).isEmpty();
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    /**
     * docs/executors.md, "Errors": an {@link Error} from the state machine is fatal for that replica
     * only. Replica 0's machine throws one on a marked command (as an OutOfMemoryError may); that
     * replica stops loudly (failure, metrics) and executes nothing more, while the other two answer
     * every command, the marked one included, as sequential execution would. The same for the
     * sequential and a parallel executor.
     */
    @ParameterizedTest
    @ValueSource(strings = {"SEQUENTIAL", "BUSY_WAIT", "WS_OPT"})
    void anErrorInOneReplicasStateMachineStopsThatReplicaAndTheOthersGoOn(String executor) throws Exception {
        int before = 50;
        int after = 50;
        byte[] poison = ListCommands.encode(ListCommands.GLOBAL_WRITE, 0, POISON);
        List<Counting> machines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            machines.add(new Counting(new ShardedLinkedList(2, 100), before + 1 + after, i == 0 ? POISON : -1));
        }
        ClusterMembers clients = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        List<Replica> replicas = cluster(clients, machines, () -> {
            if (executor.equals("SEQUENTIAL")) {
                return Execution.sequential();
            }
            ListClassifier classifier = new ListClassifier(2);
            return Execution.earlyScheduling(classifier.classMap(2), classifier, SyncMode.valueOf(executor));
        });
        try {
            ShardedLinkedList reference = new ShardedLinkedList(2, 100);
            List<byte[]> commands = listCommands(before + after, 13);
            commands.add(before, poison);
            ClientConfig config = ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(300))
                    .invokeTimeout(Duration.ofSeconds(60)).build();
            try (SmrClient client = SmrClient.connect(config)) {
                for (int k = 0; k < commands.size(); k++) {
                    ByteBuffer expected = reference.execute(ByteBuffer.wrap(commands.get(k)));
                    assertThat(client.invoke(ByteBuffer.wrap(commands.get(k))).get(60, TimeUnit.SECONDS))
                            .as("reply %d", k).isEqualTo(expected);
                }
            }
            Counting failed = machines.get(0);
            assertThat(failed.fatalThrown.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(replicas.get(0).failure()).get().isInstanceOf(OutOfMemoryError.class);
            assertThat(replicas.get(0).failStopped().get(30, TimeUnit.SECONDS))
                    .as("the replica closed itself and said so").isInstanceOf(OutOfMemoryError.class);
            assertThat(replicas.get(0).meterRegistry().get("parallax.replica.fatal").counter().count()).isEqualTo(1.0);
            assertThat(replicas.get(0).meterRegistry().get("parallax.replica.healthy").gauge().value()).isZero();
            assertThat(failed.executed).as("replica 0 executed nothing after the error").hasValue(before);
            byte[] expectedState = snapshot(reference);
            for (int i = 1; i < 3; i++) {
                assertThat(machines.get(i).done.await(30, TimeUnit.SECONDS)).as("replica %d executed all", i).isTrue();
                assertThat(snapshot(machines.get(i).delegate)).as("replica %d state", i).isEqualTo(expectedState);
                assertThat(replicas.get(i).failure()).isEmpty();
                assertThat(replicas.get(i).meterRegistry().get("parallax.replica.healthy").gauge().value()).isEqualTo(1.0);
                assertThat(replicas.get(i).meterRegistry().get("parallax.replica.fatal").counter().count()).isZero();
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    private static final int POISON = 4242;

    private static List<Replica> cluster(ClusterMembers clients, List<Counting> machines, Supplier<Executor> executors) {
        ClusterMembers members = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        List<Replica> replicas = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            replicas.add(Replica.builder()
                    .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1)
                            .build())
                    .stateMachine(machines.get(i))
                    .executor(executors.get())
                    .ordering(MultiPaxos.protocol(3))
                    .build());
        }
        replicas.forEach(Replica::start);
        return replicas;
    }

    private static List<byte[]> listCommands(int n, long seed) {
        Random rnd = new Random(seed);
        List<byte[]> commands = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int kind = rnd.nextInt(10);
            byte op = kind < 5 ? ListCommands.LOCAL_READ : kind < 8 ? ListCommands.LOCAL_WRITE
                    : kind < 9 ? ListCommands.GLOBAL_READ : ListCommands.GLOBAL_WRITE;
            commands.add(ListCommands.encode(op, rnd.nextInt(2), rnd.nextInt(300)));
        }
        return commands;
    }

    private static byte[] snapshot(StateMachine machine) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (WritableByteChannel ch = Channels.newChannel(out)) {
            machine.snapshot(ch);
        }
        return out.toByteArray();
    }

    /**
     * A state machine that counts the commands it executed (a latch opens at {@code expected}) and,
     * when given a {@code poison} value, throws an {@link OutOfMemoryError} on the global write of
     * that value instead of executing it. A global write conflicts with every command, so under any
     * executor every command before it has run and none after it starts.
     */
    private static final class Counting implements StateMachine {
        final ShardedLinkedList delegate;
        final AtomicInteger executed = new AtomicInteger();
        final CountDownLatch done;
        final CountDownLatch fatalThrown = new CountDownLatch(1);
        private final int poison;

        Counting(ShardedLinkedList delegate, int expected, int poison) {
            this.delegate = delegate;
            this.done = new CountDownLatch(expected);
            this.poison = poison;
        }

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            if (poison >= 0 && command.remaining() == 9 && command.get(command.position()) == ListCommands.GLOBAL_WRITE
                    && command.getInt(command.position() + 5) == poison) {
                fatalThrown.countDown();
                throw new OutOfMemoryError("simulated on one replica");
            }
            ByteBuffer reply = delegate.execute(command);
            executed.incrementAndGet();
            done.countDown();
            return reply;
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            delegate.snapshot(out);
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            delegate.restore(in);
        }
    }
}
