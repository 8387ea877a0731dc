package dev.parallax.core.spi;

/**
 * When {@link ChronicleDurableLog#sync()} forces appended records from the page cache to the
 * device. The policy is chosen per log (per replica) in {@link ChronicleLogOptions}.
 *
 * <p>Two crash models matter. A <em>process crash</em> (SIGKILL, OOM kill, JVM abort) leaves the
 * kernel's page cache intact: every record whose {@code append} returned is still there, whatever
 * the policy, because Chronicle Queue writes into memory-mapped files. A <em>kernel crash or power
 * loss</em> keeps only what reached the device; the kernel writes dirty pages back in no particular
 * order, so unforced records may be lost, torn or survive out of order (the log cuts such a tail at
 * the next open).
 */
public enum SyncPolicy {

    /**
     * Every {@code sync()} that follows an append forces the segment files to the device
     * ({@code fdatasync}) before returning: group commit, one force covers every record appended
     * since the previous one. Survives process crash, kernel crash and power loss for every record
     * below {@code durableIndex()}. This is the policy the {@code DurableLog} contract describes.
     */
    EVERY_BATCH,

    /**
     * A {@code sync()} forces only if at least {@link ChronicleLogOptions#syncInterval()} has passed
     * since the last force; otherwise it returns at once and {@code durableIndex()} does not move.
     * Survives a process crash for every appended record; on a kernel crash or power loss it may
     * lose what was appended since the last force: the records of up to one interval of syncs, plus
     * any appended after the last {@code sync()} call. {@code durableIndex()} is exact: it reports
     * what the last force covered. The first {@code sync()} after open always forces.
     */
    PERIODIC,

    /**
     * {@code sync()} never forces records to the device (the truncation metadata written by a
     * {@code sync()} after {@code truncateBefore} is still forced, as it is rare and must not
     * outlive the segments it frees). Survives a process crash for every appended record; a kernel
     * crash or power loss may lose any record the kernel had not yet written back (by default up to
     * about 30 s of appends on Linux). Here {@code durableIndex()} means "survives a process crash":
     * a {@code sync()} advances it to {@code nextIndex()}.
     */
    NONE
}
