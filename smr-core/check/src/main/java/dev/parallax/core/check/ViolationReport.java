package dev.parallax.core.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link SearchOutcome} of a failed partition as a short table: the last operations of
 * the longest partial linearization, then the operations open where the search got stuck (the
 * stuck one marked), then the next few invoked after. Stateless; thread-safe.
 */
final class ViolationReport {

    private static final int PREFIX_ROWS = 4;
    private static final int LATER_ROWS = 3;
    private static final String ROW = "  %-6s %6s %10s %10s  %s%n";

    private ViolationReport() {
    }

    static <S, I, O> String render(
            Model<S, I, O> model, String label, Operation<I, O>[] ops, SearchOutcome outcome, long originNanos) {
        int[] prefix = outcome.prefix();
        @SuppressWarnings("unchecked")
        S state = (S) outcome.stateAfterPrefix();
        StringBuilder out = new StringBuilder(512);
        out.append(String.format(Locale.ROOT,
                "NOT_LINEARIZABLE: partition %s (%d ops) has no linearization.%n"
                        + "Longest partial linearization: %d ops, leaving state %s. Then STUCK returned before it%n"
                        + "could be linearized; open: invoked before that return. Times from the first operation.%n",
                label, ops.length, prefix.length, model.describeState(state)));
        out.append(String.format(Locale.ROOT, ROW, "row", "client", "invoke", "return", "operation"));
        int firstShown = Math.max(0, prefix.length - PREFIX_ROWS);
        if (firstShown > 0) {
            out.append(String.format(Locale.ROOT, "  %-6s %s%n", "...", firstShown + " earlier linearized operations"));
        }
        for (int k = firstShown; k < prefix.length; k++) {
            appendRow(out, model, "#" + (k + 1), ops[prefix[k]], originNanos);
        }
        boolean[] shown = new boolean[ops.length];
        for (int op : prefix) {
            shown[op] = true;
        }
        int[] open = outcome.open().clone();
        Arrays.sort(open);
        for (int op : open) {
            shown[op] = true;
            appendRow(out, model, op == outcome.stuck() ? "STUCK" : "open", ops[op], originNanos);
        }
        List<Integer> later = new ArrayList<>(LATER_ROWS);
        for (int op = 0; op < ops.length && later.size() < LATER_ROWS; op++) {
            if (!shown[op] && op != outcome.stuck()) {
                later.add(op);
            }
        }
        for (int op : later) {
            appendRow(out, model, "later", ops[op], originNanos);
        }
        return out.toString();
    }

    private static <S, I, O> void appendRow(
            StringBuilder out, Model<S, I, O> model, String role, Operation<I, O> op, long originNanos) {
        String result = op.outcomeUnknown() ? "?" : model.describeOutput(op.input(), op.output());
        out.append(String.format(Locale.ROOT, ROW,
                role,
                op.clientId(),
                relative(op.invokeNanos(), originNanos),
                op.outcomeUnknown() ? "never" : relative(op.returnNanos(), originNanos),
                model.describeInput(op.input()) + " -> " + result));
    }

    /** A compact duration since the origin: ns below 1 us, then us, ms, s. */
    static String relative(long nanos, long originNanos) {
        long d = nanos - originNanos;
        long abs = Math.abs(d);
        if (abs < 1_000L) {
            return d + "ns";
        }
        if (abs < 1_000_000L) {
            return String.format(Locale.ROOT, "%.1fus", d / 1e3);
        }
        if (abs < 10_000_000_000L) {
            return String.format(Locale.ROOT, "%.3fms", d / 1e6);
        }
        return String.format(Locale.ROOT, "%.3fs", d / 1e9);
    }
}
