package dev.parallax.core.testkit;

import java.util.function.LongConsumer;

/**
 * Runs a simulation body over many seeds and makes a failure replayable.
 *
 * <p>System properties: {@code -Dsim.seed=S} runs only seed S (replay); {@code -Dsim.seeds=N}
 * sets how many seeds each simulation test runs (the build sets 1000 by default and 100000 under
 * {@code -Pstress}); {@code -Dsim.seedBase=B} shifts the first seed.
 *
 * <p>Thread-safe (stateless).
 */
public final class SimulationSeeds {
    private SimulationSeeds() {
    }

    /** Seeds per test: {@code -Dsim.seeds}, else {@code fallback}. */
    public static int count(int fallback) {
        return Integer.getInteger("sim.seeds", fallback);
    }

    /**
     * Calls {@code body} with seeds {@code base .. base+count-1} (or only {@code -Dsim.seed}, if
     * set). A failure is rethrown as an {@link AssertionError} whose message starts with the failing
     * seed and how to replay it. Pass {@link #count(int)} to honour {@code -Dsim.seeds}.
     *
     * @return the number of seeds run
     */
    public static int forEach(String name, int count, LongConsumer body) {
        String replay = System.getProperty("sim.seed");
        if (replay != null && !replay.isBlank()) {
            long seed = Long.parseLong(replay.trim());
            runOne(name, seed, body);
            return 1;
        }
        long base = Long.getLong("sim.seedBase", 1L);
        for (int i = 0; i < count; i++) {
            runOne(name, base + i, body);
        }
        return count;
    }

    private static void runOne(String name, long seed, LongConsumer body) {
        try {
            body.accept(seed);
        } catch (SimulationFailure f) {
            throw f;
        } catch (Throwable t) {
            throw new AssertionError(name + " failed at seed " + seed + " (replay with -Dsim.seed=" + seed + "): " + t, t);
        }
    }
}
