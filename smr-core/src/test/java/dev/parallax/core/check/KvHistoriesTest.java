package dev.parallax.core.check;

import static dev.parallax.core.check.KvOp.append;
import static dev.parallax.core.check.KvOp.delete;
import static dev.parallax.core.check.KvOp.get;
import static dev.parallax.core.check.KvOp.put;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KvHistoriesTest {

    private static final KvModel MODEL = new KvModel();

    private static History.Builder<KvOp, String> history() {
        return History.builder();
    }

    private static CheckResult check(History.Builder<KvOp, String> history) {
        return LinearizabilityChecker.check(MODEL, history.build());
    }

    @Test
    void acceptsInterleavedKeys() {
        CheckResult result = check(history()
                .ok(1, put("a", "1"), null, 0, 10)
                .ok(2, put("b", "2"), null, 5, 15)
                .ok(1, get("b"), "2", 20, 30)
                .ok(2, get("a"), "1", 20, 30)
                .ok(3, get("c"), null, 25, 35)
                .ok(1, delete("a"), null, 40, 50)
                .ok(2, get("a"), null, 60, 70)
                .ok(3, append("b", "x"), null, 60, 70)
                .ok(3, get("b"), "2x", 80, 90));

        assertThat(result.isLinearizable()).isTrue();
        assertThat(result.partitions()).isEqualTo(3);
    }

    @Test
    void acceptsConcurrentAppendsInEitherOrder() {
        CheckResult result = check(history()
                .ok(1, append("k", "a"), null, 0, 50)
                .ok(2, append("k", "b"), null, 10, 40)
                .ok(3, get("k"), "ba", 60, 70));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void acceptsUnknownPutThatTookEffectAndUnknownDeleteThatDidNot() {
        CheckResult result = check(history()
                .ok(1, put("k", "v1"), null, 0, 10)
                .unknown(1, put("k", "v2"), 20)
                .unknown(2, delete("k"), 25)
                .ok(3, get("k"), "v2", 100, 110)
                .ok(3, get("k"), "v2", 120, 130));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void rejectsLostAppend() {
        CheckResult result = check(history()
                .ok(1, append("k", "a"), null, 0, 10)
                .ok(2, append("k", "b"), null, 20, 30)
                .ok(3, get("k"), "b", 40, 50));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.partition()).contains("key=k");
    }

    @Test
    void rejectsReadOfDeletedValue() {
        CheckResult result = check(history()
                .ok(1, put("k", "v"), null, 0, 10)
                .ok(1, delete("k"), null, 20, 30)
                .ok(2, get("k"), "v", 40, 50));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("leaving state absent").contains("get(k) -> v");
    }

    @Test
    void pinpointsTheOneBadKeyAmongMany() {
        History.Builder<KvOp, String> history = history();
        long t = 0;
        for (int round = 0; round < 20; round++) {
            for (int key = 0; key < 50; key++) {
                String k = "k" + key;
                history.ok(key % 7, put(k, "v" + round), null, t, t + 15);
                history.ok(key % 7 + 1, get(k), "v" + round, t + 5, t + 20);
                t += 10;
            }
        }
        // k33 reads the value of round 3 in round 12: a stale read on one key only.
        history.ok(99, get("k33"), "v3", t + 100, t + 110);

        CheckResult result = check(history);

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.partition()).contains("key=k33");
        assertThat(result.partitions()).isEqualTo(50);
        assertThat(result.report())
                .startsWith("NOT_LINEARIZABLE: partition key=k33 (41 ops)")
                .contains("36 earlier linearized operations")
                .containsPattern("STUCK +99 .* get\\(k33\\) -> v3");
    }
}
