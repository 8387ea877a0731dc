package dev.parallax.scheduler.classmap;

/**
 * The two classes of a single-shard readers-and-writers service (seed 001 §1 and §7.2): reads
 * ({@link #READ}, CONC on every thread) are independent of each other; writes ({@link #WRITE}, SEQ
 * on every thread) conflict with reads and with each other.
 *
 * <p>Stateless and thread-safe.
 */
public final class ReadWriteClasses {
    /** The class index of read-only commands. */
    public static final int READ = 0;
    /** The class index of commands that modify the state. */
    public static final int WRITE = 1;

    private ReadWriteClasses() {
    }

    /**
     * The map over {@code threads} worker threads.
     *
     * @throws IllegalArgumentException if {@code threads < 1}
     */
    public static ClassMap classMap(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        int[] all = new int[threads];
        for (int i = 0; i < threads; i++) {
            all[i] = i;
        }
        return ClassMap.builder(threads)
                .conc("R", all)
                .seq("W", all)
                .conflict("R", "W")
                .conflict("W", "W")
                .build();
    }
}
