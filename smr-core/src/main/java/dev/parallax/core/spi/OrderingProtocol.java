package dev.parallax.core.spi;

/**
 * A pluggable ordering protocol: builds the {@link AtomicBroadcast} a replica orders commands
 * with (for example {@code MultiPaxos.protocol(config)} in smr-paxos). Immutable and thread-safe.
 */
public interface OrderingProtocol {

    /** A short name for logs and metrics ({@code multi-paxos}). */
    String name();

    /** Builds a not-yet-started broadcast for the replica described by {@code context}. */
    AtomicBroadcast create(OrderingContext context);
}
