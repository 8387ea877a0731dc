package dev.parallax.core.runtime;

import dev.parallax.core.spi.AtomicBroadcast;

/**
 * A pluggable ordering protocol: builds the {@link AtomicBroadcast} a replica orders commands
 * with (for example {@code MultiPaxos.protocol(config)} in smr-paxos). Immutable and thread-safe.
 */
public interface OrderingProtocol {

    /** A short name for logs and metrics ({@code multi-paxos}). */
    String name();

    /**
     * The batch size (BSZ, bytes) this protocol's configuration asks the replica's Batcher for, or
     * 0 to leave the replica's own setting. A replica built with an explicit
     * {@code Replica.Builder.batching} uses that instead.
     */
    default int batchBytes() {
        return 0;
    }

    /** The batch time-out in nanoseconds this protocol asks for, or -1 to leave the replica's setting. */
    default long batchTimeoutNanos() {
        return -1;
    }

    /** Builds a not-yet-started broadcast for the replica described by {@code context}. */
    AtomicBroadcast create(OrderingContext context);
}
