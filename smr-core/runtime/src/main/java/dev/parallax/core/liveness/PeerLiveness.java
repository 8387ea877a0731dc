package dev.parallax.core.liveness;

import dev.parallax.core.time.Clock;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * When each peer was last heard from: a timestamp per peer, stamped by the transport's IO threads
 * on every frame received and read by the {@link FailureDetector}. Stamping is one ordered
 * ({@code lazySet}) store of the clock's reading: no lock, no wakeup, nobody is told — the detector
 * looks when it wants to. Because the stamp is taken on arrival, before the message waits in (or is
 * dropped by) the protocol inbox, a replica whose protocol thread is busy or stalled still sees a
 * live leader as live.
 *
 * <p>Each peer's slot sits on its own cache line, so IO threads stamping different peers do not
 * contend. Two threads stamping the same peer at once (a connection being replaced) may leave the
 * older of two nearly equal readings; the detector's timeouts are orders of magnitude coarser.
 *
 * <p>Thread-safe: {@link #heard} from any number of threads, readers from any thread.
 */
public final class PeerLiveness implements dev.parallax.core.spi.ArrivalStamps {
    /** Longs between two peers' slots: 128 bytes, two cache lines on common hardware. */
    private static final int STRIDE = 16;

    private final int peers;
    private final Clock clock;
    private final long created;
    private final AtomicLongArray stamps;
    private final LongAdder unknownPeers = new LongAdder();

    /**
     * @param peers the number of members; peer ids are {@code 0..peers-1}
     * @param clock the clock stamps are read from (the replica's clock)
     * @throws IllegalArgumentException if {@code peers} is not positive
     */
    public PeerLiveness(int peers, Clock clock) {
        if (peers <= 0) {
            throw new IllegalArgumentException("peers must be positive: " + peers);
        }
        this.peers = peers;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.created = clock.nanoTime();
        this.stamps = new AtomicLongArray(peers * STRIDE);
        for (int p = 0; p < peers; p++) {
            stamps.set(p * STRIDE, created);
        }
    }

    /** The number of peers this tracks. Thread-safe. */
    public int peers() {
        return peers;
    }

    /**
     * Something arrived from {@code peer} now. A peer id out of range is ignored and counted
     * ({@link #unknownPeers()}): a transport bug must not crash the IO thread.
     *
     * <p>Thread-safe, non-blocking, wait-free.
     */
    @Override
    public void heard(int peer) {
        if (peer < 0 || peer >= peers) {
            unknownPeers.increment();
            return;
        }
        stamps.lazySet(peer * STRIDE, clock.nanoTime());
    }

    /**
     * The clock reading when {@code peer} was last heard from; the creation time if never.
     *
     * <p>Thread-safe, non-blocking.
     *
     * @throws IndexOutOfBoundsException if {@code peer} is not {@code 0..peers-1}
     */
    public long lastHeard(int peer) {
        Objects.checkIndex(peer, peers);
        return stamps.getAcquire(peer * STRIDE);
    }

    /** Stamps refused because the peer id was out of range. Thread-safe. */
    public long unknownPeers() {
        return unknownPeers.sum();
    }

}
