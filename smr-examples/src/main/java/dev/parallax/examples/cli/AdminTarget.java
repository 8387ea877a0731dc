package dev.parallax.examples.cli;

import dev.parallax.core.spi.MembershipAdmin;

import java.util.Map;
import java.util.Optional;

/**
 * What the admin routes of a replica's metrics endpoint ({@link AdminRoutes}) act on: one running
 * replica ({@link ReplicaAdminTarget}), or a fake in tests.
 *
 * <p>Threads: every method is called from the endpoint's HTTP threads, may be called concurrently
 * and must not block.
 */
interface AdminTarget {

    /** The replica's id. */
    int id();

    /** The ordering protocol's name, e.g. {@code multi-paxos}. */
    String ordering();

    /**
     * The replica's state, as ordered {@code key=value} pairs (see {@link AdminRoutes} for the keys):
     * what the ordering exposes of its role, view or round and decided instances, per stream, and
     * the replica's executed position.
     */
    Map<String, String> status();

    /** The ordering's membership control, when its broadcast implements {@link MembershipAdmin}. */
    Optional<MembershipAdmin> membership();

    /**
     * Asks for a snapshot at the next safe point of the executing thread.
     *
     * @throws IllegalStateException with the reason if the replica cannot take one
     */
    void requestSnapshot();
}
