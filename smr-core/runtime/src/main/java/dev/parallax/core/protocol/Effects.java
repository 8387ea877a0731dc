package dev.parallax.core.protocol;

/**
 * Where a protocol core puts the effects of one step.
 *
 * <p><b>Driver contract</b> (what the Protocol stage and the simulator must do with the effects of
 * one step): first append every persisted record, in order, to the durable log, and if any of them
 * was marked {@code sync}, sync the log; only then send the step's messages (point-to-point, then
 * {@link #sendDatagram datagrams}) and hand over its decisions. This is what lets an acceptor answer only after its promise or vote is durable
 * (Paxos' stable-storage requirement), with one sync covering every record of the step (group
 * commit).
 *
 * <p>Not thread-safe: a core writes into it on the driver's thread.
 *
 * @param <M> message type
 * @param <R> durable record type
 * @param <V> decided value type
 */
public interface Effects<M, R, V> {

    /** Send {@code message} to member {@code to} (may be this member itself). */
    void send(int to, M message);

    /**
     * Send {@code message} as one unreliable datagram to every member of datagram group
     * {@code group} except this member: it may be lost, duplicated or reordered, so a core uses it
     * only where loss is repaired by the protocol (seed 003 (Ring Paxos) §3.3.2: IP-multicast of
     * Phase 2 and decisions). Applied after the step's sync and point-to-point sends.
     *
     * @throws UnsupportedOperationException by drivers without datagram groups (the default)
     */
    default void sendDatagram(int group, M message) {
        throw new UnsupportedOperationException("this driver has no datagram groups");
    }

    /** Persist {@code record}; {@code sync} when the step's messages depend on it being durable. */
    void persist(R record, boolean sync);

    /** {@code value} was decided at position {@code instance} of the total order. */
    void decide(long instance, V value);

    /**
     * Speculative execution (seed 003 (Marandi thesis) §4.2.1): the protocol fixed {@code value}
     * at position {@code instance}, not decided yet, and expects it to be decided there (M-Ring's
     * Phase 2A). Only a hint: the driver may drop it; a replica that speculates executes it early
     * but answers only once {@link #decide} confirms the same value there. Default: ignored.
     */
    default void tentative(long instance, V value) {
    }

    /**
     * Speculative execution: the order guessed by earlier {@link #tentative} calls at or past
     * {@code from} may change (a new coordinator, a new round). Default: ignored.
     */
    default void tentativesRevoked(long from) {
    }

    /**
     * Ask to be ticked no later than {@code nanos} (the driver's clock). Several calls in one step
     * keep the earliest. Drivers may tick earlier or more often.
     */
    void wakeAt(long nanos);

    /**
     * This replica needs a snapshot: {@code peer} no longer has the decided instances below
     * {@code instance} that this replica lacks, so catching up by log is impossible.
     */
    void snapshotNeeded(int peer, long instance);

    /**
     * The core observed a broken safety property ({@link SafetyViolation}: two different decisions
     * for one instance) and kept its own state as it was. The driver raises the alarm and then
     * applies nothing more of this step or any later one: the replica stops rather than diverge.
     * A core emits this only when the violation happens, never in a correct run.
     *
     * @throws UnsupportedOperationException by drivers that cannot stop (the default): failing
     *         loudly is the only safe answer there
     */
    default void safetyViolation(SafetyViolation violation) {
        throw new UnsupportedOperationException("this driver cannot stop on a safety violation: " + violation.describe());
    }

    /**
     * Read-index (Raft thesis §6.4): read {@code read} ({@link ProtocolCore#onReadIndex}) may run once
     * this replica delivered every decision below {@code position}. Applied after the step's sends.
     *
     * @throws UnsupportedOperationException by drivers that ask for no reads (the default)
     */
    default void readReady(long read, long position) {
        throw new UnsupportedOperationException("this driver asks for no reads");
    }

    /**
     * Read {@code read} cannot be served here now ({@link dev.parallax.core.spi.ReadListener#failed}).
     *
     * @throws UnsupportedOperationException by drivers that ask for no reads (the default)
     */
    default void readFailed(long read, int leaderHint) {
        throw new UnsupportedOperationException("this driver asks for no reads");
    }
}
