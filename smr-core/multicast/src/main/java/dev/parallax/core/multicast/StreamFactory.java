package dev.parallax.core.multicast;

import dev.parallax.core.spi.AtomicBroadcast;

/**
 * Builds the ordering instance of one stream for {@link StreamMulticast}: a not yet started
 * {@link AtomicBroadcast} (a Multi-Paxos or a Ring Paxos broadcast over its own transport and log)
 * of which this process is a member (its member id and the stream's members are the caller's
 * business: the stream's process set is {@code StreamMulticastBuilder#streamMembers}). Called
 * once per stream this process runs, from the thread building the multicast; never for a stream it
 * does not run.
 */
@FunctionalInterface
public interface StreamFactory {
    /**
     * @param stream the stream id: a group id, or {@link dev.parallax.core.spi.MulticastPosition#GLOBAL_STREAM}
     * @return a broadcast the multicast owns (starts and closes)
     */
    AtomicBroadcast create(int stream);
}
