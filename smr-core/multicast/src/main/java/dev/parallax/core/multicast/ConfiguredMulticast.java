package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A protocol's {@link AtomicMulticast} that is one configuration of {@link StreamMulticast}: the
 * reference multicast over Multi-Paxos ({@code PaxosMulticast}) and Multi-Ring Paxos
 * ({@code RingMulticast}) differ only in their streams and strategies, chosen by their builders;
 * everything {@link AtomicMulticast} asks for is the generic multicast's.
 *
 * <p>Threads and blocking: those of {@link StreamMulticast} — every method from any thread,
 * {@link #multicast} and {@link #subscribe} never block, {@link #close} waits for the threads.
 */
public abstract class ConfiguredMulticast implements AtomicMulticast {
    /** The multicast this protocol configured and started. */
    protected final StreamMulticast multicast;

    /** @param multicast the built (started) generic multicast this protocol owns */
    protected ConfiguredMulticast(StreamMulticast multicast) {
        this.multicast = Objects.requireNonNull(multicast, "multicast");
    }

    @Override
    public final GroupSet groups() {
        return multicast.groups();
    }

    @Override
    public final Subscription subscribe(GroupSet groups, MulticastPosition from, MulticastListener listener) {
        return multicast.subscribe(groups, from, listener);
    }

    @Override
    public final boolean multicast(GroupSet groups, ByteBuffer message) {
        return multicast.multicast(groups, message);
    }

    /** The subscription opened before the streams started ({@code initialSubscription} of the builder), or null. */
    public final Subscription initialSubscription() {
        return multicast.initialSubscription();
    }

    /** Every subscription opened before the streams started, in the order asked for (empty if none). */
    public final java.util.List<Subscription> initialSubscriptions() {
        return multicast.initialSubscriptions();
    }

    /** By stream id, each stream's own delivery state ({@link StreamMulticast#streamStates()}). Any thread. */
    public final java.util.Map<Integer, byte[]> streamStates() {
        return multicast.streamStates();
    }

    /** A snapshot's stream states, for each stream's next install ({@link StreamMulticast#streamStatesToInstall}). */
    public final void streamStatesToInstall(java.util.Map<Integer, byte[]> states) {
        multicast.streamStatesToInstall(states);
    }

    /** Stream {@code stream}'s read-index, if run here and served ({@link StreamMulticast#streamReads}). Any thread. */
    public final java.util.Optional<dev.parallax.core.spi.ReadIndex> streamReads(int stream) {
        return multicast.streamReads(stream);
    }

    /** Whether every stream run here knows its leader ({@link StreamMulticast#leadersKnown()}). Any thread. */
    public final boolean leadersKnown() {
        return multicast.leadersKnown();
    }

    @Override
    public final void close() {
        multicast.close();
    }
}
