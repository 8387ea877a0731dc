package dev.parallax.core.spi;

/**
 * Linearizable reads without ordering (read-index, Raft thesis §6.4): the ordering protocol tells
 * the replica the position its state must reach before a read-only query may run, so that the
 * query sees every command that completed before it was asked. The protocol confirms that its
 * leader (a ring's coordinator) still leads with a quorum round after the read arrived, and answers
 * with the leader's position then; a replica that does not lead asks the leader for that position,
 * so reads run on every replica.
 *
 * <p>Positions are those of the {@link DeliveryListener}: a read with position {@code p} may run
 * once {@link #deliveredBelow()} reaches {@code p} and the commands delivered below it executed.
 *
 * <p>Threads: {@link #request} from any thread, never blocking; {@link #answers} once, before the
 * protocol starts; the listener is called on the protocol's thread and must not block.
 */
public interface ReadIndex {

    /**
     * Asks for the read position of read {@code read} (a number the caller picks, unique among its
     * reads in flight); the answer reaches the {@link #answers listener} once.
     *
     * @return false if the protocol's bounded queue of reads is full: no answer will come, the
     *         caller answers the client itself (busy)
     */
    boolean request(long read);

    /** Where answers go; set once before the protocol starts. */
    void answers(ReadListener listener);

    /**
     * Every decision below this position was handed to the delivery listener (values the listener
     * never sees, such as no-ops, included). Any thread.
     */
    long deliveredBelow();

    /**
     * Runs {@code progress} on the delivery thread each time {@link #deliveredBelow()} grows, so a
     * reader waiting for a position need not poll; it must be cheap and must not block. Set once,
     * before the protocol starts. Default: never called (the reader polls).
     */
    default void onDelivered(Runnable progress) {
    }
}
