package dev.parallax.core.spi;

/**
 * Where an ordering protocol says that this replica needs a snapshot: {@code peer} no longer has
 * the decided positions below {@code instance} that this replica lacks (it compacted them), so
 * catching up by log is impossible. The replica's snapshot-transfer service fetches the peer's
 * newest snapshot and installs it (see {@link AtomicBroadcast#snapshotInstalled}).
 *
 * <p>Threads: called on the protocol's driver thread; must not block (hand the request over).
 */
@FunctionalInterface
public interface SnapshotRequester {

    /** A requester that ignores requests (a replica without snapshots). */
    SnapshotRequester NONE = (peer, instance) -> { };

    void request(int peer, long instance);
}
