package dev.parallax.core.spi;

import java.nio.ByteBuffer;

/**
 * An append-only log of opaque records with contiguous indexes, used by acceptors for promises and
 * votes, and trimmed below snapshots.
 *
 * <p><b>Indexes.</b> The first record ever appended gets index 0; each append gets the next index.
 * Records in {@code [firstIndex(), nextIndex())} are readable. {@link #truncateBefore} raises
 * {@code firstIndex}.
 *
 * <p><b>Durability.</b> {@link #append} stores a record but makes no durability promise;
 * {@link #sync} returns once every record appended before the call is durable (group commit: one
 * sync covers all of them). After a crash and reopen, the log holds a prefix of what was appended:
 * every synced record, possibly some unsynced ones after them, never a gap, never a torn or altered
 * record. {@link #truncateBefore} is durable once a later {@link #sync} returns.
 *
 * <p><b>Threads.</b> Single writer: one thread appends, syncs and truncates. {@link #read} may be
 * called by that same thread. Not thread-safe otherwise.
 *
 * <p><b>Errors.</b> I/O failures raise {@link DurableLogException}; the record in flight must be
 * treated as not stored. Calls after {@link #close} raise {@link IllegalStateException}.
 */
public interface DurableLog extends AutoCloseable {

    /**
     * Appends a record (its bytes from position to limit; the buffer's position is not changed).
     *
     * @return the record's index
     * @throws DurableLogException   if the record could not be written
     * @throws IllegalStateException if closed
     */
    long append(ByteBuffer record);

    /**
     * Makes every record appended so far durable.
     *
     * @throws DurableLogException   if the device failed; nothing appended since the previous
     *                               successful sync may be assumed durable
     * @throws IllegalStateException if closed
     */
    void sync();

    /** Lowest readable index; equals {@link #nextIndex()} when the log holds no record. */
    long firstIndex();

    /** The index the next {@link #append} will return. */
    long nextIndex();

    /** Every record with an index below this one is durable. */
    long durableIndex();

    /**
     * Visits up to {@code maxRecords} records starting at {@code fromIndex}, in index order.
     *
     * @return how many records were visited (0 when {@code fromIndex >= nextIndex()})
     * @throws IllegalArgumentException if {@code fromIndex < firstIndex()} (trimmed) or negative
     * @throws DurableLogException      if a record cannot be read
     */
    int read(long fromIndex, int maxRecords, RecordVisitor visitor);

    /**
     * Discards every record below {@code index} (for example below a snapshot). Records at
     * {@code index} and above are kept. A no-op if {@code index <= firstIndex()}.
     *
     * @throws IllegalArgumentException if {@code index > nextIndex()}
     */
    void truncateBefore(long index);

    /**
     * Whether records this log reported durable before the previous process stopped may be missing
     * now ("amnesia"). A log that keeps the durability contract above through any crash answers
     * {@code false}. A log whose {@link #sync} does not force every record to the device (a
     * page-cache-only policy) answers {@code true} when the previous process did not stop with a
     * clean {@link #close} and did not call {@link #amnesiaResolved}: a kernel crash or power loss
     * may then have dropped records the caller acted on (promises, votes). Such a caller must not
     * answer peers again before it has rebuilt that state from them. A new, empty log answers
     * {@code false}, unless it was opened as the replacement of a lost one (a wiped data directory:
     * every promise and vote is gone; see {@code ChronicleLogOptions.EmptyDirectory#LOST}), which
     * answers {@code true} until resolved. Never blocks; single writer thread.
     *
     * @throws IllegalStateException if closed
     */
    default boolean amnesiaPossible() {
        return false;
    }

    /**
     * The caller has rebuilt from its peers what the log may have lost (and appended and synced
     * what it needs): from now on a clean {@link #close} may report a clean stop again. Until this
     * is called, a log that reported {@link #amnesiaPossible()} keeps reporting it at every open,
     * even after a clean close. A no-op for logs that never report amnesia. Single writer thread.
     *
     * @throws DurableLogException   if the log cannot record it
     * @throws IllegalStateException if closed
     */
    default void amnesiaResolved() {
    }

    /**
     * Releases the log's files. Does not advance {@link #durableIndex()}; a log whose {@link #sync}
     * does not force records first forces every record appended so far and records a clean stop,
     * so that the next open does not report {@link #amnesiaPossible()} (unless that was reported
     * and not yet {@linkplain #amnesiaResolved() resolved}, or the log failed). Idempotent.
     */
    @Override
    void close();
}
