package dev.parallax.core.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Histories of a simulated linearizable key-value store: each client issues one operation at a
 * time after a random think time, the store applies it at a random instant inside the call's
 * interval, so the history is linearizable by construction (order by those instants). A small
 * fraction of calls lose their reply (unknown outcome), half of those having taken effect. With a
 * global rate, that fraction of the calls are {@code DBSIZE} (five in six) or {@code FLUSHALL}.
 */
final class SimulatedKvHistories {

    private SimulatedKvHistories() {
    }

    private record Call(int client, KvOp input, long invoke, long point, long ret, boolean unknown, boolean applied) {
    }

    static History<KvOp, String> generate(long seed, int operations, int clients, int keys, double unknownRate) {
        return generate(seed, operations, clients, keys, unknownRate, 0);
    }

    static History<KvOp, String> generate(long seed, int operations, int clients, int keys, double unknownRate,
                                          double globalRate) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] clientTime = new long[clients];
        List<Call> calls = new ArrayList<>(operations);
        int written = 0;
        for (int i = 0; i < operations; i++) {
            int client = i % clients;
            long invoke = clientTime[client] + random.nextInt(50);
            long point = invoke + 1 + random.nextInt(200);
            long ret = point + 1 + random.nextInt(200);
            clientTime[client] = ret;
            String key = "k" + random.nextInt(keys);
            int kind = random.nextInt(10);
            KvOp input = globalRate > 0 && random.nextDouble() < globalRate
                    ? (random.nextInt(6) < 5 ? KvOp.dbSize() : KvOp.flushAll())
                    : kind < 5 ? KvOp.get(key)
                    : kind < 8 ? KvOp.put(key, "v" + written++)
                    : kind < 9 ? KvOp.append(key, "a" + written++ + ",")
                    : KvOp.delete(key);
            boolean unknown = random.nextDouble() < unknownRate;
            calls.add(new Call(client, input, invoke, point, ret, unknown, random.nextBoolean()));
        }
        String[] outputs = new String[operations];
        Integer[] byPoint = new Integer[operations];
        for (int i = 0; i < operations; i++) {
            byPoint[i] = i;
        }
        Arrays.sort(byPoint, Comparator.comparingLong(i -> calls.get(i).point()));
        Map<String, String> store = new HashMap<>();
        for (int i : byPoint) {
            Call call = calls.get(i);
            if (call.unknown() && !call.applied()) {
                continue;
            }
            KvOp op = call.input();
            if (op instanceof KvOp.Get get) {
                outputs[i] = store.get(get.key());
            } else if (op instanceof KvOp.Put put) {
                store.put(put.key(), put.value());
            } else if (op instanceof KvOp.Append append) {
                store.merge(append.key(), append.suffix(), String::concat);
            } else if (op instanceof KvOp.Delete) {
                store.remove(op.key());
            } else if (op instanceof KvOp.DbSize) {
                outputs[i] = Integer.toString(store.size());
            } else {
                store.clear();
                outputs[i] = "OK";
            }
        }
        History.Builder<KvOp, String> history = History.builder();
        for (int i = 0; i < operations; i++) {
            Call call = calls.get(i);
            if (call.unknown()) {
                history.unknown(call.client(), call.input(), call.invoke());
            } else {
                history.ok(call.client(), call.input(), outputs[i], call.invoke(), call.ret());
            }
        }
        return history.build();
    }
}
