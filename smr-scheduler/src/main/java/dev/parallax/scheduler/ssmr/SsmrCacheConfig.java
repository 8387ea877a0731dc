package dev.parallax.scheduler.ssmr;

/**
 * The immutable caching settings of S-SMR (seed 004 (S-SMR) §IV-C, conservative caching; rules in
 * {@link CachedExchange}). Part of {@link SsmrConfig}; must be equal at every replica of every
 * partition (the cluster file's {@code ssmr.cache}, {@link SsmrKeys}).
 *
 * @param enabled             cache other partitions' variables of machines that offer
 *                            {@link CachedReads}; default off ({@code ssmr.cache})
 * @param maxEntries          variables held per owner partition (and mirrored per reader). Default
 *                            {@value #DEFAULT_MAX_ENTRIES}
 * @param maxBytes            bytes of values held per owner partition. Default 8 MiB
 * @param unsafeAlwaysCurrent MUTATION FOR TESTS ONLY: owners answer ⊥ ("your copy is current") for
 *                            every variable; readers then read stale values, which the simulation's
 *                            linearizability check must catch. Default false
 *
 * <p>Immutable and thread-safe.
 */
public record SsmrCacheConfig(boolean enabled, int maxEntries, long maxBytes, boolean unsafeAlwaysCurrent) {
    /** Default {@link #maxEntries}. */
    public static final int DEFAULT_MAX_ENTRIES = 4096;
    /** Default {@link #maxBytes}: 8 MiB. */
    public static final long DEFAULT_MAX_BYTES = 8L << 20;
    /** Caching off. */
    public static final SsmrCacheConfig OFF = new SsmrCacheConfig(false, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_BYTES, false);
    /** Caching on with the default bounds. */
    public static final SsmrCacheConfig ON = new SsmrCacheConfig(true, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_BYTES, false);

    /** @throws IllegalArgumentException if a bound is below 1 */
    public SsmrCacheConfig {
        if (maxEntries < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("cache bounds must be >= 1, got " + maxEntries + " entries, " + maxBytes + " bytes");
        }
    }

    /** These settings with other bounds. */
    public SsmrCacheConfig withBounds(int entries, long bytes) {
        return new SsmrCacheConfig(enabled, entries, bytes, unsafeAlwaysCurrent);
    }

    /** These settings with the ⊥-always mutation on (UNSAFE, tests only) or off. */
    public SsmrCacheConfig withUnsafeAlwaysCurrent(boolean on) {
        return new SsmrCacheConfig(enabled, maxEntries, maxBytes, on);
    }
}
