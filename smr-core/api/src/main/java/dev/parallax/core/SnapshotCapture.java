package dev.parallax.core;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * A state machine's state frozen at one position, written to the snapshot later and on another
 * thread: the hand-off that lets a replica keep executing while its snapshot goes to disk.
 *
 * <p><b>How a replica uses it.</b> At a snapshot point the replica's delivery thread waits until no
 * command runs, then calls {@link StateMachine#capture} (the state cannot change meanwhile: that
 * thread is the only one that would start a command) and goes back to executing commands. The
 * replica's snapshot writer thread then calls {@link #writeTo} once, streaming the captured state
 * into the snapshot file, and finally {@link #close}. {@code close} is called exactly once, also
 * when {@code writeTo} was never called or threw (the snapshot was abandoned or failed).
 *
 * <p><b>Two ways to capture.</b> {@link #inMemory} serializes the state at once into memory, the
 * {@link StateMachine#capture default}: correct for every state machine, but it costs the
 * serialization time on the delivery thread and memory for one serialized copy until the write
 * ends. A state machine with persistent (immutable, structurally shared) or copy-on-write data can
 * instead freeze a view in O(1) and serialize it in {@link #writeTo}, on the writer thread, while
 * later commands change the live state. Such a view must then not be changed by later commands
 * (nor by {@link StateMachine#restore}) until {@link #close}, which is where the state machine may
 * take back what it shared.
 *
 * <p><b>Threads.</b> Created on the executing thread while no command runs; {@link #writeTo} and
 * {@link #close} are called on the snapshot writer thread, concurrently with the execution of later
 * commands. {@link #writeTo} may block on IO; it must end promptly when its thread is interrupted
 * (the replica abandons a write that way when it closes or installs a newer snapshot), throwing
 * an {@link IOException} such as {@link java.io.InterruptedIOException}. It is a
 * {@link FunctionalInterface} so that a body writer ({@code state::snapshot}) can be passed to
 * {@link #inMemory}.
 */
@FunctionalInterface
public interface SnapshotCapture extends AutoCloseable {

    /**
     * Writes the captured state to {@code out} in the format {@link StateMachine#restore} reads.
     * Called at most once.
     *
     * @throws IOException if the channel fails or the thread was interrupted; the snapshot is then
     *                     discarded
     */
    void writeTo(WritableByteChannel out) throws IOException;

    /** Releases what the capture holds. Called exactly once, last; must not block. Default: nothing. */
    @Override
    default void close() {
    }

    /**
     * Runs {@code body} now, on the calling thread, into memory, and returns a capture that writes
     * those bytes: the copy a state machine without a cheaper frozen view hands off. Memory: the
     * serialized size plus at most one growth chunk (chunks double from 64 KiB up to 8 MiB, so
     * serialized states beyond 2 GiB work), held until {@link #close}.
     *
     * @param body writes the state (typically {@code stateMachine::snapshot}); it is given a channel
     *             that only ever accepts every byte
     * @throws IOException if {@code body} throws it
     */
    static SnapshotCapture inMemory(SnapshotCapture body) throws IOException {
        InMemorySnapshot buffer = new InMemorySnapshot();
        body.writeTo(buffer.sink());
        return buffer.seal();
    }
}
