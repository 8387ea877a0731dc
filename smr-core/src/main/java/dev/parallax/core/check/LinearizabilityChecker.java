package dev.parallax.core.check;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Decides whether a {@link History} is linearizable with respect to a {@link Model}.
 *
 * <p>Reads with an unknown outcome are dropped first (they have no effect), the model partitions
 * the rest, and each partition is searched independently with the Wing–Gong algorithm and Lowe's
 * memoization ({@link WglSearch}); the history is linearizable iff every partition is
 * (P-compositionality). The first partition without a linearization ends the check with a
 * report; an exhausted {@link CheckBudget} ends it with {@link Verdict#UNKNOWN}.
 *
 * <p>Stateless and thread-safe; a check runs on the calling thread, blocks it for the duration of
 * the search (bounded by the budget), and allocates memory roughly proportional to the number of
 * distinct search configurations.
 */
public final class LinearizabilityChecker {

    private LinearizabilityChecker() {
    }

    /**
     * Checks {@code history} without a budget.
     *
     * @throws NullPointerException if an argument is null
     * @throws RuntimeException whatever the model throws
     */
    public static <S, I, O> CheckResult check(Model<S, I, O> model, History<I, O> history) {
        return check(model, history, CheckBudget.unlimited());
    }

    /**
     * Checks {@code history}, giving up with {@link Verdict#UNKNOWN} once {@code budget} is spent.
     *
     * @throws NullPointerException if an argument is null
     * @throws RuntimeException whatever the model throws
     */
    public static <S, I, O> CheckResult check(Model<S, I, O> model, History<I, O> history, CheckBudget budget) {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(budget, "budget");
        long startNanos = System.nanoTime();
        long timeLimitNanos = budget.timeNanos();
        History<I, O> relevant = history.filter(op -> !(op.outcomeUnknown() && model.isReadOnly(op.input())));
        long originNanos = Long.MAX_VALUE;
        for (Operation<I, O> op : relevant) {
            originNanos = Math.min(originNanos, op.invokeNanos());
        }
        List<Partition<I, O>> partitions = model.partition(relevant);
        long steps = 0;
        for (int p = 0; p < partitions.size(); p++) {
            Partition<I, O> partition = partitions.get(p);
            SearchOutcome outcome;
            WglSearch<S, I, O> search = null;
            // A search checks the clock only every few thousand steps, so many small partitions
            // could otherwise overrun the time budget unnoticed.
            if (System.nanoTime() - startNanos > timeLimitNanos) {
                outcome = SearchOutcome.of(Verdict.UNKNOWN, 0, 0);
            } else {
                search = new WglSearch<>(model, partition.history());
                outcome = search.run(budget.steps() - steps, startNanos, timeLimitNanos);
            }
            steps += outcome.steps();
            if (outcome.verdict() == Verdict.NOT_LINEARIZABLE) {
                String report = ViolationReport.render(
                        model, partition.label(), search.operations(), outcome, originNanos);
                return new CheckResult(Verdict.NOT_LINEARIZABLE, partition.label(), report,
                        relevant.size(), partitions.size(), steps);
            }
            if (outcome.verdict() == Verdict.UNKNOWN) {
                String report = String.format(Locale.ROOT,
                        "UNKNOWN: the budget (%s) ran out after %d steps in partition %s (%d ops), "
                                + "%d of %d partitions fully checked, none failed.",
                        describe(budget), steps, partition.label(), partition.history().size(),
                        p, partitions.size());
                return new CheckResult(Verdict.UNKNOWN, partition.label(), report,
                        relevant.size(), partitions.size(), steps);
            }
        }
        String report = String.format(Locale.ROOT, "LINEARIZABLE: %d ops in %d partitions, %d search steps.",
                relevant.size(), partitions.size(), steps);
        return new CheckResult(Verdict.LINEARIZABLE, null, report, relevant.size(), partitions.size(), steps);
    }

    private static String describe(CheckBudget budget) {
        String time = budget.time().equals(CheckBudget.UNLIMITED_TIME) ? "no time limit" : budget.time().toString();
        String steps = budget.steps() == Long.MAX_VALUE ? "no step limit" : budget.steps() + " steps";
        return time + ", " + steps;
    }
}
