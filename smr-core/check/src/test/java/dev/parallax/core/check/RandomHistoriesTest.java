package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/** The random histories of {@link BruteForceAgreementTest} exercise both verdicts. */
class RandomHistoriesTest {

    private static final int SEEDS = 400;

    @Test
    void registerHistoriesAreOftenLinearizableAndOftenNot() {
        assertMixed(RandomHistories::register, Specs.REGISTER);
    }

    @Test
    void kvHistoriesAreOftenLinearizableAndOftenNot() {
        assertMixed(RandomHistories::kv, Specs.KV);
    }

    @Test
    void counterHistoriesAreOftenLinearizableAndOftenNot() {
        assertMixed(RandomHistories::counter, Specs.COUNTER);
    }

    private static <I, O> void assertMixed(LongFunction<History<I, O>> generator, BruteForceChecker.Spec<I, O> spec) {
        int linearizable = 0;
        int withUnknown = 0;
        int withOverlap = 0;
        int maxSize = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            History<I, O> history = generator.apply(seed);
            maxSize = Math.max(maxSize, history.size());
            if (BruteForceChecker.isLinearizable(spec, history)) {
                linearizable++;
            }
            if (history.operations().stream().anyMatch(Operation::outcomeUnknown)) {
                withUnknown++;
            }
            if (hasOverlap(history)) {
                withOverlap++;
            }
        }
        assertThat(linearizable).isBetween(SEEDS / 4, SEEDS * 3 / 4);
        assertThat(withUnknown).isGreaterThan(SEEDS / 4);
        assertThat(withOverlap).isGreaterThan(SEEDS / 2);
        assertThat(maxSize).isEqualTo(RandomHistories.MAX_OPS);
    }

    private static boolean hasOverlap(History<?, ?> history) {
        for (Operation<?, ?> a : history) {
            for (Operation<?, ?> b : history) {
                if (a != b && !a.precedes(b) && !b.precedes(a)) {
                    return true;
                }
            }
        }
        return false;
    }
}
