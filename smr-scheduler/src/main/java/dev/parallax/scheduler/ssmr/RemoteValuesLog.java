package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.util.Optional;

/**
 * The durable record of the remote values each command read, so that replay and restart re-execute
 * it identically (seed 004 (S-SMR) §IV Alg. 1 l.16-17: the values come from other
 * partitions, whose state has moved on by the time this replica replays).
 *
 * <p><b>Protocol.</b> When a command finishes at this replica (executed, and a signal or values
 * received from every other involved partition: Alg. 1 l.20), the executor calls {@link #append}
 * and only then sends the reply. When a delivered command has an entry ({@link #lookup}), it is a
 * replay of a command this replica already finished: the executor executes it at once with the
 * logged values and does not wait for signals. That is safe because the entry proves the first
 * execution was execution-atomic: every involved partition had delivered the command, so none of
 * them can still be waiting for this replica's signal to make progress that the replay would have
 * to respect; the values are exactly those the first execution used, so state and reply are equal.
 * The replay still sends its signal/values (harmless duplicates, they help a lagging peer).
 *
 * <p><b>Indexes.</b> The executor numbers the commands it finishes 1, 2, 3, ... (its finish index;
 * the same at every replica of the partition since they finish the same commands in the same
 * delivery order) and carries the last one in its snapshot ({@link SsmrStateMachine}).
 *
 * <p><b>Truncation rule.</b> An entry is needed until a snapshot that covers its command is durable
 * (after restoring that snapshot the command is never replayed again). So once the replica has
 * durably stored a snapshot whose executor state says "finished through index {@code i}", it calls
 * {@link #truncateThrough}{@code (i)}. Keeping entries longer is harmless.
 *
 * <p><b>Durability.</b> {@link #append} returns once the entry is as durable as the replica's
 * delivery log (an implementation may batch and sync with it; the reply is sent after append
 * returns). {@link InMemoryRemoteValuesLog} is not durable: for tests and for replicas without
 * a disk, which then must recover by state transfer, not by replay.
 *
 * <p><b>Threads.</b> {@link #append} and {@link #lookup} are called by the executor's thread only;
 * {@link #truncateThrough} may come from the replica's snapshot thread, so implementations must
 * be safe for that one concurrent caller. Methods may block for I/O.
 */
public interface RemoteValuesLog {
    /**
     * Records that the command {@code command}, finished with index {@code index} (strictly
     * greater than any earlier append's), read {@code values}. Replaces an existing entry for the
     * same command (a replay appends the same values again).
     *
     * @throws java.io.UncheckedIOException if the entry could not be stored; the executor treats
     *                                      that as fatal (it must not reply without the entry)
     */
    void append(long index, CommandId command, RemoteValues values);

    /** The values logged for {@code command}, if any. */
    Optional<RemoteValues> lookup(CommandId command);

    /** Forgets every entry whose index is {@code <= index}. */
    void truncateThrough(long index);
}
