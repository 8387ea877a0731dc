package dev.parallax.core.testkit;

import java.util.List;

/**
 * A simulated run failed: an invariant or node threw. Carries the seed that replays it and the
 * last trace lines leading to it. Immutable once thrown; safe to read from any thread.
 */
public final class SimulationFailure extends AssertionError {
    private final long seed;

    SimulationFailure(long seed, long time, List<String> traceTail, Throwable cause) {
        super(message(seed, time, traceTail, cause), cause);
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    private static String message(long seed, long time, List<String> traceTail, Throwable cause) {
        StringBuilder sb = new StringBuilder();
        sb.append("simulation failed at seed ").append(seed).append(", virtual time ").append(time / 1_000).append(" us: ")
                .append(cause).append('\n')
                .append("replay with -Dsim.seed=").append(seed).append('\n')
                .append("last ").append(traceTail.size()).append(" events:\n");
        for (String line : traceTail) {
            sb.append("  ").append(line).append('\n');
        }
        return sb.toString();
    }
}
