package dev.parallax.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The replicated service: a deterministic state machine that every replica runs on the same
 * sequence of commands.
 *
 * <p><b>Determinism.</b> {@link #execute} must depend only on the current state and the command
 * bytes: no clocks, randomness, thread identity or iteration order of unordered collections. Two
 * replicas that start from the same state and execute the same commands must reach the same state
 * and return equal replies.
 *
 * <p><b>Threads.</b> With the sequential executor all its methods are called from one thread
 * (the ServiceManager). A parallel executor may call {@link #execute} from several threads at once,
 * but only for commands its class map declares independent; the implementation must then be safe
 * for concurrent execution of independent commands. {@link #capture}, {@link #snapshot} and
 * {@link #restore} are only called while no command is executing. A {@link SnapshotCapture} that
 * {@link #capture} returned is written on the replica's snapshot writer thread while later commands
 * execute (see there); {@link #restore} is not called until that capture is closed.
 *
 * <p><b>Snapshots.</b> A replica snapshots in two steps so that execution does not stop for the
 * write: {@link #capture} freezes the state at a position (on the executing thread, no command
 * running), then a writer thread streams the capture to disk and fsyncs it. The default capture
 * runs {@link #snapshot} into memory; override {@link #capture} when the state can be frozen more
 * cheaply (persistent or copy-on-write structures), and keep {@link #snapshot} writing the same
 * bytes.
 *
 * <p><b>Queries.</b> A read-only {@link #query} runs on one replica, outside the total order, once
 * the replica executed every command that completed before the query was issued (read-index,
 * Raft thesis §6.4, or a lease): it is linearizable without being ordered. It sees the state
 * between two commands, never during one: the replica calls it while no command executes (after
 * a sequential executor's command, or after a parallel executor quiesced). A state machine that
 * does not override it answers queries through the order: the replica refuses the query and the
 * client sends the same bytes as a command instead, so {@link #execute} must accept them too.
 *
 * <p><b>Errors.</b> A {@link RuntimeException} thrown by {@link #execute} does not stop the replica:
 * the executor turns it into an error {@link CommandResult} (the same on every replica, because the
 * command and state are the same) and goes on. The implementation must leave its state unchanged
 * when it throws, so that a rejected command has no effect.
 */
public interface StateMachine {

    /**
     * Executes one command and returns its reply.
     *
     * @param command the command bytes, positioned at the first byte; read-only, valid only during
     *                the call (copy what you keep)
     * @return the reply; may be empty, never {@code null}. The buffer is read from its position to
     *         its limit and must not be modified afterwards.
     * @throws RuntimeException to reject the command; the state must be unchanged
     */
    ByteBuffer execute(ByteBuffer command);

    /**
     * Answers the read-only {@code query} from the current state, which it must not change. Called
     * on the replica's query thread while no command executes (see the class comment); it may be
     * called between any two commands, as often as reads come. Default: not supported, the client
     * then orders the same bytes as a command.
     *
     * @param query the query bytes (the same bytes a client could send as a command); read-only,
     *              valid only during the call
     * @return the reply, as {@link #execute} would return it for these bytes as a command
     * @throws UnsupportedOperationException if this state machine (or this kind of query) is not
     *                                       answered outside the order: the client orders it
     * @throws RuntimeException              to reject the query (an error reply, as for a command)
     */
    default ByteBuffer query(ByteBuffer query) {
        throw new UnsupportedOperationException("this state machine answers reads through the order");
    }

    /**
     * Writes the whole state to {@code out}. Called on the executing thread while no command runs;
     * by the default {@link #capture}, {@code out} is an in-memory buffer. Blocking IO is allowed.
     * Closing {@code out} has no effect.
     *
     * @throws IOException if the channel fails; the snapshot is then discarded
     */
    void snapshot(WritableByteChannel out) throws IOException;

    /**
     * Freezes the whole state for a snapshot that a writer thread writes later, while commands go
     * on executing. Called on the executing thread while no command runs; it should be quick, as
     * execution waits for it.
     *
     * <p>The default runs {@link #snapshot} into memory ({@link SnapshotCapture#inMemory}): the
     * serialization time is spent here, the disk write and fsync are not, and one serialized copy
     * of the state is held until the write ends. A state machine whose data can be frozen in O(1)
     * (persistent maps, copy-on-write) overrides this to return a view that serializes on the writer
     * thread, writing the same format {@link #restore} reads.
     *
     * @throws IOException if the state cannot be captured; the snapshot is then discarded (counted
     *                     in {@code parallax.snapshots.failed}) and execution goes on
     */
    default SnapshotCapture capture() throws IOException {
        return SnapshotCapture.inMemory(this::snapshot);
    }

    /**
     * Replaces the whole state with the one read from {@code in} (written by {@link #snapshot} or a
     * {@link SnapshotCapture}). Called before any command executes or while none runs, and never
     * while a capture is still open. Blocking IO is allowed.
     *
     * @throws IOException if the channel fails or the data is malformed
     */
    void restore(ReadableByteChannel in) throws IOException;
}
