package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.spi.Executor;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For random workloads, every executor's per-command results and final state equal those of
 * sequential execution in delivery order, no conflicting commands overlap, and every command gets
 * exactly one result.
 */
class ExecutorEquivalenceTest {

    @Property(tries = 60)
    void everyExecutorMatchesSequentialExecution(@ForAll("workloads") Workload w) throws Exception {
        List<Command> commands = w.generate();
        ShardedTestMachine reference = new ShardedTestMachine(w.shards());
        ResultRecorder expected = new ResultRecorder();
        try (Executor seq = Execution.sequential()) {
            seq.start(reference, expected);
            for (Command c : commands) {
                seq.execute(c);
            }
            seq.awaitQuiescence();
        }
        for (ExecutorKind kind : ExecutorKind.values()) {
            ShardedTestMachine machine = new ShardedTestMachine(w.shards());
            ResultRecorder actual = new ResultRecorder();
            try (Executor ex = kind.create(w.classMap(), w.classifier(), w.capacity())) {
                ex.start(machine, actual);
                for (Command c : commands) {
                    ex.execute(c);
                }
                ex.awaitQuiescence();
                assertThat(actual.results).as("%s results", kind).isEqualTo(expected.results);
                assertThat(machine.state()).as("%s final state", kind).isEqualTo(reference.state());
                assertThat(machine.overlaps()).as("%s overlapping conflicting commands", kind).isZero();
                assertThat(actual.duplicates).as("%s duplicate results", kind).hasValue(0);
            }
        }
    }

    /**
     * Workloads shaped to make work stealing happen: more threads than a shard owns, skew towards
     * one shard, expensive commands and local writes that must wait for stolen reads.
     */
    @Property(tries = 100)
    void stealingExecutorsMatchSequentialExecution(@ForAll("stealingWorkloads") Workload w) throws Exception {
        everyExecutorMatchesSequentialExecution(w);
    }

    @Provide
    Arbitrary<Workload> stealingWorkloads() {
        Arbitrary<Integer> shards = Arbitraries.of(2, 3);
        Arbitrary<Double> localWrites = Arbitraries.of(0.1, 0.25, 0.5);
        Arbitrary<Integer> cost = Arbitraries.of(2000, 5000);
        return Combinators.combine(shards, localWrites, cost, Arbitraries.longs())
                .as((s, lw, c, seed) -> new Workload(s, 4, false, 400, lw, 0.0, 0.0, true, c, 0.0, 1024, seed));
    }

    @Provide
    Arbitrary<Workload> workloads() {
        Arbitrary<Integer> shards = Arbitraries.integers().between(1, 3);
        Arbitrary<Integer> threads = Arbitraries.integers().between(1, 4);
        Arbitrary<Boolean> readWrite = Arbitraries.of(false, false, true);
        Arbitrary<Integer> commands = Arbitraries.integers().between(1, 400);
        Arbitrary<Double> localWrites = Arbitraries.of(0.0, 0.05, 0.25, 0.75, 1.0);
        Arbitrary<Double> globals = Arbitraries.of(0.0, 0.01, 0.05, 0.15, 0.5);
        Arbitrary<Double> globalWrites = Arbitraries.of(0.0, 0.25, 0.75, 1.0);
        Arbitrary<Boolean> skewed = Arbitraries.of(false, true);
        Arbitrary<Integer> cost = Arbitraries.of(0, 20, 500, 5000);
        Arbitrary<Double> failures = Arbitraries.of(0.0, 0.0, 0.1);
        Arbitrary<Integer> capacity = Arbitraries.of(1, 2, 8, 1024);
        Arbitrary<Long> seed = Arbitraries.longs();
        List<Arbitrary<Object>> parts = List.of(shards.asGeneric(), threads.asGeneric(), readWrite.asGeneric(),
                commands.asGeneric(), localWrites.asGeneric(), globals.asGeneric(), globalWrites.asGeneric(),
                skewed.asGeneric(), cost.asGeneric(), failures.asGeneric(), capacity.asGeneric(), seed.asGeneric());
        return Combinators.combine(parts)
                .as(v -> new Workload((Integer) v.get(0), (Integer) v.get(1), (Boolean) v.get(2), (Integer) v.get(3),
                        (Double) v.get(4), (Double) v.get(5), (Double) v.get(6), (Boolean) v.get(7),
                        (Integer) v.get(8), (Double) v.get(9), (Integer) v.get(10), (Long) v.get(11)));
    }
}
