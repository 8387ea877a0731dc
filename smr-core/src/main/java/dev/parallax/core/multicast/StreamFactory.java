package dev.parallax.core.multicast;

import dev.parallax.core.spi.AtomicBroadcast;

/**
 * Builds the ordering instance of one stream for {@link StreamMulticast}: a not yet started
 * {@link AtomicBroadcast} (a Multi-Paxos or a Ring Paxos broadcast over its own transport and log)
 * in which this process is member {@code self} of the same members as every other stream. Called
 * once per stream, from the thread building the multicast.
 */
@FunctionalInterface
public interface StreamFactory {
    /**
     * @param stream the stream id: a group id, or {@link dev.parallax.core.spi.MulticastPosition#GLOBAL_STREAM}
     * @return a broadcast the multicast owns (starts and closes)
     */
    AtomicBroadcast create(int stream);
}
