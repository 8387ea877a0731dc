package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link ChronicleDurableLog}. Immutable and thread-safe; start from
 * {@link #defaults()} and change fields with the {@code with...} methods.
 *
 * @param syncPolicy       when {@code sync()} forces records to the device
 * @param syncInterval     minimum time between two forces under {@link SyncPolicy#PERIODIC}
 *                         (ignored by the other policies); not negative
 * @param segmentBytes     a segment file is closed and a new one started once its used size
 *                         reaches this many bytes; {@code truncateBefore} frees space one whole
 *                         segment at a time; positive
 * @param maxRecordBytes   largest record {@code append} accepts, between 0 and
 *                         {@link #MAX_RECORD_BYTES_LIMIT}; the mapping chunk of a segment is four
 *                         times this size (virtual memory, not disk)
 * @param diskReserveBytes {@code append} fails with a disk-full {@code DurableLogException} when
 *                         the file system holding the log has less than this much usable space,
 *                         so that the log never writes into a memory-mapped page the file system
 *                         cannot back; not negative
 * @param clock            time source of the {@link SyncPolicy#PERIODIC} interval
 * @param emptyDirectory   what a directory holding neither records nor the log's creation mark
 *                         means at open: a brand-new log, or one whose files were lost (then
 *                         {@code amnesiaPossible()} holds until resolved); see {@link EmptyDirectory}
 * @param forces           told the duration of each force ({@code fdatasync}) of the log, by {@code clock}
 */
public record ChronicleLogOptions(SyncPolicy syncPolicy, Duration syncInterval, long segmentBytes,
                                  int maxRecordBytes, long diskReserveBytes, Clock clock,
                                  EmptyDirectory emptyDirectory, ForceObserver forces) {

    /**
     * What an empty log directory that never held this log means at open. On disk a brand-new
     * directory and a wiped one look the same (no records, no {@code parallax-log.created} mark);
     * only the caller knows whether this is the first start of its replica in a new cluster.
     */
    public enum EmptyDirectory {
        /** A brand-new log: {@code amnesiaPossible()} is false (a bootstrap, a unit test). */
        NEW,
        /**
         * The log's files may have been lost (a wiped, replaced or missing data directory where
         * the cluster has history): the log reports {@code amnesiaPossible()} until the caller
         * has rebuilt its state from peers and called {@code amnesiaResolved()}, across restarts.
         */
        LOST
    }

    /** Upper bound of {@link #maxRecordBytes()}: larger records would need very large mappings. */
    public static final int MAX_RECORD_BYTES_LIMIT = 64 << 20;

    /**
     * Validates the fields.
     *
     * @throws NullPointerException     if a reference is null
     * @throws IllegalArgumentException if a number is out of range
     */
    public ChronicleLogOptions {
        Objects.requireNonNull(syncPolicy, "syncPolicy");
        Objects.requireNonNull(syncInterval, "syncInterval");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(emptyDirectory, "emptyDirectory");
        Objects.requireNonNull(forces, "forces");
        if (syncInterval.isNegative()) {
            throw new IllegalArgumentException("syncInterval must not be negative: " + syncInterval);
        }
        if (segmentBytes <= 0) {
            throw new IllegalArgumentException("segmentBytes must be positive: " + segmentBytes);
        }
        if (maxRecordBytes < 0 || maxRecordBytes > MAX_RECORD_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxRecordBytes must be in [0, " + MAX_RECORD_BYTES_LIMIT + "]: " + maxRecordBytes);
        }
        if (diskReserveBytes < 0) {
            throw new IllegalArgumentException("diskReserveBytes must not be negative: " + diskReserveBytes);
        }
    }

    /**
     * {@link SyncPolicy#EVERY_BATCH}, a 10 ms periodic interval, 64 MiB segments, records up to
     * 4 MiB, a 32 MiB disk reserve, the system clock, {@link EmptyDirectory#NEW} and no
     * {@link ForceObserver}. Thread-safe,
     * never blocks.
     */
    public static ChronicleLogOptions defaults() {
        return new ChronicleLogOptions(SyncPolicy.EVERY_BATCH, Duration.ofMillis(10), 64L << 20, 4 << 20,
                32L << 20, SystemClock.INSTANCE, EmptyDirectory.NEW, ForceObserver.NONE);
    }

    /**
     * A copy with another meaning of an empty, never-used directory. Thread-safe, never blocks.
     *
     * @throws NullPointerException if {@code meaning} is null
     */
    public ChronicleLogOptions withEmptyDirectory(EmptyDirectory meaning) {
        return new ChronicleLogOptions(syncPolicy, syncInterval, segmentBytes, maxRecordBytes, diskReserveBytes, clock, meaning, forces);
    }

    /**
     * A copy with another sync policy. Thread-safe, never blocks.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    public ChronicleLogOptions withSyncPolicy(SyncPolicy policy) {
        return new ChronicleLogOptions(policy, syncInterval, segmentBytes, maxRecordBytes, diskReserveBytes, clock, emptyDirectory, forces);
    }

    /**
     * A copy with another {@link SyncPolicy#PERIODIC} interval. Thread-safe, never blocks.
     *
     * @throws NullPointerException     if {@code interval} is null
     * @throws IllegalArgumentException if it is negative
     */
    public ChronicleLogOptions withSyncInterval(Duration interval) {
        return new ChronicleLogOptions(syncPolicy, interval, segmentBytes, maxRecordBytes, diskReserveBytes, clock, emptyDirectory, forces);
    }

    /**
     * A copy with another segment size. Thread-safe, never blocks.
     *
     * @throws IllegalArgumentException if {@code bytes} is not positive
     */
    public ChronicleLogOptions withSegmentBytes(long bytes) {
        return new ChronicleLogOptions(syncPolicy, syncInterval, bytes, maxRecordBytes, diskReserveBytes, clock, emptyDirectory, forces);
    }

    /**
     * A copy with another record size limit. Thread-safe, never blocks.
     *
     * @throws IllegalArgumentException if {@code bytes} is outside [0, {@link #MAX_RECORD_BYTES_LIMIT}]
     */
    public ChronicleLogOptions withMaxRecordBytes(int bytes) {
        return new ChronicleLogOptions(syncPolicy, syncInterval, segmentBytes, bytes, diskReserveBytes, clock, emptyDirectory, forces);
    }

    /**
     * A copy with another disk reserve. Thread-safe, never blocks.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public ChronicleLogOptions withDiskReserveBytes(long bytes) {
        return new ChronicleLogOptions(syncPolicy, syncInterval, segmentBytes, maxRecordBytes, bytes, clock, emptyDirectory, forces);
    }

    /**
     * A copy with another clock. Thread-safe, never blocks.
     *
     * @throws NullPointerException if {@code newClock} is null
     */
    public ChronicleLogOptions withClock(Clock newClock) {
        return new ChronicleLogOptions(syncPolicy, syncInterval, segmentBytes, maxRecordBytes, diskReserveBytes, newClock, emptyDirectory, forces);
    }

    /**
     * A copy that tells {@code observer} how long each force took. Thread-safe, never blocks.
     *
     * @throws NullPointerException if {@code observer} is null
     */
    public ChronicleLogOptions withForceObserver(ForceObserver observer) {
        return new ChronicleLogOptions(syncPolicy, syncInterval, segmentBytes, maxRecordBytes, diskReserveBytes, clock, emptyDirectory,
                observer);
    }
}
