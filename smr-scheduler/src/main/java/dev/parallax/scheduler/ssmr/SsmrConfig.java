package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

/**
 * The immutable configuration of one replica's S-SMR execution ({@link SsmrCore}, {@link SsmrExecutor}).
 * Build it with {@link #of} (documented defaults) and the {@code with...} methods.
 *
 * @param partition          this replica's partition, {@code 0..partitions-1}
 * @param partitions         how many partitions the service has, 1..64
 * @param signals            seed 004 (S-SMR) §IV Alg. 1 l.20: wait for a signal (or values) from every
 *                           other involved partition before finishing a command. {@code false} is
 *                           UNSAFE (not linearizable: Fig. 1 (a)); it exists only for the test that
 *                           shows so. Default {@code true}
 * @param earlySignals       also send the signal when a command is DELIVERED (Eyrie, seed 004 §V-A: "as
 *                           soon as each command C is delivered") rather than only when it starts
 *                           executing (Alg. 1 as written: the handler runs one command at a time, so
 *                           its signal means "C has started here", which execution atomicity (§IV-A)
 *                           needs). UNSAFE over a partial-order atomic multicast such as Multi-Ring:
 *                           a partition that delivered C behind a blocked C' signals C although C'
 *                           (and whatever the other partitions order before C') may still run before
 *                           it — see {@code EarlySignalScepticTest}. Default {@code false}
 * @param maxEarlyCommands   how many commands not yet delivered here may have buffered messages
 *                           (signals/values that arrived before the command); beyond it new early
 *                           messages are refused and counted — retransmission recovers. Default
 *                           {@value #DEFAULT_MAX_EARLY_COMMANDS}
 * @param maxEarlyBytes      bound of the bytes of buffered early values (plus
 *                           {@value #EARLY_ENTRY_OVERHEAD} per command). Default
 *                           {@value #DEFAULT_MAX_EARLY_BYTES}
 * @param earlyTtlNanos      an early message not claimed by a delivery within this time is dropped
 *                           (counted): it was late for a command this replica forgot, or for a
 *                           command it will not deliver for long. Default 30 s
 * @param finishedStreams    how many client streams (client id, destination) remember the highest
 *                           finished sequence, to recognise late messages. Default
 *                           {@value #DEFAULT_FINISHED_STREAMS}
 * @param resendCache        how many finished commands keep the values this replica sent, to answer
 *                           retransmission requests. Default {@value #DEFAULT_RESEND_CACHE}
 * @param resendAfterNanos   a head command waiting this long asks the partitions it misses again
 *                           (and again after each further interval). Default 200 ms
 * @param maxQueued          how many delivered commands the executor holds (its bounded input).
 *                           Default {@value #DEFAULT_MAX_QUEUED}
 * @param maxMessageBytes    the largest encoded partition message, also the bound of the values a
 *                           command's localReads may return. Default {@value #DEFAULT_MAX_MESSAGE_BYTES}
 * @param cache              caching of other partitions' variables (seed 004 §IV-C, {@link CachedExchange});
 *                           default {@link SsmrCacheConfig#OFF} ({@code ssmr.cache}, {@link SsmrKeys})
 */
