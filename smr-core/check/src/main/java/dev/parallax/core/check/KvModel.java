package dev.parallax.core.check;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A string key-value map with per-key operations and the global operations {@code DBSIZE} and
 * {@code FLUSHALL} ({@link KvOp}). The state is the map's content as an immutable {@link Map}
 * (empty at first).
 *
 * <p><b>Partitioning.</b> A history of per-key operations only is split into one partition per
 * key (P-compositionality, {@link Partition}): operations on different keys commute and touch
 * disjoint state, so each partition's state is a map of at most one key and the checker stays
 * fast on long histories. A history that contains a global operation ({@link KvOp#isGlobal()}) is
 * checked as one partition, the whole history: a {@code FLUSHALL} writes every key and a
 * {@code DBSIZE} reads every key at a single linearization point, so neither commutes with the
 * operations on any key, and checking keys apart would let each key's partition place the global
 * operation at a different point (e.g. a long {@code FLUSHALL} concurrent with {@code put(a)} then
 * {@code put(b)}, followed by reads of {@code a} present and {@code b} absent, passes key by key,
 * the flush before {@code put(a)} for one key and after {@code put(b)} for the other, but no single
 * point fits both). Checking the whole history costs more (the search
 * interleaves every key's operations), so histories with global operations should use a small
 * key space.
 *
 * <p>Stateless, thread-safe, non-blocking.
 */
public final class KvModel implements Model<Map<String, String>, KvOp, String> {

    /** Creates the model. */
    public KvModel() {
    }

    @Override
    public Map<String, String> initialState() {
        return Map.of();
    }

    @Override
    public Map<String, String> step(Map<String, String> state, KvOp input, String output) {
        if (input instanceof KvOp.Get get) {
            return Objects.equals(state.get(get.key()), output) ? state : null;
        }
        if (input instanceof KvOp.DbSize) {
            return Integer.toString(state.size()).equals(output) ? state : null;
        }
        return stepUnknownOutcome(state, input);
    }

    @Override
    public Map<String, String> stepUnknownOutcome(Map<String, String> state, KvOp input) {
        if (input instanceof KvOp.Put put) {
            return with(state, put.key(), put.value());
        }
        if (input instanceof KvOp.Delete delete) {
            return without(state, delete.key());
        }
        if (input instanceof KvOp.Append append) {
            String value = state.get(append.key());
            return with(state, append.key(), value == null ? append.suffix() : value + append.suffix());
        }
        if (input instanceof KvOp.FlushAll) {
            return Map.of();
        }
        return state;
    }

    private static Map<String, String> with(Map<String, String> state, String key, String value) {
        if (state.isEmpty() || state.size() == 1 && state.containsKey(key)) {
            return Map.of(key, value);
        }
        Map<String, String> next = new HashMap<>(state);
        next.put(key, value);
        return Map.copyOf(next);
    }

    private static Map<String, String> without(Map<String, String> state, String key) {
        if (!state.containsKey(key)) {
            return state;
        }
        if (state.size() == 1) {
            return Map.of();
        }
        Map<String, String> next = new HashMap<>(state);
        next.remove(key);
        return Map.copyOf(next);
    }

    @Override
    public boolean isReadOnly(KvOp input) {
        return input instanceof KvOp.Get || input instanceof KvOp.DbSize;
    }

    /**
     * One partition per key, labelled {@code key=<key>}, when every operation is a per-key one;
     * the whole history as one partition labelled {@code all} when it contains a global operation
     * (see the class comment for why, and for the cost).
     */
    @Override
    public List<Partition<KvOp, String>> partition(History<KvOp, String> history) {
        for (Operation<KvOp, String> op : history) {
            if (op.input().isGlobal()) {
                return Partition.whole(history);
            }
        }
        return Partition.byKey(history, KvOp::key, "key=");
    }

    @Override
    public String describeInput(KvOp input) {
        return input.toString();
    }

    @Override
    public String describeOutput(KvOp input, String output) {
        if (input instanceof KvOp.Get) {
            return output == null ? "absent" : output;
        }
        if (input instanceof KvOp.DbSize) {
            return String.valueOf(output);
        }
        return "ok";
    }

    /** {@code absent} for the empty map, else its entries in key order, e.g. {@code a=1, b=2}. */
    @Override
    public String describeState(Map<String, String> state) {
        if (state.isEmpty()) {
            return "absent";
        }
        StringBuilder s = new StringBuilder();
        new TreeMap<>(state).forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return s.toString();
    }
}
