package dev.parallax.core.check;

import static dev.parallax.core.check.RegisterOp.cas;
import static dev.parallax.core.check.RegisterOp.read;
import static dev.parallax.core.check.RegisterOp.write;
import static dev.parallax.core.check.RegisterResult.failed;
import static dev.parallax.core.check.RegisterResult.ok;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RegisterHistoriesTest {

    private static final RegisterModel MODEL = new RegisterModel();

    private static History.Builder<RegisterOp, RegisterResult> history() {
        return History.builder();
    }

    private static CheckResult check(History.Builder<RegisterOp, RegisterResult> history) {
        return LinearizabilityChecker.check(MODEL, history.build());
    }

    @Test
    void acceptsSequentialHistory() {
        CheckResult result = check(history()
                .ok(1, read(), RegisterResult.read(0), 0, 10)
                .ok(1, write(5), ok(), 20, 30)
                .ok(2, read(), RegisterResult.read(5), 40, 50)
                .ok(2, cas(5, 6), ok(), 60, 70)
                .ok(1, cas(5, 7), failed(), 80, 90)
                .ok(1, read(), RegisterResult.read(6), 100, 110));

        assertThat(result.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.operations()).isEqualTo(6);
        assertThat(result.toString()).startsWith("LINEARIZABLE: 6 ops in 1 partitions");
    }

    @Test
    void acceptsOverlappingOperationsThatNeedReordering() {
        // The read invoked first sees the value of the write invoked last: only a linearization
        // that reorders the three concurrent operations explains it.
        CheckResult result = check(history()
                .ok(1, read(), RegisterResult.read(2), 0, 100)
                .ok(2, write(1), ok(), 10, 60)
                .ok(3, write(2), ok(), 20, 50)
                .ok(2, read(), RegisterResult.read(2), 110, 120));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void acceptsOperationsThatTouchAtAnInstantAsConcurrent() {
        CheckResult result = check(history()
                .ok(1, read(), RegisterResult.read(3), 0, 10)
                .ok(2, write(3), ok(), 10, 20));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void acceptsUnknownWriteThatTookEffect() {
        CheckResult result = check(history()
                .unknown(1, write(9), 0)
                .ok(2, read(), RegisterResult.read(9), 50, 60)
                .ok(2, read(), RegisterResult.read(9), 70, 80));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void acceptsUnknownWriteThatTookEffectLongAfterItsClientGaveUp() {
        CheckResult result = check(history()
                .unknown(1, write(9), 0)
                .ok(2, read(), RegisterResult.read(0), 50, 60)
                .ok(2, read(), RegisterResult.read(9), 1_000, 1_010));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void acceptsUnknownWriteThatNeverTookEffect() {
        CheckResult result = check(history()
                .ok(1, write(1), ok(), 0, 10)
                .unknown(1, write(2), 20)
                .unknown(1, cas(1, 3), 30)
                .ok(2, read(), RegisterResult.read(1), 50, 60));

        assertThat(result.isLinearizable()).isTrue();
    }

    @Test
    void dropsReadsWithUnknownOutcome() {
        CheckResult result = check(history()
                .ok(1, write(1), ok(), 0, 10)
                .unknown(2, read(), 5)
                .ok(1, read(), RegisterResult.read(1), 20, 30));

        assertThat(result.isLinearizable()).isTrue();
        assertThat(result.operations()).isEqualTo(2);
    }

    @Test
    void rejectsStaleRead() {
        CheckResult result = check(history()
                .ok(1, write(1), ok(), 0, 10)
                .ok(1, write(2), ok(), 20, 30)
                .ok(2, read(), RegisterResult.read(1), 40, 50));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report())
                .contains("Longest partial linearization: 2 ops, leaving state 2.")
                .containsPattern("STUCK +2 +40ns +50ns  read\\(\\) -> 1");
    }

    @Test
    void rejectsLostWrite() {
        CheckResult result = check(history()
                .ok(1, write(7), ok(), 0, 10)
                .ok(2, read(), RegisterResult.read(0), 20, 30));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).containsPattern("#1 +1 +0ns +10ns  write\\(7\\) -> ok");
    }

    @Test
    void rejectsReadOfValueNeverWritten() {
        CheckResult result = check(history()
                .ok(1, write(1), ok(), 0, 100)
                .ok(2, read(), RegisterResult.read(42), 10, 90));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("read() -> 42");
    }

    @Test
    void rejectsViolationOfRealTimeOrder() {
        // The read can only be explained by ordering the write first, but the write was invoked
        // after the read had returned.
        CheckResult result = check(history()
                .ok(1, read(), RegisterResult.read(1), 0, 10)
                .ok(2, write(1), ok(), 20, 30));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report())
                .contains("Longest partial linearization: 0 ops, leaving state 0.")
                .containsPattern("STUCK +1 +0ns +10ns  read\\(\\) -> 1")
                .containsPattern("later +2 +20ns +30ns  write\\(1\\) -> ok");
    }

    @Test
    void rejectsCasThatClaimsSuccessAgainstAnotherValue() {
        CheckResult result = check(history()
                .ok(1, write(1), ok(), 0, 10)
                .ok(2, cas(0, 5), ok(), 20, 30));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("cas(0, 5) -> ok");
    }

    @Test
    void rejectsTwoSuccessfulCasFromTheSameValue() {
        CheckResult result = check(history()
                .ok(1, cas(0, 1), ok(), 0, 50)
                .ok(2, cas(0, 2), ok(), 10, 60));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void rejectsReadOfUnknownWriteThatThenDisappears() {
        CheckResult result = check(history()
                .unknown(1, write(9), 0)
                .ok(2, read(), RegisterResult.read(9), 50, 60)
                .ok(2, read(), RegisterResult.read(0), 70, 80));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void acceptsEmptyHistory() {
        assertThat(check(history()).isLinearizable()).isTrue();
    }

    @Test
    void honoursInitialValue() {
        History<RegisterOp, RegisterResult> h = history().ok(1, read(), RegisterResult.read(3), 0, 1).build();

        assertThat(LinearizabilityChecker.check(new RegisterModel(3), h).isLinearizable()).isTrue();
        assertThat(LinearizabilityChecker.check(new RegisterModel(), h).isLinearizable()).isFalse();
    }
}
