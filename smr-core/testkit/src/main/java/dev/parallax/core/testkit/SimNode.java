package dev.parallax.core.testkit;

/**
 * A process inside a {@link Simulation}: a replica (usually an adapter around a protocol core) or
 * a simulated client. It talks to the world only through its {@link NodeContext}.
 *
 * <p>Called on the simulator's single thread, one event at a time.
 *
 * @param <M> the message type of the simulated network; messages must be immutable, because the
 *            network delivers the same instance (twice, when it duplicates)
 */
public interface SimNode<M> {

    /** The node (re)started; its context's durable log holds what survived a crash. */
    default void onStart() {
    }

    /** A message arrived. */
    void onMessage(int from, M message);

    /**
     * A datagram sent to datagram group {@code group}, which this node joined, arrived (see
     * {@link NodeContext#sendDatagram}). It may arrive twice, late or out of order, or not at all.
     * Default: handled as {@link #onMessage}.
     */
    default void onDatagram(int from, int group, M message) {
        onMessage(from, message);
    }

    /** A periodic tick; the time is {@link NodeContext#now()}. */
    void onTick();
}
