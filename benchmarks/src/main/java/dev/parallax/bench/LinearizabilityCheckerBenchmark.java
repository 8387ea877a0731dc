package dev.parallax.bench;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.History;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.check.RegisterModel;
import dev.parallax.core.check.RegisterOp;
import dev.parallax.core.check.RegisterResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time to check a 10,000-operation history with {@link LinearizabilityChecker}: a key-value history
 * (10 clients, 100 keys, 0.2% unknown outcomes) and a single-register history (5 clients, reads,
 * writes and compare-and-sets on one key, so one partition holds every operation). Both come from a
 * simulated linearizable store, where each operation takes effect at a random instant inside its
 * call, and are checked once in setup to be linearizable.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar LinearizabilityCheckerBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LinearizabilityCheckerBenchmark {

    private static final int OPERATIONS = 10_000;

    private final KvModel kvModel = new KvModel();
    private final RegisterModel registerModel = new RegisterModel();
    private History<KvOp, String> kvHistory;
    private History<RegisterOp, RegisterResult> registerHistory;

    /** Generates both histories and makes sure they are linearizable. */
    @Setup
    public void generate() {
        kvHistory = kvHistory(1, OPERATIONS, 10, 100, 0.002);
        registerHistory = registerHistory(2, OPERATIONS, 5, 0.002);
        requireLinearizable(LinearizabilityChecker.check(kvModel, kvHistory));
        requireLinearizable(LinearizabilityChecker.check(registerModel, registerHistory));
    }

    /** Checks the 100-key history. */
    @Benchmark
    public CheckResult kv10kOps10Clients100Keys() {
        return LinearizabilityChecker.check(kvModel, kvHistory);
    }

    /** Checks the single-register history. */
    @Benchmark
    public CheckResult register10kOps5Clients() {
        return LinearizabilityChecker.check(registerModel, registerHistory);
    }

    private static void requireLinearizable(CheckResult result) {
        if (!result.isLinearizable()) {
            throw new IllegalStateException("generated history is not linearizable:\n" + result);
        }
    }

    /** One simulated call: invoked, takes effect at {@code point}, returns. */
    private record Call<I>(int client, I input, long invoke, long point, long ret, boolean unknown, boolean applied) {
    }

    /** Calls of {@code clients} closed-loop clients with random think time and latency. */
    private static <I> List<Call<I>> calls(
            SplittableRandom random, int operations, int clients, double unknownRate,
            Supplier<I> inputs) {
        long[] clientTime = new long[clients];
        List<Call<I>> calls = new ArrayList<>(operations);
        for (int i = 0; i < operations; i++) {
            int client = i % clients;
            long invoke = clientTime[client] + random.nextInt(50);
            long point = invoke + 1 + random.nextInt(200);
            long ret = point + 1 + random.nextInt(200);
            clientTime[client] = ret;
            boolean unknown = random.nextDouble() < unknownRate;
            calls.add(new Call<>(client, inputs.get(), invoke, point, ret, unknown, random.nextBoolean()));
        }
        return calls;
    }

    private static <I> Integer[] byPoint(List<Call<I>> calls) {
        Integer[] order = new Integer[calls.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> calls.get(i).point()));
        return order;
    }

    private static <I, O> History<I, O> assemble(List<Call<I>> calls, List<O> outputs) {
        History.Builder<I, O> history = History.builder();
        for (int i = 0; i < calls.size(); i++) {
            Call<I> call = calls.get(i);
            if (call.unknown()) {
                history.unknown(call.client(), call.input(), call.invoke());
            } else {
                history.ok(call.client(), call.input(), outputs.get(i), call.invoke(), call.ret());
            }
        }
        return history.build();
    }

    static History<KvOp, String> kvHistory(long seed, int operations, int clients, int keys, double unknownRate) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] written = {0};
        List<Call<KvOp>> calls = calls(random, operations, clients, unknownRate, () -> {
            String key = "k" + random.nextInt(keys);
            int kind = random.nextInt(10);
            return kind < 5 ? KvOp.get(key)
                    : kind < 8 ? KvOp.put(key, "v" + written[0]++)
                    : kind < 9 ? KvOp.append(key, "a" + written[0]++ + ",")
                    : KvOp.delete(key);
        });
        List<String> outputs = new ArrayList<>(Collections.nCopies(operations, null));
        Map<String, String> store = new HashMap<>();
        for (int i : byPoint(calls)) {
            Call<KvOp> call = calls.get(i);
            if (call.unknown() && !call.applied()) {
                continue;
            }
            KvOp op = call.input();
            if (op instanceof KvOp.Get get) {
                outputs.set(i, store.get(get.key()));
            } else if (op instanceof KvOp.Put put) {
                store.put(put.key(), put.value());
            } else if (op instanceof KvOp.Append append) {
                store.merge(append.key(), append.suffix(), String::concat);
            } else {
                store.remove(op.key());
            }
        }
        return assemble(calls, outputs);
    }

    static History<RegisterOp, RegisterResult> registerHistory(
            long seed, int operations, int clients, double unknownRate) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] written = {1};
        long[] lastWritten = {0};
        List<Call<RegisterOp>> calls = calls(random, operations, clients, unknownRate, () -> {
            int kind = random.nextInt(10);
            if (kind < 5) {
                return RegisterOp.read();
            }
            if (kind < 9) {
                lastWritten[0] = written[0]++;
                return RegisterOp.write(lastWritten[0]);
            }
            return RegisterOp.cas(lastWritten[0], written[0]++);
        });
        List<RegisterResult> outputs = new ArrayList<>(Collections.nCopies(operations, null));
        long value = 0;
        for (int i : byPoint(calls)) {
            Call<RegisterOp> call = calls.get(i);
            if (call.unknown() && !call.applied()) {
                continue;
            }
            RegisterOp op = call.input();
            if (op instanceof RegisterOp.Write write) {
                value = write.value();
                outputs.set(i, RegisterResult.ok());
            } else if (op instanceof RegisterOp.Cas cas) {
                boolean swaps = value == cas.expected();
                value = swaps ? cas.update() : value;
                outputs.set(i, swaps ? RegisterResult.ok() : RegisterResult.failed());
            } else {
                outputs.set(i, RegisterResult.read(value));
            }
        }
        return assemble(calls, outputs);
    }
}
