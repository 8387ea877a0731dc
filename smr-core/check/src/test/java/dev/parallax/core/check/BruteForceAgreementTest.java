package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The checker, and each of the two search orders on its own, agree with the brute-force oracle on
 * small random histories of every model.
 */
class BruteForceAgreementTest {

    private static final double MANY_TIMEOUTS = 0.45;

    @Property(tries = 600)
    void registerCheckerAgreesWithBruteForce(@ForAll long seed) {
        agree(new RegisterModel(), Specs.REGISTER, RandomHistories.register(seed));
    }

    @Property(tries = 600)
    void kvCheckerAgreesWithBruteForce(@ForAll long seed) {
        agree(new KvModel(), Specs.KV, RandomHistories.kv(seed));
    }

    @Property(tries = 600)
    void kvWithGlobalOperationsAgreesWithBruteForce(@ForAll long seed) {
        agree(new KvModel(), Specs.KV, RandomHistories.kv(seed, RandomHistories.UNKNOWN_RATE, true));
    }

    @Property(tries = 400)
    void kvWithGlobalOperationsAgreesWithManyTimeouts(@ForAll long seed) {
        agree(new KvModel(), Specs.KV, RandomHistories.kv(seed, MANY_TIMEOUTS, true));
    }

    @Property(tries = 600)
    void counterCheckerAgreesWithBruteForce(@ForAll long seed) {
        agree(new CounterModel(), Specs.COUNTER, RandomHistories.counter(seed));
    }

    @Property(tries = 400)
    void registerAgreesWithManyTimeouts(@ForAll long seed) {
        agree(new RegisterModel(), Specs.REGISTER, RandomHistories.register(seed, MANY_TIMEOUTS));
    }

    @Property(tries = 400)
    void kvAgreesWithManyTimeouts(@ForAll long seed) {
        agree(new KvModel(), Specs.KV, RandomHistories.kv(seed, MANY_TIMEOUTS));
    }

    @Property(tries = 400)
    void counterAgreesWithManyTimeouts(@ForAll long seed) {
        agree(new CounterModel(), Specs.COUNTER, RandomHistories.counter(seed, MANY_TIMEOUTS));
    }

    private static <S, I, O> void agree(Model<S, I, O> model, BruteForceChecker.Spec<I, O> spec, History<I, O> history) {
        Verdict expected = BruteForceChecker.isLinearizable(spec, history)
                ? Verdict.LINEARIZABLE
                : Verdict.NOT_LINEARIZABLE;

        CheckResult result = LinearizabilityChecker.check(model, history);

        assertThat(result.verdict()).as("history %s%nreport %s", history, result).isEqualTo(expected);
        for (boolean knownFirst : new boolean[] {false, true}) {
            assertThat(searchEveryPartition(model, history, knownFirst))
                    .as("knownFirst=%s, history %s", knownFirst, history)
                    .isEqualTo(expected);
        }
    }

    private static <S, I, O> Verdict searchEveryPartition(Model<S, I, O> model, History<I, O> history, boolean knownFirst) {
        History<I, O> relevant = history.filter(op -> !(op.outcomeUnknown() && model.isReadOnly(op.input())));
        for (Partition<I, O> partition : model.partition(relevant)) {
            WglSearch<S, I, O> search = new WglSearch<>(model, partition.history());
            // A run cut short by its budget must leave nothing behind for the next run.
            assertThat(search.run(2, System.nanoTime(), Long.MAX_VALUE, !knownFirst).verdict())
                    .isIn(Verdict.UNKNOWN, Verdict.LINEARIZABLE, Verdict.NOT_LINEARIZABLE);
            SearchOutcome outcome = search.run(Long.MAX_VALUE, System.nanoTime(), Long.MAX_VALUE, knownFirst);
            if (outcome.verdict() != Verdict.LINEARIZABLE) {
                return outcome.verdict();
            }
        }
        return Verdict.LINEARIZABLE;
    }
}
