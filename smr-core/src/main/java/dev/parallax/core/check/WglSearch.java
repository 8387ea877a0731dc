package dev.parallax.core.check;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The Wing–Gong linearizability search with Lowe's memoization (G. Lowe, "Testing for
 * linearizability", Concurrency and Computation 29(4), 2017, section 3) over one partition.
 *
 * <p>Invocations and returns are entries of a doubly linked list in time order (at equal times
 * invocations first, so operations that touch are concurrent). The search walks the list: at an
 * invocation it tries to linearize that operation next, and if the model accepts and the
 * resulting (linearized set, state) pair is new it lifts the operation out of the list and starts
 * over from the head; at a return it has found an operation that must be linearized before
 * anything later but cannot be, so it backtracks. An operation with an unknown outcome returns at
 * {@link Long#MAX_VALUE} and is stepped ignoring its output; once every operation with a known
 * outcome is linearized the rest can be placed last, so the search succeeds there.
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

    private final Model<S, I, O> model;
    private final Operation<I, O>[] ops;
    private final int n;
    private final int head;
    private final int[] next;
    private final int[] prev;
    private final boolean[] readOnly;

    @SuppressWarnings("unchecked")
    WglSearch(Model<S, I, O> model, History<I, O> history) {
        this.model = model;
        this.ops = history.operations().toArray(new Operation[0]);
        Arrays.sort(ops, Comparator.comparingLong(Operation::invokeNanos));
        this.n = ops.length;
        this.head = 2 * n;
        this.next = new int[2 * n + 1];
        this.prev = new int[2 * n + 1];
        this.readOnly = new boolean[n];
        for (int i = 0; i < n; i++) {
            readOnly[i] = model.isReadOnly(ops[i].input());
        }
        link();
    }

    /** The partition's operations in invocation order, as numbered in {@link SearchOutcome}. */
    Operation<I, O>[] operations() {
        return ops;
    }

    private void link() {
        Integer[] byReturn = new Integer[n];
        for (int i = 0; i < n; i++) {
            byReturn[i] = i;
        }
        Arrays.sort(byReturn, Comparator.comparingLong(i -> ops[i].returnNanos()));
        int last = head;
        int call = 0;
        int ret = 0;
        while (call < n || ret < n) {
            int node;
            if (call < n && (ret == n || ops[call].invokeNanos() <= ops[byReturn[ret]].returnNanos())) {
                node = call++;
            } else {
                node = n + byReturn[ret++];
            }
            next[last] = node;
            prev[node] = last;
            last = node;
        }
        next[last] = END;
        prev[head] = END;
    }

    /**
     * Runs the search.
     *
     * @param maxSteps steps allowed before giving up with {@link Verdict#UNKNOWN}
     * @param startNanos {@link System#nanoTime()} when the time budget started
     * @param timeLimitNanos time allowed since {@code startNanos}, {@link Long#MAX_VALUE} for none
     */
    @SuppressWarnings("unchecked")
    SearchOutcome run(long maxSteps, long startNanos, long timeLimitNanos) {
        LinearizedSet linearized = new LinearizedSet(n);
        VisitedSet visited = new VisitedSet(Math.max(16, 2 * n));
        int[] stackOps = new int[n];
        Object[] stackStates = new Object[n];
        int depth = 0;
        int remainingKnown = 0;
        for (Operation<I, O> op : ops) {
            if (!op.outcomeUnknown()) {
                remainingKnown++;
            }
        }
        int[] bestPath = new int[n];
        int bestDepth = -1;
        int stableDepth = 0;
        Object bestState = null;
        int stuck = -1;
        int[] open = new int[0];

        S state = model.initialState();
        int entry = next[head];
        long steps = 0;
        while (remainingKnown > 0) {
            if (++steps > maxSteps
                    || ((steps & TIME_CHECK_MASK) == 0 && System.nanoTime() - startNanos > timeLimitNanos)) {
                return SearchOutcome.of(Verdict.UNKNOWN, steps - 1, visited.size());
            }
            if (entry < n) {
                Operation<I, O> op = ops[entry];
                S nextState = op.outcomeUnknown()
                        ? model.stepUnknownOutcome(state, op.input())
                        : model.step(state, op.input(), op.output());
                if (nextState == null) {
                    entry = next[entry];
                    continue;
                }
                linearized.add(entry);
                if (visited.add(linearized, nextState)) {
                    stackOps[depth] = entry;
                    stackStates[depth] = state;
                    depth++;
                    state = nextState;
                    lift(entry);
                    if (!op.outcomeUnknown()) {
                        remainingKnown--;
                    }
                    entry = next[head];
                    continue;
                }
                linearized.remove(entry);
                if (!readOnly[entry]) {
                    entry = next[entry];
                    continue;
                }
                // A read-only operation that fits now may as well be linearized now (moving it to
                // the front of any completion keeps every state and real-time constraint), so
                // when that configuration is already known to fail, so does this one.
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
                linearized.remove(op);
                unlift(op);
                if (!ops[op].outcomeUnknown()) {
                    remainingKnown++;
                }
            } while (readOnly[op]);
            // The same argument: a configuration reached by linearizing a read-only operation
            // fails only if the one before it does, so backtracking continues past it.
            if (depth < stableDepth) {
                stableDepth = depth;
            }
            entry = next[op];
        }
        return SearchOutcome.of(Verdict.LINEARIZABLE, steps, visited.size());
    }

    /** The invocations between the head and {@code returnNode}, capped at {@link #MAX_OPEN}. */
    private int[] openBefore(int returnNode) {
        int[] found = new int[MAX_OPEN];
        int count = 0;
        for (int node = next[head]; node != returnNode && node != END && count < MAX_OPEN; node = next[node]) {
            if (node < n) {
                found[count++] = node;
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
