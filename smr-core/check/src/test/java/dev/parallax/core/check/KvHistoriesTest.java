package dev.parallax.core.check;

import static dev.parallax.core.check.KvOp.append;
import static dev.parallax.core.check.KvOp.dbSize;
import static dev.parallax.core.check.KvOp.delete;
import static dev.parallax.core.check.KvOp.flushAll;
import static dev.parallax.core.check.KvOp.get;
import static dev.parallax.core.check.KvOp.put;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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

    @Test
    void acceptsGlobalOperationsAsOnePartition() {
        CheckResult result = check(history()
                .ok(1, put("a", "1"), null, 0, 10)
                .ok(2, put("b", "2"), null, 0, 10)
                .ok(3, dbSize(), "2", 20, 30)
                // Concurrent with the flush: it counts before (2) or after (0) it.
                .ok(1, flushAll(), "OK", 40, 60)
                .ok(2, dbSize(), "0", 45, 55)
                .ok(3, get("a"), null, 50, 70)
                .ok(3, put("a", "3"), null, 80, 90)
                .unknown(2, flushAll(), 85)
                .ok(1, dbSize(), "1", 95, 100)
                .ok(1, get("a"), null, 110, 120)
                .ok(1, dbSize(), "0", 130, 140));

        assertThat(result.isLinearizable()).as("%s", result).isTrue();
        assertThat(result.partitions()).isEqualTo(1);
    }

    @Test
    void rejectsDbSizeCountingAKeyDeletedBeforeItBegan() {
        CheckResult result = check(history()
                .ok(1, put("a", "1"), null, 0, 10)
                .ok(2, put("b", "2"), null, 0, 10)
                .ok(1, delete("a"), null, 20, 30)
                .ok(2, dbSize(), "2", 40, 50));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.partition()).contains("all");
        assertThat(result.report()).contains("leaving state b=2").containsPattern("STUCK +2 .* dbsize\\(\\) -> 2");
    }

    @Test
    void rejectsReadOfAValueACompletedFlushRemoved() {
        CheckResult result = check(history()
                .ok(1, put("a", "1"), null, 0, 10)
                .ok(2, flushAll(), "OK", 20, 30)
                .ok(1, get("a"), "1", 40, 50));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("get(a) -> 1");
    }

    @Test
    void rejectsAFlushThatKeysWouldPlaceAtDifferentPoints() {
        // Key by key this passes: the flush may precede put(a) and follow put(b). But a flush
        // takes effect at one point, which cannot be both before 30 and after 40.
        CheckResult result = check(history()
                .ok(1, flushAll(), "OK", 10, 100)
                .ok(2, put("a", "1"), null, 20, 30)
                .ok(2, put("b", "1"), null, 40, 50)
                .ok(2, get("a"), "1", 110, 120)
                .ok(2, get("b"), null, 130, 140));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.partitions()).isEqualTo(1);
    }

    @Test
    void keepsThePerKeyPartitionsWithoutGlobalOperations() {
        History<KvOp, String> history = SimulatedKvHistories.generate(3, 2_000, 6, 8, 0.01);

        assertThat(MODEL.partition(history)).hasSize(8).allSatisfy(p -> assertThat(p.label()).startsWith("key="));
        assertThat(LinearizabilityChecker.check(MODEL, history).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void checksALongHistoryWithGlobalOperationsOnFewKeysAsOnePartition() {
        // The shape of the process tests' histories: a few clients, few keys, ~6% global commands.
        History<KvOp, String> history = SimulatedKvHistories.generate(5, 3_000, 6, 4, 0.005, 0.06);
        assertThat(history.operations()).anyMatch(op -> op.input() instanceof KvOp.FlushAll)
                .anyMatch(op -> op.input() instanceof KvOp.DbSize && !op.outcomeUnknown());

        CheckResult result = LinearizabilityChecker.check(MODEL, history, CheckBudget.ofSteps(2_000_000));

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.partitions()).isEqualTo(1);
    }

    @Test
    void findsOneWrongCountInALongHistoryWithGlobalOperations() {
        History<KvOp, String> history = SimulatedKvHistories.generate(5, 3_000, 6, 4, 0.005, 0.06);
        List<Operation<KvOp, String>> ops = new ArrayList<>(history.operations());
        int victim = 2_000;
        while (!(ops.get(victim).input() instanceof KvOp.DbSize) || ops.get(victim).outcomeUnknown()) {
            victim++;
        }
        Operation<KvOp, String> count = ops.get(victim);
        ops.set(victim, Operation.completed(count.clientId(), count.input(), "5", count.invokeNanos(), count.returnNanos()));

        CheckResult result = LinearizabilityChecker.check(MODEL, History.of(ops), CheckBudget.ofSteps(2_000_000));

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("dbsize() -> 5");
    }
}
