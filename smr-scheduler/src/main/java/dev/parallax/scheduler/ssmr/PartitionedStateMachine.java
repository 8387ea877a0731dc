package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A service whose state is split into partitions, executed by S-SMR (seed 004 (S-SMR) §IV; Eyrie's
 * {@code StateMachine} and {@code PartitioningOracle.getLocalObjects}, §V-A). Every replica of every
 * partition a command was multicast to executes the whole command; the values it reads that another
 * partition holds come from that partition, through the {@link ExecutionContext}.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Deterministic.</b> Same state, same command, same view and same remote values: same
 *       reply, same state change, same exception, on every replica of the partition. No clock,
 *       randomness or I/O.</li>
 *   <li><b>Reads before execution.</b> For each command, in delivery order and on the executing
 *       thread, the executor calls {@link #localReads} then {@link #remoteReads} and then, once the
 *       values of every partition {@code remoteReads} named have arrived, {@link #execute}. Neither
 *       of the first two changes state.</li>
 *   <li><b>Local reads are sent early.</b> What {@code localReads} returns is sent to every other
 *       involved partition before the command executes here (§IV-C, first optimization); a value
 *       counts as that partition's signal (§IV-C, second optimization).</li>
 *   <li><b>Too few partitions.</b> A command that needs a partition it was not sent to calls
 *       {@link ExecutionContext#require} first, which throws {@link WrongPartitionsException}; the
 *       executor answers the same error on every replica and the state is unchanged.</li>
 *   <li><b>Errors.</b> Any other {@link RuntimeException} from {@code execute} becomes the command's
 *       error reply (as with a sequential {@link dev.parallax.core.StateMachine}); the state must be
 *       left as before the call. An exception from {@code localReads} or {@code remoteReads} is a
 *       bug: the executor reports the command as failed, sends an empty value, and goes on.</li>
 *   <li><b>Snapshots</b> cover this partition's state only; the executor adds its own.</li>
 * </ul>
 *
 * <p>Threading: called by one executing thread at a time (the replica's S-SMR executor thread);
 * snapshot and restore are called while no command executes.
 */
public interface PartitionedStateMachine {
    /**
     * The values of this partition's variables that {@code command} reads, as bytes to send to the
     * other partitions it was multicast to (Alg. 1 l.14-15); an empty buffer if none (a signal only).
     */
    ByteBuffer localReads(ByteBuffer command, PartitionView view);

    /**
     * The other partitions whose {@link #localReads} the execution of {@code command} needs (Alg. 1
     * l.16-17): a subset of {@code view.involved()} without {@code view.partition()}, or null if
     * none. Partitions named here but not involved make {@code execute} fail through
     * {@link ExecutionContext#require}, so return only involved ones.
     */
    GroupSet remoteReads(ByteBuffer command, PartitionView view);

    /** Executes {@code command} at this partition; returns the reply for the client. */
    ByteBuffer execute(ByteBuffer command, ExecutionContext context);

    /** Writes this partition's state. */
    void snapshot(WritableByteChannel out) throws IOException;

    /** Replaces this partition's state with one {@link #snapshot} wrote. */
    void restore(ReadableByteChannel in) throws IOException;

    /**
     * Answers the read-only {@code query} from this partition's state, outside the order (the
     * replica's query path: read-index, then between two commands, with nothing executing): the
     * reply {@link #execute} would give, without changing state. A query that needs another
     * partition's state, or that this machine does not answer so, throws
     * {@link UnsupportedOperationException}, and the client orders it. The default throws.
     * Called on a replica thread other than the executing one, while no command executes.
     */
    default ByteBuffer query(ByteBuffer query) {
        throw new UnsupportedOperationException("this partitioned state machine answers reads through the order");
    }

    /**
     * This machine's caching SPI (seed 004 (S-SMR) §IV-C, {@link CachedReads}), used when the
     * cluster enables {@code ssmr.cache}; null (the default): values are exchanged without caching.
     * Called once, when the executor starts.
     */
    default CachedReads cachedReads() {
        return null;
    }
}
