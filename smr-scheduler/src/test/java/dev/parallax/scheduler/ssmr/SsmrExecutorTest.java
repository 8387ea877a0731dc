package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.ResultSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SsmrExecutor} with real threads: 2 partitions × 2 replicas over in-memory links that
 * encode and decode every message with {@link PartitionMessageCodec}; the same command sequence is
 * handed to every replica (as a global order would) by its own feeding thread.
 */
@Timeout(60)
class SsmrExecutorTest {
    private static final int P = 2;
    private static final int R = 2;

    private record Replica(SsmrExecutor executor, SsmrStateMachine machine, Map<CommandId, CommandResult> results) {
    }

    private static Replica[][] cluster(InMemoryRemoteValuesLog[][] logs, double drop) {
        Replica[][] replicas = new Replica[P][R];
        Random loss = new Random(5);
        for (int p = 0; p < P; p++) {
            for (int i = 0; i < R; i++) {
                int part = p;
                PartitionLinks links = (q, m) -> {
                    for (Replica to : replicas[q]) {
                        boolean lost;
                        synchronized (loss) {
                            lost = loss.nextDouble() < drop;
                        }
                        if (!lost) {
                            to.executor().receive(to.executor().codec().encode(m));
                        }
                    }
                };
                SsmrConfig config = SsmrConfig.of(part, P).withResend(1024, 1024, TimeUnit.MILLISECONDS.toNanos(20))
                        .withLimits(8, 4096);
                replicas[p][i] = new Replica(new SsmrExecutor(config, logs[p][i], links),
                        new SsmrStateMachine(new Registers(P)), new ConcurrentHashMap<>());
            }
        }
        for (Replica[] part : replicas) {
            for (Replica r : part) {
                r.executor().start(r.machine(), (command, result) -> r.results().put(command.id(), result));
            }
        }
        return replicas;
    }