public record SsmrConfig(int partition, int partitions, boolean signals, boolean earlySignals, int maxEarlyCommands, long maxEarlyBytes,
                         long earlyTtlNanos, int finishedStreams, int resendCache, long resendAfterNanos,
                         int maxQueued, int maxMessageBytes, SsmrCacheConfig cache) {
    /** Default {@link #maxEarlyCommands}. */
    public static final int DEFAULT_MAX_EARLY_COMMANDS = 4096;
    /** Default {@link #maxEarlyBytes}: 16 MiB. */
    public static final long DEFAULT_MAX_EARLY_BYTES = 16L << 20;
    /** Bytes charged per buffered command on top of its values. */
    public static final int EARLY_ENTRY_OVERHEAD = 64;
    /** Default {@link #earlyTtlNanos}: 30 s. */
    public static final long DEFAULT_EARLY_TTL_NANOS = 30_000_000_000L;
    /** Default {@link #finishedStreams}. */
    public static final int DEFAULT_FINISHED_STREAMS = 65_536;
    /**
     * The most later finished commands whose cached messages go with an answer from the resend
     * cache ({@link SsmrCore}'s push-ahead to a replica that is behind); their values are also bounded
     * by {@link #maxMessageBytes} in all.
     */
    public static final int RESEND_PUSH_AHEAD = 256;
    /** Default {@link #resendCache}. */
    public static final int DEFAULT_RESEND_CACHE = 4096;
    /** Default {@link #resendAfterNanos}: 200 ms. */
    public static final long DEFAULT_RESEND_AFTER_NANOS = 200_000_000L;
    /** Default {@link #maxQueued}. */
    public static final int DEFAULT_MAX_QUEUED = 1024;
    /** Default {@link #maxMessageBytes}: 1 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1 << 20;

    /** @throws IllegalArgumentException if a value is out of range */
    public SsmrConfig {
        if (partitions < 1 || partitions > GroupSet.MAX_GROUP + 1) {
            throw new IllegalArgumentException("partitions must be 1.." + (GroupSet.MAX_GROUP + 1) + ", got " + partitions);
        }
        if (partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition must be 0.." + (partitions - 1) + ", got " + partition);
        }
        positive("maxEarlyCommands", maxEarlyCommands);
        positive("maxEarlyBytes", maxEarlyBytes);
        positive("earlyTtlNanos", earlyTtlNanos);
        positive("finishedStreams", finishedStreams);
        positive("resendCache", resendCache);
        positive("resendAfterNanos", resendAfterNanos);
        positive("maxQueued", maxQueued);
        java.util.Objects.requireNonNull(cache, "cache");
        if (maxMessageBytes < 64) {
            throw new IllegalArgumentException("maxMessageBytes must be >= 64, got " + maxMessageBytes);
        }
    }

    private static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, got " + value);
        }
    }

    /** The defaults for a replica of {@code partition} among {@code partitions}. */
    public static SsmrConfig of(int partition, int partitions) {
        return new SsmrConfig(partition, partitions, true, false, DEFAULT_MAX_EARLY_COMMANDS, DEFAULT_MAX_EARLY_BYTES,
                DEFAULT_EARLY_TTL_NANOS, DEFAULT_FINISHED_STREAMS, DEFAULT_RESEND_CACHE, DEFAULT_RESEND_AFTER_NANOS,
                DEFAULT_MAX_QUEUED, DEFAULT_MAX_MESSAGE_BYTES, SsmrCacheConfig.OFF);
    }

    /** This configuration with signals on or (UNSAFE, tests only) off. */
    public SsmrConfig withSignals(boolean on) {
        return new SsmrConfig(partition, partitions, on, earlySignals, maxEarlyCommands, maxEarlyBytes, earlyTtlNanos,
                finishedStreams, resendCache, resendAfterNanos, maxQueued, maxMessageBytes, cache);
    }

    /** This configuration with early signals (at delivery) on — UNSAFE, tests only — or off. */
    public SsmrConfig withEarlySignals(boolean on) {
        return new SsmrConfig(partition, partitions, signals, on, maxEarlyCommands, maxEarlyBytes, earlyTtlNanos,
                finishedStreams, resendCache, resendAfterNanos, maxQueued, maxMessageBytes, cache);
    }

    /** This configuration with other early-message bounds. */
    public SsmrConfig withEarlyBounds(int commands, long bytes, long ttlNanos) {
        return new SsmrConfig(partition, partitions, signals, earlySignals, commands, bytes, ttlNanos,
                finishedStreams, resendCache, resendAfterNanos, maxQueued, maxMessageBytes, cache);
    }

    /** This configuration with other late-message and retransmission bounds. */
    public SsmrConfig withResend(int finishedStreams, int resendCache, long resendAfterNanos) {
        return new SsmrConfig(partition, partitions, signals, earlySignals, maxEarlyCommands, maxEarlyBytes, earlyTtlNanos,
                finishedStreams, resendCache, resendAfterNanos, maxQueued, maxMessageBytes, cache);
    }

    /** This configuration with another input bound and message size bound. */
    public SsmrConfig withLimits(int maxQueued, int maxMessageBytes) {
        return new SsmrConfig(partition, partitions, signals, earlySignals, maxEarlyCommands, maxEarlyBytes, earlyTtlNanos,
                finishedStreams, resendCache, resendAfterNanos, maxQueued, maxMessageBytes, cache);
    }

    /** This configuration with other caching settings. */
    public SsmrConfig withCache(SsmrCacheConfig cache) {
        return new SsmrConfig(partition, partitions, signals, earlySignals, maxEarlyCommands, maxEarlyBytes, earlyTtlNanos,
                finishedStreams, resendCache, resendAfterNanos, maxQueued, maxMessageBytes, cache);
    }
}
