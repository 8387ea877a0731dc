package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ViolationReportTest {

    @Test
    void formatsRelativeTimesCompactly() {
        assertThat(ViolationReport.relative(1_000_000, 1_000_000)).isEqualTo("0ns");
        assertThat(ViolationReport.relative(999, 0)).isEqualTo("999ns");
        assertThat(ViolationReport.relative(12_345, 0)).isEqualTo("12.3us");
        assertThat(ViolationReport.relative(12_345_678, 0)).isEqualTo("12.346ms");
        assertThat(ViolationReport.relative(12_345_678_901L, 0)).isEqualTo("12.346s");
    }

    @Test
    void showsTheEndOfThePrefixTheOpenOperationsAndWhatFollows() {
        History.Builder<RegisterOp, RegisterResult> history = History.builder();
        for (int i = 1; i <= 6; i++) {
            history.ok(1, RegisterOp.write(i), RegisterResult.ok(), i * 1_000_000L, i * 1_000_000L + 500_000);
        }
        history.ok(2, RegisterOp.write(7), RegisterResult.ok(), 6_800_000, 7_500_000)
                .unknown(3, RegisterOp.cas(6, 8), 6_900_000)
                .ok(4, RegisterOp.read(), RegisterResult.read(5), 7_000_000, 7_200_000)
                .ok(1, RegisterOp.read(), RegisterResult.read(7), 8_000_000, 8_100_000);

        CheckResult result = LinearizabilityChecker.check(new RegisterModel(), history.build());

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.partition()).contains("all");
        assertThat(result.toString()).isEqualTo(result.report());
        String[] lines = result.report().split("\n");
        assertThat(lines[0]).isEqualTo("NOT_LINEARIZABLE: partition all (10 ops) has no linearization.");
        assertThat(result.report())
                .contains("  row    client     invoke     return  operation")
                .contains("  ...    4 earlier linearized operations")
                .containsPattern("#7 +\\d+ .*")
                .containsPattern("STUCK +4 +6\\.000ms +6\\.200ms  read\\(\\) -> 5")
                .containsPattern("later +1 +7\\.000ms +7\\.100ms  read\\(\\) -> 7");
        assertThat(lines.length).isLessThan(15);
    }
}
