package dev.parallax.core.check;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Decides whether a {@link History} is linearizable with respect to a {@link Model}.
 *
 * <p>Reads with an unknown outcome are dropped first (they have no effect), the model partitions
 * the rest, and each partition is searched independently with the Wing–Gong algorithm and Lowe's
 * memoization; the history is linearizable iff every partition is (P-compositionality). The first
 * partition without a linearization ends the check with a report; an exhausted
 * {@link CheckBudget} ends it with {@link Verdict#UNKNOWN}.
 *
 * <p>Stateless and thread-safe; a check runs on the calling thread and blocks it for the duration
 * of the search, which is bounded by the budget. Memory grows with the number of distinct search
 * configurations, so a step budget bounds it too. Histories whose partitions have high concurrency
 * or many operations with unknown outcome can need exponentially many configurations; give such
 * checks a budget.
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
            // A search reads the clock only every few thousand steps, so many small partitions
            // could overrun the time budget unnoticed without this check between them.
            if (System.nanoTime() - startNanos > timeLimitNanos) {
                return unknown(budget, steps, partition, p, partitions.size(), relevant.size());
            }
            WglSearch<S, I, O> search = new WglSearch<>(model, partition.history());
            SearchOutcome outcome = search.decide(budget.steps() - steps, startNanos, timeLimitNanos);
            steps += outcome.steps();
            if (outcome.verdict() == Verdict.UNKNOWN) {
                return unknown(budget, steps, partition, p, partitions.size(), relevant.size());
            }
            if (outcome.verdict() == Verdict.NOT_LINEARIZABLE) {
                String report = ViolationReport.render(
                        model, partition.label(), search.operations(), outcome, originNanos);
                return new CheckResult(Verdict.NOT_LINEARIZABLE, partition.label(), report,
                        relevant.size(), partitions.size(), steps);
            }
        }
        String report = String.format(Locale.ROOT, "LINEARIZABLE: %d ops in %d partitions, %d search steps.",
                relevant.size(), partitions.size(), steps);
        return new CheckResult(Verdict.LINEARIZABLE, null, report, relevant.size(), partitions.size(), steps);
    }

    private static CheckResult unknown(
            CheckBudget budget, long steps, Partition<?, ?> partition, int checked, int partitions, int operations) {
        String time = budget.time().equals(CheckBudget.UNLIMITED_TIME) ? "no time limit" : budget.time().toString();
        String stepLimit = budget.steps() == Long.MAX_VALUE ? "no step limit" : budget.steps() + " steps";
        String report = String.format(Locale.ROOT,
                "UNKNOWN: the budget (%s, %s) ran out after %d steps in partition %s (%d ops); "
                        + "%d of %d partitions fully checked, none failed.",
                time, stepLimit, steps, partition.label(), partition.history().size(), checked, partitions);
        return new CheckResult(Verdict.UNKNOWN, partition.label(), report, operations, partitions, steps);
    }
}
