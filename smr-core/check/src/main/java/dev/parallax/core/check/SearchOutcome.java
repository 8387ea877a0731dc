package dev.parallax.core.check;

/**
 * What one {@link WglSearch} run found. For {@link Verdict#NOT_LINEARIZABLE} the remaining fields
 * describe the deepest point the search reached; they are empty otherwise. Operation numbers index
 * the search's invocation-ordered operations. Immutable after construction; confined to the
 * checker.
 *
 * @param verdict the partition's verdict
 * @param steps search steps spent
 * @param configurations distinct (linearized set, state) pairs memoized
 * @param prefix the longest partial linearization found, in linearization order
 * @param stateAfterPrefix the model state after {@code prefix}
 * @param stuck the unlinearized operation with the earliest return, which blocked the search
 * @param open the unlinearized operations invoked before {@code stuck} returned, including it
 */
record SearchOutcome(
        Verdict verdict,
        long steps,
        int configurations,
        int[] prefix,
        Object stateAfterPrefix,
        int stuck,
        int[] open) {

    SearchOutcome withSteps(long totalSteps) {
        return new SearchOutcome(verdict, totalSteps, configurations, prefix, stateAfterPrefix, stuck, open);
    }

    static SearchOutcome of(Verdict verdict, long steps, int configurations) {
        return new SearchOutcome(verdict, steps, configurations, new int[0], null, -1, new int[0]);
    }
}
