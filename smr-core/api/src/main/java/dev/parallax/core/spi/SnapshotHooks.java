package dev.parallax.core.spi;

/**
 * What an ordering protocol hears about the replica's snapshots, and the delivery-side state it
 * keeps in them: a snapshot taken (the protocol may forget and compact below it), a snapshot
 * installed (delivery continues from there), and the opaque state that travels with a snapshot
 * so that an installing replica delivers exactly as the others.
 *
 * <p>Threads: see each method; none blocks.
 */
public interface SnapshotHooks {

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
     * {@link AtomicBroadcast#start}. Non-blocking; default ignores it.
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
     * {@link AtomicBroadcast#start}. Non-blocking; the implementation may keep the array. Default:
     * {@link #snapshotInstalled(long)}.
     */
    default void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        snapshotInstalled(nextSequence);
    }
}
