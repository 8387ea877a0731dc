package dev.parallax.core.check;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Small random histories (1 to 8 operations, heavy random overlap, some unknown outcomes) for the
 * comparison with {@link BruteForceChecker}. Outputs come from replaying the operations in the
 * order of a random point inside each interval, then some are replaced by a random
 * output, so that linearizable and non-linearizable histories are both common.
 */
final class RandomHistories {

    static final int MAX_OPS = 8;
    static final double UNKNOWN_RATE = 0.15;
    private static final double CORRUPTION_RATE = 0.25;
    /** Only reads of the map carry an output, so they are corrupted more often. */
    private static final double KV_READ_CORRUPTION_RATE = 0.5;

    private RandomHistories() {
    }

    /** One generated operation before its output is known. */
    private record Draft<I>(int client, I input, long invoke, long ret, long point, boolean unknown, boolean applied) {
    }

    private static <I> List<Draft<I>> drafts(SplittableRandom random, double unknownRate, Supplier<I> inputs) {
        int n = 1 + random.nextInt(MAX_OPS);
        List<Draft<I>> drafts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long invoke = random.nextInt(40);
            long ret = invoke + random.nextInt(16);
            long point = invoke + (ret == invoke ? 0 : random.nextInt((int) (ret - invoke) + 1));
            boolean unknown = random.nextDouble() < unknownRate;
            drafts.add(new Draft<>(random.nextInt(4), inputs.get(), invoke, ret, point, unknown, random.nextBoolean()));
        }
        return drafts;
    }

    private static <I> List<Integer> byPoint(List<Draft<I>> drafts) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < drafts.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingLong(i -> drafts.get(i).point()));
        return order;
    }

    private static <I, O> History<I, O> assemble(List<Draft<I>> drafts, List<O> outputs) {
        History.Builder<I, O> history = History.builder();
        for (int i = 0; i < drafts.size(); i++) {
            Draft<I> d = drafts.get(i);
            if (d.unknown()) {
                history.unknown(d.client(), d.input(), d.invoke());
            } else {
                history.ok(d.client(), d.input(), outputs.get(i), d.invoke(), d.ret());
            }
        }
        return history.build();
    }

    static History<RegisterOp, RegisterResult> register(long seed) {
        return register(seed, UNKNOWN_RATE);
    }

    static History<RegisterOp, RegisterResult> register(long seed, double unknownRate) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Draft<RegisterOp>> drafts = drafts(random, unknownRate, () -> {
            int kind = random.nextInt(20);
            if (kind < 9) {
                return RegisterOp.read();
            }
            if (kind < 16) {
                return RegisterOp.write(random.nextInt(4));
            }
            return RegisterOp.cas(random.nextInt(4), random.nextInt(4));
        });
        List<RegisterResult> outputs = new ArrayList<>(Collections.nCopies(drafts.size(), null));
        long value = 0;
        for (int i : byPoint(drafts)) {
            Draft<RegisterOp> d = drafts.get(i);
            if (d.unknown() && !d.applied()) {
                continue;
            }
            RegisterResult out;
            if (d.input() instanceof RegisterOp.Write w) {
                value = w.value();
                out = RegisterResult.ok();
            } else if (d.input() instanceof RegisterOp.Cas c) {
                boolean swaps = value == c.expected();
                value = swaps ? c.update() : value;
                out = swaps ? RegisterResult.ok() : RegisterResult.failed();
            } else {
                out = RegisterResult.read(value);
            }
            if (random.nextDouble() < CORRUPTION_RATE) {
                out = d.input() instanceof RegisterOp.Cas
                        ? (random.nextBoolean() ? RegisterResult.ok() : RegisterResult.failed())
                        : RegisterResult.read(random.nextInt(4));
            }
            outputs.set(i, out);
        }
        return assemble(drafts, outputs);
    }

    static History<KvOp, String> kv(long seed) {
        return kv(seed, UNKNOWN_RATE);
    }

    static History<KvOp, String> kv(long seed, double unknownRate) {
        return kv(seed, unknownRate, false);
    }

    /**
     * A key-value history; with {@code globals} about one operation in eight is a global one
     * ({@link KvOp#dbSize()} or {@link KvOp#flushAll()}), whose presence makes the model check the
     * history as one partition.
     */
    static History<KvOp, String> kv(long seed, double unknownRate, boolean globals) {
        SplittableRandom random = new SplittableRandom(seed);
        String[] keys = {"a", "b"};
        String[] values = {"x", "y", "z"};
        List<Draft<KvOp>> drafts = drafts(random, unknownRate, () -> {
            String key = keys[random.nextInt(keys.length)];
            int kind = random.nextInt(globals ? 23 : 20);
            if (kind < 9) {
                return KvOp.get(key);
            }
            if (kind < 14) {
                return KvOp.put(key, values[random.nextInt(values.length)]);
            }
            if (kind < 16) {
                return KvOp.delete(key);
            }
            if (kind < 20) {
                return KvOp.append(key, values[random.nextInt(values.length)]);
            }
            return kind < 22 ? KvOp.dbSize() : KvOp.flushAll();
        });
        List<String> outputs = new ArrayList<>(Collections.nCopies(drafts.size(), null));
        Map<String, String> store = new HashMap<>();
        for (int i : byPoint(drafts)) {
            Draft<KvOp> d = drafts.get(i);
            if (d.unknown() && !d.applied()) {
                continue;
            }
            String out = null;
            if (d.input() instanceof KvOp.Get g) {
                out = store.get(g.key());
                if (random.nextDouble() < KV_READ_CORRUPTION_RATE) {
                    int pick = random.nextInt(values.length + 1);
                    out = pick == values.length ? null : values[pick];
                }
            } else if (d.input() instanceof KvOp.Put p) {
                store.put(p.key(), p.value());
            } else if (d.input() instanceof KvOp.Delete del) {
                store.remove(del.key());
            } else if (d.input() instanceof KvOp.Append a) {
                store.merge(a.key(), a.suffix(), String::concat);
            } else if (d.input() instanceof KvOp.DbSize) {
                out = Integer.toString(random.nextDouble() < KV_READ_CORRUPTION_RATE
                        ? random.nextInt(keys.length + 1) : store.size());
            } else if (d.input() instanceof KvOp.FlushAll) {
                store.clear();
                out = "OK";
            }
            outputs.set(i, out);
        }
        return assemble(drafts, outputs);
    }

    static History<CounterOp, Long> counter(long seed) {
        return counter(seed, UNKNOWN_RATE);
    }

    static History<CounterOp, Long> counter(long seed, double unknownRate) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Draft<CounterOp>> drafts = drafts(random, unknownRate, () -> random.nextInt(5) < 3
                ? CounterOp.add(1 + random.nextInt(2))
                : CounterOp.read());
        List<Long> outputs = new ArrayList<>(Collections.nCopies(drafts.size(), null));
        long value = 0;
        for (int i : byPoint(drafts)) {
            Draft<CounterOp> d = drafts.get(i);
            if (d.unknown() && !d.applied()) {
                continue;
            }
            if (d.input() instanceof CounterOp.Add a) {
                value += a.delta();
            }
            long out = value;
            if (random.nextDouble() < CORRUPTION_RATE) {
                out = value + random.nextInt(3) - 1;
            }
            outputs.set(i, out);
        }
        return assemble(drafts, outputs);
    }
}
