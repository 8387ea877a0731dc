package dev.parallax.core.check;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Sequential specifications for {@link BruteForceChecker}, written independently of the models
 * under test: the key-value one keeps the whole map, so it also checks the partitioning by key (and the
 * whole-history partition of histories with global operations).
 */
final class Specs {

    private Specs() {
    }

    static final BruteForceChecker.Spec<RegisterOp, RegisterResult> REGISTER = new BruteForceChecker.Spec<>() {
        @Override
        public Object initial() {
            return 0L;
        }

        @Override
        public Object apply(Object state, RegisterOp input, RegisterResult output, boolean known) {
            long value = (Long) state;
            if (input instanceof RegisterOp.Write w) {
                return w.value();
            }
            if (input instanceof RegisterOp.Cas c) {
                boolean swaps = value == c.expected();
                if (known && output.success() != swaps) {
                    return null;
                }
                return swaps ? c.update() : value;
            }
            return !known || output.value() == value ? state : null;
        }
    };

    static final BruteForceChecker.Spec<KvOp, String> KV = new BruteForceChecker.Spec<>() {
        @Override
        public Object initial() {
            return Map.of();
        }

        @Override
        public Object apply(Object state, KvOp input, String output, boolean known) {
            @SuppressWarnings("unchecked")
            Map<String, String> map = (Map<String, String>) state;
            if (input instanceof KvOp.Get g) {
                return !known || Objects.equals(map.get(g.key()), output) ? state : null;
            }
            if (input instanceof KvOp.DbSize) {
                return !known || Integer.toString(map.size()).equals(output) ? state : null;
            }
            Map<String, String> next = new HashMap<>(map);
            if (input instanceof KvOp.Put p) {
                next.put(p.key(), p.value());
            } else if (input instanceof KvOp.Delete d) {
                next.remove(d.key());
            } else if (input instanceof KvOp.Append a) {
                next.merge(a.key(), a.suffix(), String::concat);
            } else if (input instanceof KvOp.FlushAll) {
                next.clear();
            }
            return next;
        }
    };

    static final BruteForceChecker.Spec<CounterOp, Long> COUNTER = new BruteForceChecker.Spec<>() {
        @Override
        public Object initial() {
            return 0L;
        }

        @Override
        public Object apply(Object state, CounterOp input, Long output, boolean known) {
            long value = (Long) state;
            long next = input instanceof CounterOp.Add a ? value + a.delta() : value;
            return !known || output == next ? next : null;
        }
    };
}
