package dev.parallax.examples.cli;

import dev.parallax.scheduler.ServiceClasses;
import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.kv.KvStateMachine;
import dev.parallax.scheduler.classmap.ReadWriteClasses;
import dev.parallax.scheduler.psmr.PsmrExecutor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The executor and ordering registries: every executor name builds an executor that runs the
 * key-value store with the results and the final state of sequential execution, bad commands
 * included; names parse as documented.
 */
class ExecutionsTest {

    /** The groups the workload's commands are routed over (Multi-Ring's k), and P-SMR's workers. */
    private static final int GROUPS = 3;

    @ParameterizedTest
    @EnumSource(value = Executions.class, mode = EnumSource.Mode.EXCLUDE, names = "S_SMR") // runs partitioned services only
    void everyRegisteredExecutorRunsTheKeyValueStoreLikeSequentialExecution(Executions execution) throws Exception {
        List<Command> commands = workload(3000, 7);
        Run reference = run(Executions.SEQUENTIAL.create(KvClassifier.SERVICE, 1), new KvStateMachine(), commands);
        // The store as a replica builds it (KvRouting.stateMachine): P-SMR's partitioned by the groups.
        KvStateMachine store = execution.oneWorkerPerGroup() ? new KvStateMachine(GROUPS) : new KvStateMachine();
        Run run = run(execution.create(KvClassifier.SERVICE, GROUPS), store, commands);
        assertThat(run.fatal.get()).isNull();
        assertThat(run.results).hasSize(commands.size());
        for (Command c : commands) {
            assertThat(run.results.get(c.id())).as("result of %s", c).isEqualTo(reference.results.get(c.id()));
        }
        assertThat(run.store.digest()).isEqualTo(reference.store.digest());
        assertThat(snapshot(run.store)).isEqualTo(snapshot(reference.store));
        assertThat(reference.results.values()).as("the workload has errors as well as replies")
                .anyMatch(CommandResult::isError).anyMatch(r -> !r.isError());
    }

