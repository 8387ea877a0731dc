package dev.parallax.core.check;

import static dev.parallax.core.check.CounterOp.add;
import static dev.parallax.core.check.CounterOp.read;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CounterHistoriesTest {

    private static final CounterModel MODEL = new CounterModel();

    private static History.Builder<CounterOp, Long> history() {
        return History.builder();
    }

    private static CheckResult check(History.Builder<CounterOp, Long> history) {
        return LinearizabilityChecker.check(MODEL, history.build());
    }

    @Test
    void acceptsConcurrentIncrementsObservedInReverseInvocationOrder() {
        CheckResult result = check(history()
                .ok(1, add(1), 3L, 0, 100)
                .ok(2, add(1), 2L, 10, 90)
                .ok(3, add(1), 1L, 20, 80)
                .ok(4, read(), 3L, 110, 120));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void acceptsUnknownIncrementsEitherWay() {
        CheckResult result = check(history()
                .unknown(1, add(5), 0)
                .unknown(2, add(7), 0)
                .ok(3, add(1), 8L, 10, 20)
                .ok(3, read(), 8L, 30, 40));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void rejectsSkippedValue() {
        CheckResult result = check(history()
                .ok(1, add(1), 1L, 0, 10)
                .ok(2, add(1), 3L, 20, 30));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("leaving state 1.").contains("add(1) -> 3");
    }

    @Test
    void rejectsDuplicatedValue() {
        CheckResult result = check(history()
                .ok(1, add(1), 1L, 0, 50)
                .ok(2, add(1), 1L, 10, 60)
                .ok(3, read(), 2L, 70, 80));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void rejectsReadThatGoesBackwards() {
        CheckResult result = check(history()
                .ok(1, add(2), 2L, 0, 10)
                .ok(2, read(), 2L, 20, 30)
                .ok(3, read(), 0L, 40, 50));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }
}
