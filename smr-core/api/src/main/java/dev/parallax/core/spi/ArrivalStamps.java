package dev.parallax.core.spi;

/**
 * Where a {@link Transport} records that something arrived from a peer, before the message meets
 * any queue: the failure detector reads these stamps, so a replica whose protocol thread is busy
 * (or whose bounded inbox is full and drops the message) still sees a live peer as live.
 *
 * <p>Threads: {@link #heard} is called by the transport's IO threads, several at once, and must be
 * wait-free and never block (the runtime's implementation is one ordered store per call). A peer id
 * out of range must be ignored, never thrown at the IO thread.
 */
@FunctionalInterface
public interface ArrivalStamps {

    /** Stamps that ignore everything, for transports started without failure detection. */
    ArrivalStamps NONE = peer -> { };

    /** Something arrived from {@code peer} now. */
    void heard(int peer);
}