    @Test
    void theKeyValueStoreClassesReadsConcurrentlyAndEverythingElseAsAWrite() {
        KvClassifier classifier = new KvClassifier();
        assertThat(classifier.classify(cmd(0, KvCommand.of(KvOp.GET, b("k")).encode().array()))).isEqualTo(ReadWriteClasses.READ);
        assertThat(classifier.classify(cmd(1, KvCommand.of(KvOp.MGET, b("k"), b("l")).encode().array())))
                .isEqualTo(ReadWriteClasses.READ);
        assertThat(classifier.classify(cmd(2, KvCommand.of(KvOp.EXISTS, b("k")).encode().array()))).isEqualTo(ReadWriteClasses.READ);
        assertThat(classifier.classify(cmd(2, KvCommand.of(KvOp.DBSIZE).encode().array()))).as("DBSIZE")
                .isEqualTo(ReadWriteClasses.READ);
        assertThat(classifier.classify(cmd(2, KvCommand.of(KvOp.STRLEN, b("k")).encode().array()))).as("STRLEN")
                .isEqualTo(ReadWriteClasses.READ);
        assertThat(classifier.classify(cmd(2, KvCommand.of(KvOp.FLUSHALL).encode().array()))).as("FLUSHALL")
                .isEqualTo(ReadWriteClasses.WRITE);
        for (KvOp op : List.of(KvOp.SET, KvOp.SET_IF_ABSENT, KvOp.SET_IF_PRESENT, KvOp.DEL, KvOp.INCR, KvOp.MSET)) {
            assertThat(classifier.classify(cmd(3, new byte[] {op.code(), 0, 0, 0, 0}))).as("%s", op).isEqualTo(ReadWriteClasses.WRITE);
        }
        assertThat(classifier.classify(cmd(4, new byte[0]))).as("empty").isEqualTo(ReadWriteClasses.WRITE);
        assertThat(classifier.classify(cmd(5, new byte[] {99}))).as("unknown op").isEqualTo(ReadWriteClasses.WRITE);
        assertThat(KvClassifier.SERVICE.hasClasses()).isTrue();
        assertThat(KvClassifier.SERVICE.classMapOver(3)).get().satisfies(m -> assertThat(m.threadCount()).isEqualTo(3));
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6: execution=p-smr builds P-SMR over k workers, "
            + "needs no request classes but a service partitioned by group")
    void pSmrParsesAndBuildsAnExecutorOfKWorkersWithoutAClassMap() {
        assertThat(Executions.parse(" P-SMR ")).isEqualTo(Executions.P_SMR);
        assertThat(Executions.P_SMR.configName()).isEqualTo("p-smr");
        assertThat(Executions.P_SMR.parallel()).isTrue();
        assertThat(Executions.P_SMR.needsClasses()).isFalse();
        assertThat(Executions.P_SMR.oneWorkerPerGroup()).isTrue();
        for (Executions e : Executions.values()) {
            assertThat(e.oneWorkerPerGroup()).as("%s", e).isEqualTo(e == Executions.P_SMR);
            assertThat(e.needsClasses()).as("%s", e).isEqualTo(e != Executions.SEQUENTIAL && e != Executions.P_SMR
                    && e != Executions.S_SMR);
        }
        // No class map: a service partitioned by group without request classes runs under P-SMR.
        ServiceClasses partitioned = new ServiceClasses("partitioned service", null, null,
                groups -> command -> dev.parallax.core.GroupSet.partition(groups));
        for (int k = 1; k <= 4; k++) {
            try (Executor executor = Executions.P_SMR.create(partitioned, k)) {
                assertThat(executor).isInstanceOf(PsmrExecutor.class);
                assertThat(((PsmrExecutor) executor).workers()).isEqualTo(k);
            }
        }
        try (Executor executor = Executions.P_SMR.create(KvClassifier.SERVICE, 2)) {
            assertThat(((PsmrExecutor) executor).workers()).isEqualTo(2);
        }
        assertThat(KvClassifier.SERVICE.groupPartitioned()).isTrue();
        assertThatThrownBy(() -> Executions.P_SMR.create(ServiceClasses.none("counter service"), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("execution=p-smr needs a service whose commands carry the groups of a C-G function and whose "
                        + "state machine is partitioned by them, and the counter service is not; it runs with execution=sequential");
        assertThatThrownBy(() -> Executions.P_SMR.create(new ServiceClasses("classy service", ReadWriteClasses::classMap,
                new KvClassifier()), 2)).hasMessageEndingWith("the classy service is not; it runs with execution=sequential "
                + "or a scheduling executor");
        assertThatThrownBy(() -> Executions.P_SMR.create(partitioned, 0)).hasMessageContaining("execution.threads must be >= 1, got 0");
    }

    @Test
    void namesParseIgnoringCaseAndUnknownNamesAreRejectedWithTheAcceptedOnes() {
        assertThat(Executions.parse(" Early-Busy-Wait ")).isEqualTo(Executions.EARLY_BUSY_WAIT);
        assertThat(Executions.names()).containsExactly("sequential", "late-scheduling", "early-barrier", "early-busy-wait",
                "early-ws-queue", "early-ws-semi-blocked", "early-ws-non-blocked", "early-ws-opt", "p-smr", "s-smr");
        assertThat(Executions.DEFAULT).isEqualTo(Executions.SEQUENTIAL);
        assertThatThrownBy(() -> Executions.parse("x-smr")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("execution must be one of " + String.join(", ", Executions.names()) + "; got 'x-smr'");
        assertThatThrownBy(() -> Executions.EARLY_WS_OPT.create(KvClassifier.SERVICE, 0))
                .hasMessageContaining("execution.threads must be >= 1, got 0");
        assertThatThrownBy(() -> new ServiceClasses("half", ReadWriteClasses::classMap, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private record Run(KvStateMachine store, Map<CommandId, CommandResult> results, AtomicReference<Throwable> fatal) {
    }

    private static Run run(Executor executor, KvStateMachine store, List<Command> commands) throws InterruptedException {
        Map<CommandId, CommandResult> results = new ConcurrentHashMap<>();
        AtomicReference<Throwable> fatal = new AtomicReference<>();
        try (executor) {
            executor.start(store, new ResultSink() {
                @Override
                public void onResult(Command command, CommandResult result) {
                    results.put(command.id(), result);
                }

                @Override
                public void onFatal(Command command, Throwable error) {
                    fatal.set(error);
                }
            });
            for (Command c : commands) {
                executor.execute(c);
            }
            executor.awaitQuiescence();
        }
        return new Run(store, results, fatal);
    }

    /**
     * A seeded mix over 16 keys: writes of every kind, reads of every kind (DBSIZE every 50th
     * command, FLUSHALL every 700th), INCR on non-integers
     * (an error reply), and malformed commands (empty, unknown op code, truncated); each command
     * carries the groups {@link KvRouter} over {@link #GROUPS} groups gives it, as a client of a
     * Multi-Ring cluster sends it ({@link KvRouting}), so P-SMR runs single- and multi-group commands.
     */
    private static List<Command> workload(int n, long seed) {
        KvRouter router = new KvRouter(GROUPS);
        Random rnd = new Random(seed);
        List<Command> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] k = b("key-" + rnd.nextInt(16));
            byte[] k2 = b("key-" + rnd.nextInt(16));
            byte[] v = rnd.nextInt(3) == 0 ? b("text-" + i) : b(Integer.toString(rnd.nextInt(1000)));
            KvCommand c = switch (rnd.nextInt(11)) {
                case 0 -> KvCommand.of(KvOp.SET, k, v);
                case 1 -> KvCommand.of(KvOp.SET_IF_ABSENT, k, v);
                case 2 -> KvCommand.of(KvOp.SET_IF_PRESENT, k, v);
                case 3 -> KvCommand.of(KvOp.DEL, k, k2);
                case 4 -> KvCommand.of(KvOp.INCR, k);
                case 5 -> KvCommand.of(KvOp.MSET, k, v, k2, v);
                case 6 -> KvCommand.of(KvOp.EXISTS, k, k2, k);
                case 7 -> KvCommand.of(KvOp.MGET, k, k2);
                default -> KvCommand.of(KvOp.GET, k);
            };
            if (i % 50 == 25) {
                c = KvCommand.of(KvOp.DBSIZE);
            } else if (i % 700 == 350) {
                c = KvCommand.of(KvOp.FLUSHALL);
            }
            byte[] payload = c.encode().array();
            if (i % 97 == 0) {
                payload = switch (i % 3) {
                    case 0 -> new byte[0];
                    case 1 -> new byte[] {99, 0, 0, 0, 0};
                    default -> new byte[] {KvOp.GET.code(), 0, 0};
                };
            }
            out.add(Command.of(42, router.route(ByteBuffer.wrap(payload)), i, payload));
        }
        assertThat(out).as("the mix has multi-group commands").anyMatch(c -> c.groups().size() > 1);
        return out;
    }

    private static Command cmd(long sequence, byte[] payload) {
        return Command.of(42, sequence, payload);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] snapshot(KvStateMachine store) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        store.snapshot(Channels.newChannel(bytes));
        return bytes.toByteArray();
    }
}
