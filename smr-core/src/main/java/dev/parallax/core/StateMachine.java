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
 * <p><b>Threads.</b> With the sequential executor all three methods are called from one thread
 * (the ServiceManager). A parallel executor may call {@link #execute} from several threads at once,
 * but only for commands its class map declares independent; the implementation must then be safe
 * for concurrent execution of independent commands. {@link #snapshot} and {@link #restore} are only
 * called while no command is executing.
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
     * Writes the whole state to {@code out}. Called on the executing thread while no command runs.
     * Blocking IO is allowed.
     *
     * @throws IOException if the channel fails; the snapshot is then discarded
     */
    void snapshot(WritableByteChannel out) throws IOException;

    /**
     * Replaces the whole state with the one read from {@code in} (written by {@link #snapshot}).
     * Called before any command executes or while none runs. Blocking IO is allowed.
     *
     * @throws IOException if the channel fails or the data is malformed
     */
    void restore(ReadableByteChannel in) throws IOException;
}
