package dev.parallax.scheduler.ssmr;

/**
 * A copy of {@link SsmrCore}'s caching counters ({@link CachedExchange}). Immutable and thread-safe.
 *
 * @param valuesSent   variables sent with their value in cached values
 * @param bottomsSent  variables sent as ⊥ (the reader's copy is current): the values caching saved
 * @param misses       ⊥ this replica could not resolve (it asked for every value again)
 * @param malformed    cached values dropped: malformed, or of the wrong kind for the command's plan
 * @param fullAnswered requests for every value answered
 * @param heldEntries  variables of other partitions held in the cache now
 */
public record SsmrCacheCounters(long valuesSent, long bottomsSent, long misses, long malformed, long fullAnswered,
                                int heldEntries) {
}
