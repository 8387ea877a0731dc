package dev.parallax.core.check;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The Wing–Gong linearizability search with Lowe's memoization (G. Lowe, "Testing for
 * linearizability", Concurrency and Computation 29(4), 2017) over one partition.
 *
 * <p>Invocations and returns are entries of a doubly linked list in time order (at equal times
 * invocations first, so operations that touch are concurrent). The search walks the list from the
 * head: at an invocation it tries to linearize that operation next, and if the model accepts and
 * the resulting (linearized set, state) configuration is new it lifts the operation out of the list
 * and starts over from the head; at a return it has found an operation that must be linearized
 * before anything later but cannot be, so it backtracks.
 *
 * <p>An operation with an unknown outcome returns at {@link Long#MAX_VALUE} and is stepped ignoring
 * its output (as Porcupine does). It need not be linearized at all, since nothing is ordered after
 * it, so the search succeeds as soon as every operation with a known outcome is linearized. Such
 * operations stay open to the end of the history and multiply the configurations; see
 * {@link #decide} for the two orders in which the search tries them.
 *
 * <p>The list is index-based: node {@code i} is the invocation of operation {@code i}, node
 * {@code n + i} its return, node {@code 2n} the head. Not thread-safe: one search per thread.
 *
 * @param <S> the model's state type
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
final class WglSearch<S, I, O> {

    private static final int END = -1;
    private static final int MAX_OPEN = 16;
    private static final int TIME_CHECK_MASK = 4095;
    private static final long FIRST_SLICE = 10_000;
    private static final long FIRST_SLICE_PER_OP = 50;

    private final Model<S, I, O> model;
    private final Operation<I, O>[] ops;
    private final int n;
    private final int head;
    private final int[] next;
    private final int[] prev;
    private final boolean[] unknown;
    private final boolean[] readOnly;
    /** Dense index among the known or among the unknown operations, in invocation order. */
    private final int[] slot;
    private final int knownCount;
    private final int[] order;

    @SuppressWarnings("unchecked")
    WglSearch(Model<S, I, O> model, History<I, O> history) {
        this.model = model;
        this.ops = (Operation<I, O>[]) history.operations().toArray(new Operation<?, ?>[0]);
        Arrays.sort(ops, Comparator.comparingLong(Operation::invokeNanos));
        this.n = ops.length;
        this.head = 2 * n;
        this.next = new int[2 * n + 1];
        this.prev = new int[2 * n + 1];
        this.unknown = new boolean[n];
        this.readOnly = new boolean[n];
        this.slot = new int[n];
        int known = 0;
        int unknowns = 0;
        for (int i = 0; i < n; i++) {
            unknown[i] = ops[i].outcomeUnknown();
            readOnly[i] = model.isReadOnly(ops[i].input());
            slot[i] = unknown[i] ? unknowns++ : known++;
        }
        this.knownCount = known;
        this.order = timeOrder();
    }

    /** The partition's operations in invocation order, as numbered in {@link SearchOutcome}. */
    Operation<I, O>[] operations() {
        return ops;
    }

    /** The list's entries in time order, computed once; every run starts from this list. */
    private int[] timeOrder() {
        Integer[] byReturn = new Integer[n];
        for (int i = 0; i < n; i++) {
            byReturn[i] = i;
        }
        Arrays.sort(byReturn, Comparator.comparingLong(i -> ops[i].returnNanos()));
        int[] order = new int[2 * n];
        int call = 0;
        int ret = 0;
        for (int k = 0; k < 2 * n; k++) {
            if (call < n && (ret == n || ops[call].invokeNanos() <= ops[byReturn[ret]].returnNanos())) {
                order[k] = call++;
            } else {
                order[k] = n + byReturn[ret++];
            }
        }
        return order;
    }

    /** Links the list in time order, undoing whatever an earlier run left lifted. */
    private void resetList() {
        int last = head;
        for (int node : order) {
            next[last] = node;
            prev[node] = last;
            last = node;
        }
        next[last] = END;
        prev[head] = END;
    }

    /**
     * Decides the partition within the budget. Without unknown-outcome operations this is one
     * {@link #run}; with them, the two orders of {@link #run} alternate from scratch with step
     * slices that double every round, so the total work stays within a small factor of the faster
     * order's whichever kind of history this is (restarts as in Luby, Sinclair and Zuckerman,
     * "Optimal speedup of Las Vegas algorithms", 1993).
     *
     * @param maxSteps steps allowed before giving up with {@link Verdict#UNKNOWN}
     * @param startNanos {@link System#nanoTime()} when the time budget started
     * @param timeLimitNanos time allowed since {@code startNanos}, {@link Long#MAX_VALUE} for none
     */
    SearchOutcome decide(long maxSteps, long startNanos, long timeLimitNanos) {
        if (knownCount == n) {
            return run(maxSteps, startNanos, timeLimitNanos, false);
        }
        long spent = 0;
        long slice = FIRST_SLICE + FIRST_SLICE_PER_OP * n;
        boolean knownFirst = false;
        while (true) {
            SearchOutcome outcome = run(Math.min(slice, maxSteps - spent), startNanos, timeLimitNanos, knownFirst);
            spent += outcome.steps();
            if (outcome.verdict() != Verdict.UNKNOWN) {
                return outcome.withSteps(spent);
            }
            if (spent >= maxSteps || System.nanoTime() - startNanos > timeLimitNanos) {
                return SearchOutcome.of(Verdict.UNKNOWN, spent, outcome.configurations());
            }
            if (knownFirst) {
                slice = slice > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : slice * 2;
            }
            knownFirst = !knownFirst;
        }
    }

    /**
     * Runs the search.
     *
     * <p>With {@code knownFirst} false this is the plain WGL walk, which tries operations with an
     * unknown outcome in invocation order like any other; it finds a linearization fast when such
     * operations took effect about when invoked. With {@code knownFirst} true they are tried only
     * after the known candidates at each point, so configurations without them are explored first
     * and then cover, in a {@link VisitedSet} comparing unknown parts by inclusion, those that differ
     * only by having linearized them; that proves non-linearizability much faster when many such
     * operations are open. Both are complete.
     *
     * @param maxSteps steps allowed before giving up with {@link Verdict#UNKNOWN}
     * @param startNanos {@link System#nanoTime()} when the time budget started
     * @param timeLimitNanos time allowed since {@code startNanos}, {@link Long#MAX_VALUE} for none
     * @param knownFirst whether to try operations with an unknown outcome last
     */
    @SuppressWarnings("unchecked")
    SearchOutcome run(long maxSteps, long startNanos, long timeLimitNanos, boolean knownFirst) {
        boolean phased = knownFirst && knownCount < n;
        resetList();
        LinearizedSet linearized = new LinearizedSet(knownCount, n - knownCount);
        VisitedSet visited = new VisitedSet(Math.max(16, 2 * n), phased);
        int[] stackOps = new int[n];
        Object[] stackStates = new Object[n];
        int depth = 0;
        int remainingKnown = knownCount;
        int[] bestPath = new int[n];
        int bestDepth = -1;
        int stableDepth = 0;
        Object bestState = null;
        int stuck = -1;
        int[] open = new int[0];

        S state = model.initialState();
        int entry = next[head];
        // When phased, whether the walk is in its second pass, over the unknown-outcome operations.
        boolean unknownPass = false;
        long steps = 0;
        while (remainingKnown > 0) {
            if (++steps > maxSteps
                    || ((steps & TIME_CHECK_MASK) == 0 && System.nanoTime() - startNanos > timeLimitNanos)) {
                return SearchOutcome.of(Verdict.UNKNOWN, steps - 1, visited.size());
            }
            if (entry < n) {
                if (phased && unknown[entry] != unknownPass) {
                    entry = next[entry];
                    continue;
                }
                Operation<I, O> op = ops[entry];
                S nextState = unknown[entry]
                        ? model.stepUnknownOutcome(state, op.input())
                        : model.step(state, op.input(), op.output());
                if (nextState == null
                        || unknownPass && coveredBySibling(op, nextState, depth, stackOps, stackStates)) {
                    entry = next[entry];
                    continue;
                }
                include(linearized, entry);
                if (visited.add(linearized, nextState)) {
                    stackOps[depth] = entry;
                    stackStates[depth] = state;
                    depth++;
                    state = nextState;
                    lift(entry);
                    if (!unknown[entry]) {
                        remainingKnown--;
                    }
                    entry = next[head];
                    unknownPass = false;
                    continue;
                }
                exclude(linearized, entry);
                if (!readOnly[entry]) {
                    entry = next[entry];
                    continue;
                }
                // A read-only operation that fits now may as well be linearized now (moving it to
                // the front of any completion keeps every state and real-time constraint), so
                // when that configuration is already covered, this one fails too.
            } else if (phased && !unknownPass) {
                unknownPass = true;
                entry = next[head];
                continue;
            } else if (depth > bestDepth) {
                // Only the stack above its lowest point since the last snapshot changed, so
                // copying that part keeps the cost of tracking the best prefix amortized O(1).
                System.arraycopy(stackOps, stableDepth, bestPath, stableDepth, depth - stableDepth);
                bestDepth = depth;
                stableDepth = depth;
                bestState = state;
                stuck = entry - n;
                open = openBefore(entry);
            }
            int op;
            do {
                if (depth == 0) {
                    return new SearchOutcome(Verdict.NOT_LINEARIZABLE, steps, visited.size(),
                            Arrays.copyOf(bestPath, bestDepth), bestState, stuck, open);
                }
                depth--;
                op = stackOps[depth];
                state = (S) stackStates[depth];
                stackStates[depth] = null;
                exclude(linearized, op);
                unlift(op);
                if (!unknown[op]) {
                    remainingKnown++;
                }
            } while (readOnly[op]);
            // By the same argument a configuration reached through a read-only operation fails
            // only if the one before it does, so backtracking continues past such operations.
            if (depth < stableDepth) {
                stableDepth = depth;
            }
            unknownPass = phased && unknown[op];
            entry = next[op];
        }
        return SearchOutcome.of(Verdict.LINEARIZABLE, steps, visited.size());
    }

    /**
     * Whether linearizing the unknown-outcome {@code op} right after another unknown-outcome
     * operation leads to the state it would lead to without that one (e.g. two blind writes). The
     * parent configuration, whose unknown pass tries {@code op} too, then reaches the same state
     * with fewer unknown operations linearized, which covers this step; trying it here would
     * multiply the configurations by every subset of the unknown operations still open.
     */
    private boolean coveredBySibling(Operation<I, O> op, S nextState, int depth, int[] stackOps, Object[] stackStates) {
        if (depth == 0 || !unknown[stackOps[depth - 1]]) {
            return false;
        }
        @SuppressWarnings("unchecked")
        S parentState = (S) stackStates[depth - 1];
        return nextState.equals(model.stepUnknownOutcome(parentState, op.input()));
    }

    private void include(LinearizedSet linearized, int op) {
        if (unknown[op]) {
            linearized.addUnknown(slot[op]);
        } else {
            linearized.add(slot[op]);
        }
    }

    private void exclude(LinearizedSet linearized, int op) {
        if (unknown[op]) {
            linearized.removeUnknown(slot[op]);
        } else {
            linearized.remove(slot[op]);
        }
    }

    /**
     * The candidates where the search stopped at {@code returnNode}: the invocations before it in
     * the list, those with a known outcome first, capped at {@link #MAX_OPEN}.
     */
    private int[] openBefore(int returnNode) {
        int[] found = new int[MAX_OPEN];
        int count = 0;
        for (int pass = 0; pass < 2; pass++) {
            boolean wantUnknown = pass == 1;
            for (int node = next[head]; node != returnNode && count < MAX_OPEN; node = next[node]) {
                if (unknown[node] == wantUnknown) {
                    found[count++] = node;
                }
            }
        }
        return Arrays.copyOf(found, count);
    }

    /** Removes the invocation and return of operation {@code op} from the list. */
    private void lift(int op) {
        unlink(op);
        unlink(n + op);
    }

    /** Reinserts what {@link #lift} removed, in reverse order (dancing links). */
    private void unlift(int op) {
        relink(n + op);
        relink(op);
    }

    private void unlink(int node) {
        int p = prev[node];
        int q = next[node];
        next[p] = q;
        if (q != END) {
            prev[q] = p;
        }
    }

    private void relink(int node) {
        int p = prev[node];
        int q = next[node];
        next[p] = node;
        if (q != END) {
            prev[q] = node;
        }
    }
}
