package dev.parallax.core;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A {@link StateMachine} that can execute a command before its position in the total order is
 * final, and take it back (speculative execution, seed 003 (Marandi thesis) §4.2.1): with
 * {@code mring.speculation=on}, an M-Ring replica executes a command as soon as the coordinator's
 * Phase 2A fixes its position, answers the client only once that position is decided, and undoes
 * what it executed past the first undecided position when the order it guessed turns out wrong (a
 * new coordinator decided another value there). A state machine that does not implement this
 * interface keeps plain delivery: it only ever executes decided commands.
 *
 * <p><b>Contract.</b>
 * <ul>
 *   <li>{@link #executeSpeculatively} changes the state and answers exactly as
 *       {@link #execute} would for the same command and state (same determinism rules), and also
 *       returns an {@link Execution#undo() undo}.</li>
 *   <li>Running an undo restores the state exactly as it was before that command (physically, from
 *       an undo log, or logically, by a compensating action: §4.2.1, "rolling back a command is
 *       service-specific"). Undos run last-in first-out: only the most recent speculative command not
 *       yet undone or confirmed is ever undone, so each undo sees the state its command left.</li>
 *   <li>Once the command's position is decided with the same value, its undo is dropped and never
 *       run (the command is final); the replica never calls an undo twice.</li>
 *   <li>A {@link RuntimeException} from {@link #executeSpeculatively} rejects the command as
 *       {@link #execute} would: the state must be unchanged, and the replica answers with the error
 *       once the position is decided. An {@link Error} is fatal, as for {@link #execute}.</li>
 *   <li>{@link #query}, {@link #snapshot}, {@link #capture} and {@link #restore} never see
 *       speculative state: the replica undoes every speculative command before it calls them and
 *       re-executes them afterwards.</li>
 * </ul>
 *
 * <p><b>Threads.</b> Speculation runs only with the sequential executor: {@link #executeSpeculatively}
 * and the undos are called one at a time, from the replica's delivery thread or (around a query)
 * its query thread while delivery waits on the replica's lock, so each call happens-before the next;
 * they may not block.
 */
public interface SpeculativeStateMachine extends StateMachine {

    /**
     * What a speculative execution returned: the reply (handed to the client only once the position
     * is decided) and how to take the command back.
     *
     * @param reply the reply, as {@link StateMachine#execute} returns it; never {@code null}
     * @param undo  restores the state as it was before the command; never {@code null}
     */
    record Execution(ByteBuffer reply, Runnable undo) {
        /** An undo that does nothing (a read-only command). */
        public static final Runnable NOTHING = () -> { };

        /** @throws NullPointerException if {@code reply} or {@code undo} is null */
        public Execution {
            Objects.requireNonNull(reply, "reply");
            Objects.requireNonNull(undo, "undo");
        }
    }

    /**
     * Executes {@code command} speculatively: as {@link #execute}, plus an undo.
     *
     * @param command the command bytes, positioned at the first byte; read-only, valid only during
     *                the call (copy what you keep, the undo included)
     * @return the reply and the undo; never {@code null}
     * @throws RuntimeException to reject the command; the state must be unchanged
     */
    Execution executeSpeculatively(ByteBuffer command);
}
