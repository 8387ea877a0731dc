package dev.parallax.core.protocol;

/**
 * A deterministic protocol state machine: given the same inputs in the same order it emits the same
 * effects. Implementations hold only their own state (no threads, clocks, IO or randomness); time
 * enters only through the {@code now} argument.
 *
 * <p>Not thread-safe: exactly one driver thread calls it.
 *
 * @param <M> message type
 * @param <R> durable record type
 * @param <V> proposed and decided value type
 */
public interface ProtocolCore<M, R, V> {

    /** A message from member {@code from} arrived. */
    void onMessage(int from, M message, long now, Effects<M, R, V> out);

    /** Time passed; the core runs its timeouts against {@code now}. */
    void onTick(long now, Effects<M, R, V> out);

    /**
     * The local client layer offers {@code value} for ordering.
     *
     * @return {@code false} if the core cannot take it now (not leader, window full); the caller
     *         keeps it and may offer it again or redirect
     */
    boolean onProposal(V value, long now, Effects<M, R, V> out);

    /**
     * A snapshot now covers every instance below {@code instance}: forget what lies below it, and
     * persist (with sync) every record still needed afterwards, so that the driver can then drop
     * every log record written before this call. Default: nothing to compact.
     */
    default void compact(long instance, Effects<M, R, V> out) {
    }

    /**
     * The runtime's failure detector suspects the leader of {@code view} (it heard nothing from it
     * for the protocol's suspect timeout). The core acts only if it still is in {@code view} and
     * follows; a stale suspicion is ignored. Default: the core detects failures itself on ticks.
     */
    default void onSuspect(long view, long now, Effects<M, R, V> out) {
    }

    /** A snapshot covering every instance below {@code instance} was installed: continue from there. */
    default void skipTo(long instance) {
    }

    /**
     * A snapshot covering every instance below {@code instance} was installed, carrying
     * {@code deliveryState}: the delivery-side state the broadcast saved with it
     * ({@code AtomicBroadcast.deliveryState}, as of {@code instance}; empty when the snapshot has
     * none). A core whose decisions depend on replicated delivery state (S-Paxos' executed ids,
     * seed 002 (S-Paxos) §IV-B a, footnote 5) restores it here, so that it decides exactly as a
     * replica that never installed. The buffer is read-only and the core may keep it. Default:
     * {@link #skipTo(long)}.
     */
    default void skipTo(long instance, java.nio.ByteBuffer deliveryState) {
        skipTo(instance);
    }

    /**
     * Reports the protocol events this core counts (for example retransmissions or catch-up
     * queries) as (name, count so far) pairs; the names are fixed for the core's life and the
     * counts never decrease. Called on the thread that drives the core; must not block. The
     * default reports nothing.
     */
    default void reportEvents(java.util.function.ObjLongConsumer<String> sink) {
    }

    /**
     * The batching hint: whether a partial batch should be proposed now. {@link #onProposal} may
     * still take a value when this is false (a protocol can be eager only while its pipeline is
     * nearly empty, as Multi-Paxos with {@code eagerBelow}).
     */
    default boolean canPropose() {
        return true;
    }

    /**
     * Whether the core is still recovering state its log may have lost (amnesia after an unclean
     * stop without forced syncs) and so must not vote yet. The runtime tells the log once this
     * turns false ({@code DurableLog.amnesiaResolved}), after the step's records were synced.
     * Default: never recovering.
     */
    default boolean recovering() {
        return false;
    }

    /**
     * Delivery progress: every decision below {@code nextInstance} was handed to the replica's
     * listener (no-ops included). Lets a protocol bound what it keeps for peers or pace its
     * coordinator on what the replica actually executed (seed 003 (Ring Paxos) §3.3.4 flow
     * control). Called on the driver's thread only when the number grew. Default: ignored.
     */
    default void onDelivered(long nextInstance, long now, Effects<M, R, V> out) {
    }

    /**
     * The runtime's member detector suspects {@code member} in {@code epoch} (see
     * {@code liveness.MemberDetector}): a protocol that needs every member of a set (a ring, seed
     * 003 (Ring Paxos) §3.3.6) checks it is still in that epoch and acts. Called after the inbox
     * drain of a driver step. Default: ignored.
     */
    default void onSuspectMember(int member, long epoch, long now, Effects<M, R, V> out) {
    }

    /**
     * Read-index (Raft thesis §6.4): the replica asks for the position read {@code read} must wait
     * for. The core answers with {@link Effects#readReady} once it knows a position that every
     * command completed before this call lies below (a leader confirms it still leads with a quorum
     * round begun after this call; a follower asks its leader), or {@link Effects#readFailed}, in
     * this step or a later one, exactly once. Default: no read path
     * ({@link dev.parallax.core.spi.ReadListener#UNSUPPORTED}).
     */
    default void onReadIndex(long read, long now, Effects<M, R, V> out) {
        out.readFailed(read, dev.parallax.core.spi.ReadListener.UNSUPPORTED);
    }
}
