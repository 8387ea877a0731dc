package dev.parallax.core.check;

import java.util.List;

/**
 * A deliberately naive linearizability checker for small histories, the oracle the WGL checker is
 * compared with: it tries every order of the operations that respects real-time order (A before
 * B whenever A returned before B was invoked), replaying each against an independent sequential
 * specification, and lets every operation with an unknown outcome either take effect, at any
 * point after its invocation, or not at all.
 */
final class BruteForceChecker<I, O> {

    /** An independent sequential specification over immutable states. */
    interface Spec<I, O> {
        Object initial();

        /** The next state, or null when {@code output} is impossible; {@code known} false means any output. */
        Object apply(Object state, I input, O output, boolean known);
    }

    private final Spec<I, O> spec;
    private final List<Operation<I, O>> ops;
    private final int known;

    private BruteForceChecker(Spec<I, O> spec, History<I, O> history) {
        if (history.size() > 20) {
            throw new IllegalArgumentException("brute force is for small histories");
        }
        this.spec = spec;
        this.ops = history.operations();
        this.known = (int) ops.stream().filter(op -> !op.outcomeUnknown()).count();
    }

    static <I, O> boolean isLinearizable(Spec<I, O> spec, History<I, O> history) {
        return new BruteForceChecker<>(spec, history).search(0, 0, spec.initial());
    }

    private boolean search(int placed, int placedKnown, Object state) {
        if (placedKnown == known) {
            return true;
        }
        for (int i = 0; i < ops.size(); i++) {
            if ((placed & (1 << i)) != 0 || !mayGoNext(placed, i)) {
                continue;
            }
            Operation<I, O> op = ops.get(i);
            Object next = spec.apply(state, op.input(), op.output(), !op.outcomeUnknown());
            if (next != null && search(placed | (1 << i), placedKnown + (op.outcomeUnknown() ? 0 : 1), next)) {
                return true;
            }
        }
        return false;
    }

    private boolean mayGoNext(int placed, int candidate) {
        for (int j = 0; j < ops.size(); j++) {
            if ((placed & (1 << j)) == 0 && j != candidate && ops.get(j).returnNanos() < ops.get(candidate).invokeNanos()) {
                return false;
            }
        }
        return true;
    }
}
