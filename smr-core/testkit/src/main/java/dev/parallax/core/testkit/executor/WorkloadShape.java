package dev.parallax.core.testkit.executor;

import dev.parallax.core.Command;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The knobs of a randomized {@link ExecutorWorkload} over {@link ShardedTestMachine}, in seed 001's
 * terms (§5.4): a share of local writes, a share of global operations of which a share are writes,
 * balanced or skewed towards shard 0, a per-command cost, and a share of commands the state machine
 * rejects (by throwing or, half of them, by returning {@code null}). {@link #generate()} is a pure
 * function of the knobs and {@code seed}, so a failing property prints a reproducible shape.
 *
 * <p>Immutable and thread-safe.
 *
 * @param shards       shards of the state machine, {@code >= 1}
 * @param threads      worker threads the executor should use
 * @param readWriteMap the {@link ExecutorWorkload#readWriteOnly()} hint
 * @param commands     how many commands, numbered 1..commands
 * @param localWrites  the share of local commands that write
 * @param globals      the share of commands that are global
 * @param globalWrites the share of global commands that write
 * @param skewed       whether 80% of local commands go to shard 0
 * @param maxCost      each command burns a uniform 0..maxCost CPU iterations
 * @param failures     the share of commands that fail (half throw, half return {@code null})
 * @param capacity     the executor's input capacity
 * @param seed         the generator's seed
 */
public record WorkloadShape(int shards, int threads, boolean readWriteMap, int commands, double localWrites,
                            double globals, double globalWrites, boolean skewed, int maxCost, double failures,
                            int capacity, long seed) {

    /** The commands, in delivery order, each with its γ (see {@link ShardedTestMachine#groups}). */
    public ExecutorWorkload generate() {
        SplittableRandom r = new SplittableRandom(seed);
        List<Command> out = new ArrayList<>(commands);
        for (int i = 1; i <= commands; i++) {
            byte op;
            if (r.nextDouble() < globals) {
                op = r.nextDouble() < globalWrites ? ShardedTestMachine.GLOBAL_WRITE : ShardedTestMachine.GLOBAL_READ;
            } else {
                op = r.nextDouble() < localWrites ? ShardedTestMachine.LOCAL_WRITE : ShardedTestMachine.LOCAL_READ;
            }
            int shard = skewed && r.nextDouble() < 0.8 ? 0 : r.nextInt(shards);
            int cost = maxCost == 0 ? 0 : r.nextInt(maxCost + 1);
            boolean fail = r.nextDouble() < failures;
            if (fail && r.nextBoolean()) {
                op = ShardedTestMachine.NULL_REPLY;
                fail = false;
            }
            out.add(ShardedTestMachine.command(shards, i, op, shard, r.nextInt(1000), cost, fail));
        }
        return new ExecutorWorkload(shards, threads, readWriteMap, capacity, out);
    }

    /**
     * Every shape the contract covers: 1-3 shards, 1-4 threads, shard-aware or read/write
     * classification, up to 400 commands, from read-only to write-only, from no global commands
     * to half of them, balanced or skewed, cheap or expensive, with or without failures, input
     * capacities from 1 to 1024.
     */
    public static Arbitrary<WorkloadShape> any() {
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
                .as(v -> new WorkloadShape((Integer) v.get(0), (Integer) v.get(1), (Boolean) v.get(2),
                        (Integer) v.get(3), (Double) v.get(4), (Double) v.get(5), (Double) v.get(6),
                        (Boolean) v.get(7), (Integer) v.get(8), (Double) v.get(9), (Integer) v.get(10),
                        (Long) v.get(11)));
    }

    /**
     * Contended shapes, made to make work stealing (and any executor's hand-over between threads)
     * happen: more threads than a shard owns, skew towards one shard, expensive commands, and local
     * writes that must wait for reads running on other threads. No global commands, no failures.
     */
    public static Arbitrary<WorkloadShape> contended() {
        Arbitrary<Integer> shards = Arbitraries.of(2, 3);
        Arbitrary<Double> localWrites = Arbitraries.of(0.1, 0.25, 0.5);
        Arbitrary<Integer> cost = Arbitraries.of(2000, 5000);
        return Combinators.combine(shards, localWrites, cost, Arbitraries.longs())
                .as((s, lw, c, seed) -> new WorkloadShape(s, 4, false, 400, lw, 0.0, 0.0, true, c, 0.0, 1024, seed));
    }
}
