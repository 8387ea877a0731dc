package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CheckBudgetTest {

    private static final History<KvOp, String> HISTORY = SimulatedKvHistories.generate(5, 2_000, 8, 10, 0.01);

    @Test
    void exhaustedStepBudgetGivesUnknown() {
        CheckResult result = LinearizabilityChecker.check(new KvModel(), HISTORY, CheckBudget.ofSteps(500));

        assertThat(result.verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(result.steps()).isEqualTo(500);
        assertThat(result.partition()).isPresent();
        assertThat(result.toString())
                .startsWith("UNKNOWN: the budget (no time limit, 500 steps) ran out after 500 steps in partition key=");
    }

    @Test
    void sufficientStepBudgetGivesTheVerdict() {
        long needed = LinearizabilityChecker.check(new KvModel(), HISTORY).steps();

        assertThat(LinearizabilityChecker.check(new KvModel(), HISTORY, CheckBudget.ofSteps(needed)).verdict())
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(LinearizabilityChecker.check(new KvModel(), HISTORY, CheckBudget.ofSteps(needed - 1)).verdict())
                .isEqualTo(Verdict.UNKNOWN);
    }

    @Test
    void exhaustedTimeBudgetGivesUnknown() {
        CheckResult result = LinearizabilityChecker.check(new KvModel(), HISTORY, CheckBudget.ofTime(Duration.ZERO));

        assertThat(result.verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(result.report()).contains("PT0S");
    }

    @Test
    void validatesLimits() {
        assertThatThrownBy(() -> CheckBudget.ofSteps(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CheckBudget.ofTime(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(CheckBudget.unlimited().timeNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(CheckBudget.ofTime(Duration.ofDays(365 * 1000L)).timeNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(CheckBudget.ofTime(Duration.ofMillis(3)).timeNanos()).isEqualTo(3_000_000L);
    }
}