    private static List<RegistersModel.Op> randomOps(long seed, int n) {
        Random rnd = new Random(seed);
        List<RegistersModel.Op> ops = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int v = rnd.nextInt(P);
            ops.add(switch (rnd.nextInt(5)) {
                case 0 -> new RegistersModel.Op(Registers.READ, new int[]{v}, new long[0]);
                case 1 -> new RegistersModel.Op(Registers.WRITE, new int[]{v}, new long[]{k + 1});
                case 2 -> new RegistersModel.Op(Registers.MULTI_WRITE, new int[]{0, 1}, new long[]{k + 1, -k - 1});
                case 3 -> new RegistersModel.Op(Registers.READ_ALL, new int[]{0, 1}, new long[0]);
                default -> new RegistersModel.Op(Registers.COPY, new int[]{v, 1 - v}, new long[0]);
            });
        }
        return ops;
    }

    @Test
    void replicasOfTwoPartitionsExecuteASharedOrderLikeTheSequentialSpecification() throws Exception {
        runSharedOrder(400, 0.0);
    }

    @Test
    void lostMessagesAreRecoveredByRetransmission() throws Exception {
        // §V-A: a third of the partition messages is lost; the resend timer (20 ms) recovers them.
        long requests = runSharedOrder(60, 0.3);
        assertThat(requests).isPositive();
    }

    /** Runs {@code n} commands on every replica; returns the retransmission requests sent. */
    private static long runSharedOrder(int n, double drop) throws Exception {
        List<RegistersModel.Op> ops = randomOps(17, n);
        List<Command> commands = new ArrayList<>();
        for (int k = 0; k < ops.size(); k++) {
            commands.add(Registers.command(1, k + 1, ops.get(k).encode()));
        }
        InMemoryRemoteValuesLog[][] logs = new InMemoryRemoteValuesLog[P][R];
        for (int p = 0; p < P; p++) {
            for (int i = 0; i < R; i++) {
                logs[p][i] = new InMemoryRemoteValuesLog();
            }
        }
        Replica[][] replicas = cluster(logs, drop);
        try {
            List<Thread> feeders = new ArrayList<>();
            AtomicReference<Throwable> feederFailure = new AtomicReference<>();
            for (Replica[] part : replicas) {
                for (Replica r : part) {
                    Thread t = new Thread(() -> {
                        try {
                            for (Command c : commands) {
                                r.executor().execute(c); // blocks while the inbox (8) is full
                            }
                            r.executor().awaitQuiescence();
                        } catch (Throwable e) {
                            feederFailure.set(e);
                        }
                    });
                    feeders.add(t);
                    t.start();
                }
            }
            for (Thread t : feeders) {
                t.join(TimeUnit.SECONDS.toMillis(50));
                assertThat(t.isAlive()).as("feeder finished").isFalse();
            }
            assertThat(feederFailure.get()).isNull();

            // the sequential specification in the same order gives every reply
            RegistersModel model = new RegistersModel(P);
            List<Long> state = model.initialState();
            for (int k = 0; k < ops.size(); k++) {
                RegistersModel.Op op = ops.get(k);
                Command c = commands.get(k);
                for (int p = 0; p < P; p++) {
                    for (Replica r : replicas[p]) {
                        CommandResult result = r.results().get(c.id());
                        if (!c.groups().contains(p)) {
                            assertThat(result).isNull();
                            continue;
                        }
                        assertThat(result).as("result of %s at partition %d", op, p).isNotNull();
                        List<Long> out = op.type() == Registers.READ || op.type() == Registers.READ_ALL
                                || op.type() == Registers.COPY ? Registers.decodeLongs(result.reply()) : List.of();
                        assertThat(model.step(state, op, out)).as("reply %s to %s #%d at partition %d", out, op, k, p)
                                .isNotNull();
                    }
                }
                state = model.stepUnknownOutcome(state, op);
            }
            for (int p = 0; p < P; p++) {
                for (Replica r : replicas[p]) {
                    assertThat(((Registers) r.machine().machine()).value(p)).isEqualTo(state.get(p));
                    assertThat(r.machine().finishIndex()).isEqualTo(replicas[p][0].machine().finishIndex());
                    assertThat(r.executor().malformedMessages()).isZero();
                }
                long mine = commands.stream().filter(c -> c.groups().contains(0)).count();
                assertThat(replicas[0][0].machine().finishIndex()).isEqualTo(mine);
            }
            long requests = 0;
            for (Replica[] part : replicas) {
                for (Replica r : part) {
                    requests += r.executor().counters().requestsSent();
                }
            }
            return requests;
        } finally {
            for (Replica[] part : replicas) {
                for (Replica r : part) {
                    r.executor().close();
                }
            }
        }
    }

    @Test
    void startNeedsTheSsmrAdapterAndTheAdapterDoesNotExecute() {
        SsmrExecutor executor = new SsmrExecutor(SsmrConfig.of(0, 1), new InMemoryRemoteValuesLog(), (q, m) -> { });
        dev.parallax.core.StateMachine plain = new dev.parallax.core.StateMachine() {
            @Override
            public ByteBuffer execute(ByteBuffer command) {
                return command;
            }

            @Override
            public void snapshot(java.nio.channels.WritableByteChannel out) {
            }

            @Override
            public void restore(java.nio.channels.ReadableByteChannel in) {
            }
        };
        assertThatThrownBy(() -> executor.start(plain, (cmd, r) -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> executor.execute(Command.of(1, 1, new byte[0])))
                .isInstanceOf(IllegalStateException.class);
        SsmrStateMachine adapter = new SsmrStateMachine(new Registers(1));
        assertThatThrownBy(() -> adapter.execute(ByteBuffer.allocate(1))).isInstanceOf(UnsupportedOperationException.class);
        executor.close();
    }

    @Test
    void snapshotCarriesTheFinishIndexAndTheMachineState() throws Exception {
        InMemoryRemoteValuesLog log = new InMemoryRemoteValuesLog();
        SsmrStateMachine adapter = new SsmrStateMachine(new Registers(1));
        SsmrExecutor executor = new SsmrExecutor(SsmrConfig.of(0, 1), log, (q, m) -> { });
        executor.start(adapter, (c, r) -> { });
        executor.execute(Registers.command(1, 1, Registers.write(0, 42)));
        executor.execute(Registers.command(1, 2, Registers.read(0)));
        executor.awaitQuiescence();
        executor.close();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        adapter.snapshot(Channels.newChannel(bytes));

        SsmrStateMachine copy = new SsmrStateMachine(new Registers(1));
        copy.restore(Channels.newChannel(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(copy.finishIndex()).isEqualTo(2);
        assertThat(((Registers) copy.machine()).value(0)).isEqualTo(42);
        log.truncateThrough(copy.finishIndex());
        assertThat(log.size()).isZero();

        byte[] garbage = bytes.toByteArray();
        garbage[0] ^= 1;
        assertThatThrownBy(() -> copy.restore(Channels.newChannel(new ByteArrayInputStream(garbage))))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> copy.restore(Channels.newChannel(new ByteArrayInputStream(new byte[3]))))
                .isInstanceOf(IOException.class);
    }

    @Test
    void anErrorFromTheStateMachineIsFatalAndReportedOnce() throws Exception {
        PartitionedStateMachine broken = new Registers(1) {
            @Override
            public ByteBuffer execute(ByteBuffer c, ExecutionContext ctx) {
                throw new OutOfMemoryError("simulated");
            }
        };
        CountDownLatch fatal = new CountDownLatch(1);
        List<Throwable> errors = new ArrayList<>();
        SsmrExecutor executor = new SsmrExecutor(SsmrConfig.of(0, 1), new InMemoryRemoteValuesLog(), (q, m) -> { });
        executor.start(new SsmrStateMachine(broken), new ResultSink() {
            @Override
            public void onResult(Command command, CommandResult result) {
            }

            @Override
            public void onFatal(Command command, Throwable error) {
                errors.add(error);
                fatal.countDown();
            }
        });
        executor.execute(Registers.command(1, 1, Registers.read(0)));
        assertThat(fatal.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(executor::awaitQuiescence).isInstanceOf(IllegalStateException.class)
                .hasCauseInstanceOf(OutOfMemoryError.class);
        assertThat(errors).hasSize(1);
        executor.close();
    }

    @Test
    void malformedInboundBytesAreCountedAndDropped() {
        SsmrExecutor executor = new SsmrExecutor(SsmrConfig.of(0, 2), new InMemoryRemoteValuesLog(), (q, m) -> { });
        executor.start(new SsmrStateMachine(new Registers(2)), (c, r) -> { });
        try {
            assertThat(executor.receive(ByteBuffer.wrap(new byte[]{1, 2, 3}))).isFalse();
            assertThat(executor.malformedMessages()).isEqualTo(1);
            PartitionMessage ok = new PartitionMessage.Signal(new CommandId(1, GroupSet.of(0, 1), 1), 1);
            assertThat(executor.receive(executor.codec().encode(ok))).isTrue();
        } finally {
            executor.close();
        }
    }
}
