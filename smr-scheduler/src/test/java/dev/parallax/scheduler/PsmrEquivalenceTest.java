package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.Executor;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * P-SMR ({@link Execution#psmr}) equals sequential execution on the random {@link Workload}s of
 * {@link ShardedTestMachine}, once the commands carry destinations consistent with their conflicts
 * (what a service's C-G function does, seed 003 ch. 6): a command on shard s goes to group s, a
 * global command to every shard's group. Results, final state, no overlapping conflicting commands,
 * one result per command.
 */
class PsmrEquivalenceTest {

    @Property(tries = 40)
    void psmrMatchesSequentialExecution(@ForAll("workloads") Workload w, @ForAll("workers") int workers)
            throws Exception {
        List<Command> commands = withGroups(w.generate(), w.shards());
        ShardedTestMachine reference = new ShardedTestMachine(w.shards());
        ResultRecorder expected = new ResultRecorder();
        try (Executor seq = Execution.sequential()) {
            seq.start(reference, expected);
            for (Command c : commands) {
                seq.execute(c);
            }
            seq.awaitQuiescence();
        }
        ShardedTestMachine machine = new ShardedTestMachine(w.shards());
        ResultRecorder actual = new ResultRecorder();
        try (Executor ex = Execution.psmr(workers, w.capacity())) {
            ex.start(machine, actual);
            for (Command c : commands) {
                ex.execute(c);
            }
            ex.awaitQuiescence();
            assertThat(actual.results).isEqualTo(expected.results);
            assertThat(machine.state()).isEqualTo(reference.state());
            assertThat(machine.overlaps()).as("overlapping conflicting commands").isZero();
            assertThat(actual.duplicates).hasValue(0);
            assertThat(actual.fatal).isEmpty();
        }
    }

    /** The C-G of {@link ShardedTestMachine}: shard s -> group s, a global command -> every group. */
    static List<Command> withGroups(List<Command> commands, int shards) {
        List<Command> out = new ArrayList<>(commands.size());
        for (Command c : commands) {
            ByteBuffer p = c.payload();
            byte op = p.get(0);
            boolean global = op == ShardedTestMachine.GLOBAL_READ || op == ShardedTestMachine.GLOBAL_WRITE;
            GroupSet groups = global ? GroupSet.ofBits((1L << shards) - 1) : GroupSet.of(p.get(1));
            CommandId id = c.id();
            out.add(new Command(new CommandId(id.clientId(), groups, id.sequence()), p));
        }
        return out;
    }

    @Provide
    Arbitrary<Integer> workers() {
        return Arbitraries.integers().between(1, 5);
    }

    @Provide
    Arbitrary<Workload> workloads() {
        Arbitrary<Integer> shards = Arbitraries.integers().between(1, 6);
        Arbitrary<Integer> commands = Arbitraries.integers().between(1, 600);
        Arbitrary<Double> localWrites = Arbitraries.of(0.0, 0.25, 0.75, 1.0);
        Arbitrary<Double> globals = Arbitraries.of(0.0, 0.05, 0.15, 0.5);
        Arbitrary<Double> globalWrites = Arbitraries.of(0.0, 0.5, 1.0);
        Arbitrary<Boolean> skewed = Arbitraries.of(false, true);
        Arbitrary<Integer> cost = Arbitraries.of(0, 20, 500);
        Arbitrary<Double> failures = Arbitraries.of(0.0, 0.1);
        Arbitrary<Integer> capacity = Arbitraries.of(1, 2, 8, 1024);
        Arbitrary<Long> seed = Arbitraries.longs();
        List<Arbitrary<Object>> parts = List.of(shards.asGeneric(), commands.asGeneric(), localWrites.asGeneric(),
                globals.asGeneric(), globalWrites.asGeneric(), skewed.asGeneric(), cost.asGeneric(),
                failures.asGeneric(), capacity.asGeneric(), seed.asGeneric());
        return Combinators.combine(parts)
                .as(v -> new Workload((Integer) v.get(0), 1, false, (Integer) v.get(1), (Double) v.get(2),
                        (Double) v.get(3), (Double) v.get(4), (Boolean) v.get(5), (Integer) v.get(6),
                        (Double) v.get(7), (Integer) v.get(8), (Long) v.get(9)));
    }
}
