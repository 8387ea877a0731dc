package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Total-order broadcast: values proposed at any replica are delivered at every correct replica in
 * one order (Multi-Paxos, S-Paxos, the Ring Paxos variants implement it).
 *
 * <p>Guarantees: validity (only proposed values are delivered), uniform agreement (no two replicas
 * deliver different values at one sequence number), integrity (a value is delivered at most once
 * per proposal), and liveness while a majority is up and connected. A value proposed to a replica
 * that crashes or loses leadership may be lost; clients retry, and executors deduplicate by
 * command id.
 *
 * <p>Threads: {@link #propose} may be called from any thread and never blocks. {@link #start} and
 * {@link #close} are called once each, by the owner.
 */
public interface AtomicBroadcast extends AutoCloseable {

    /**
     * Starts the protocol; decided values then reach {@code listener} on the delivery thread.
     *
     * @throws IllegalStateException if already started
     */
    void start(DeliveryListener listener);

    /**
     * Offers a value (usually a batch of commands) for ordering. Non-blocking.
     *
     * @param value the bytes from position to limit; the implementation keeps no reference to the
     *              buffer after the call returns {@code false}, and the caller must not modify it
     *              after the call returns {@code true}
     * @return {@code false} when the proposal queue is full (back-pressure: try again later); the
     *         value was then not taken
     * @throws IllegalStateException if not started or closed
     */
    boolean propose(ByteBuffer value);

    /**
     * The number of proposal lanes: independent streams the replica's batcher fills separately (one
     * batch builder and one held batch per lane), for a broadcast that orders several streams and
     * merges them (Multi-Ring Paxos: one lane per group ring plus one for the global ring, seed 003
     * (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2). Constant for the life of the broadcast, at
     * least 1. Default: 1 (every value through {@link #propose(ByteBuffer)}).
     */
    default int lanes() {
        return 1;
    }

    /**
     * The lane for a command addressed to {@code groups}, in {@code [0, lanes())}; must accept any
     * group set (a client may name groups the broadcast has no stream for) and be a function of the
     * set alone, so that one client's commands to one set keep their order. Thread-safe,
     * non-blocking. Default: 0.
     */
    default int laneOf(GroupSet groups) {
        return 0;
    }

    /**
     * {@link #propose(ByteBuffer)} into lane {@code lane} (same contract: non-blocking, {@code false}
     * = back-pressure, the value was not taken). Default: {@link #propose(ByteBuffer)}.
     *
     * @throws IllegalArgumentException if {@code lane} is not in {@code [0, lanes())}
     */
    default boolean propose(int lane, ByteBuffer value) {
        return propose(value);
    }

    /**
     * {@link #readyForProposal()} for lane {@code lane}. Default: {@link #readyForProposal()}.
     */
    default boolean readyForProposal(int lane) {
        return readyForProposal();
    }

    /** {@link #redirectHint()}'s answer when any replica takes clients, this one included. */
    int ANY_REPLICA = -1;

    /**
     * Where commands should be sent: the id of the replica clients should talk to instead of this
     * one, or {@link #ANY_REPLICA} when this replica takes them (a leader-based protocol's leader,
     * or every replica of S-Paxos and the ring protocols). The replica's client front end only
     * applies this rule (redirecting when the hint names another replica); the rule itself is the
     * protocol's. Read without blocking, from any thread; a hint, possibly stale.
     */
    int redirectHint();

    /**
     * The replica this one believes leads ordering, or -1 if none is known or the protocol has no
     * leader; for operators, tools and tests, read without blocking. Default: {@link #redirectHint()}.
     */
    default int leaderHint() {
        return redirectHint();
    }

    /**
     * A hint for batchers, read without blocking: whether a value proposed now would start being
     * ordered at once (the protocol has a free window slot and nothing queued). A batcher closes a
     * partial batch early when this holds, so a lone command is not delayed at low load.
     */
    default boolean readyForProposal() {
        return true;
    }

    /**
     * The replica wrote a snapshot covering every position below {@code nextSequence} and made it
     * durable: the protocol may forget (and compact its log below) those positions. Called from any
     * thread (the replica calls it from its snapshot writer thread, while delivery goes on), with
     * increasing positions. Non-blocking; default ignores it.
     */
    default void snapshotTaken(long nextSequence) {
    }

    /**
     * The replica installed a snapshot covering every position below {@code nextSequence}
     * (at start-up, or received from a peer): delivery continues from there. May be called before
     * {@link #start}. Non-blocking; default ignores it.
     */
    default void snapshotInstalled(long nextSequence) {
    }

    /**
     * The broadcast's delivery-side state that must travel with a snapshot so that a replica
     * installing it delivers exactly as the replicas that did not (S-Paxos: the executed batch ids
     * that decide "duplicate or new", seed 002 (S-Paxos) §IV-B a, footnote 5). The replica stores
     * it in the snapshot taken at the position of the last delivery plus one and hands it back
     * through {@link #snapshotInstalled(long, byte[])}.
     *
     * <p>This is also where a broadcast that merges several ordered streams keeps its <em>position</em>
     * (Multi-Ring Paxos: the merge position, per ring the logical next and the physical instance to
     * resume from), so that a replica restarting from its own snapshot, or installing a peer's,
     * resumes every stream exactly after the snapshot: no gap, no duplicate. It is opaque to the
     * replica and read at a delivery boundary, so it is the state as of the snapshot's position.
     *
     * <p>Called on the delivery thread, between two deliveries, with execution quiescent; must not
     * block. Default: no state (an empty array).
     */
    default byte[] deliveryState() {
        return new byte[0];
    }

    /**
     * The replica installed a snapshot covering every position below {@code nextSequence}, which
     * carried {@code deliveryState} (what {@link #deliveryState()} returned where it was taken;
     * empty for a snapshot written before delivery states existed). May be called before
     * {@link #start}. Non-blocking; the implementation may keep the array. Default:
     * {@link #snapshotInstalled(long)}.
     */
    default void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        snapshotInstalled(nextSequence);
    }

    /**
     * Whether this broadcast can deliver per worker ({@link #startPerWorker}): a multicast that
     * gives each worker a stream of its own (P-SMR, seed 003 (Ring Paxos / Multi-Ring / P-SMR)
     * ch. 6). Default {@code false}.
     */
    default boolean deliversPerWorker() {
        return false;
    }

    /**
     * Starts delivery per worker, instead of {@link #start}: worker i's stream is the deterministic
     * merge of the values multicast to any of its groups (the broadcast's groups g whose
     * {@code workersOf}({g}) contains i) and of those multicast to every group (the global stream),
     * each stream with a delivery thread of its own. Every two workers' streams order the values
     * they share alike, and the union of their orders is acyclic (atomic multicast's acyclic
     * order), which is what lets workers that share a value meet on it without deadlock.
     *
     * <p>In this mode: {@link #deliveryState()} is called on one worker's delivery thread while
     * every worker is inside the delivery of one value multicast to every group (a barrier: every
     * stream stands at a consistent cut), and returns every stream's position;
     * {@link #snapshotInstalled(long, byte[])} moves every stream to the snapshot's positions,
     * closing the old streams (a delivery blocked in the listener is interrupted) and opening the
     * new ones before it returns; the sequence number of a snapshot is the sum over the workers of
     * their next delivery numbers at the barrier.
     *
     * @param workers   k, the number of workers
     * @param workersOf the workers of a value to a group set, bit i for worker i (the executor's
     *                  mapping, {@link WorkerExecutor#workersOf})
     * @throws UnsupportedOperationException if {@link #deliversPerWorker()} is false
     * @throws IllegalArgumentException      if some worker would have no group of the broadcast
     * @throws IllegalStateException         if already started
     */
    default void startPerWorker(int workers, java.util.function.ToLongFunction<GroupSet> workersOf,
                                WorkerDeliveryListener listener) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " delivers one total order, not per worker");
    }

    /** Stops the protocol and releases its threads and resources; idempotent. */
    @Override
    void close();
}
