package dev.parallax.core.spi;

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
 * <p>The contract is split by concern into the interfaces it extends: {@link Proposer} (values in,
 * with lanes and back-pressure), {@link LeaderHints} (where clients go), {@link SnapshotHooks}
 * (snapshots taken and installed, the delivery state they carry) and {@link PerWorkerDelivery}
 * (P-SMR's streams per worker). A caller depends on the narrowest one it needs.
 *
 * <p>Threads: {@link #propose} may be called from any thread and never blocks. {@link #start} and
 * {@link #close} are called once each, by the owner.
 */
public interface AtomicBroadcast extends Proposer, LeaderHints, SnapshotHooks, PerWorkerDelivery, AutoCloseable {

    /**
     * Starts the protocol; decided values then reach {@code listener} on the delivery thread.
     *
     * @throws IllegalStateException if already started
     */
    void start(DeliveryListener listener);

    /** Stops the protocol and releases its threads and resources; idempotent. */
    @Override
    void close();

    /**
     * The operator's control of this ordering's members ({@link MembershipAdmin}), if it changes
     * them at run time: by default this broadcast itself when it implements {@link MembershipAdmin},
     * else empty. Any thread, never blocks.
     */
    default java.util.Optional<MembershipAdmin> membership() {
        return this instanceof MembershipAdmin admin ? java.util.Optional.of(admin) : java.util.Optional.empty();
    }

    /**
     * The read path of this ordering ({@link ReadIndex}), if it has one; empty by default, and the
     * replica then refuses queries ({@link ReadListener#UNSUPPORTED}) so that clients order their
     * reads. The same object on every call. Any thread, never blocks.
     */
    default java.util.Optional<ReadIndex> readIndex() {
        return java.util.Optional.empty();
    }
}
