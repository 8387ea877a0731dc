package dev.parallax.core.net;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.wire.NetMetrics;
import io.micrometer.core.instrument.Counter;

import dev.parallax.core.config.Member;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * One named channel of a {@link ReplicaPort}: a {@link Transport} over the port's connections. It
 * owns one bounded send queue per peer (drained by that peer's {@link PeerSender}; opened by the
 * port, under its {@link PeerTable}'s monitor, for every replica that is or was a member), its handler
 * and its closed flag, and its two meters ({@code parallax.net.channel.dropped},
 * {@code parallax.net.bytes.sent}).
 *
 * <p>{@link #send} from any thread, never blocking: a message to this replica goes straight to the
 * handler on the caller's thread, one to a peer into its queue (refused when full).
 * A message to a member that was removed ({@link #removeMember}) is refused and counted like a full
 * queue's. {@link #addMember} and {@link #removeMember} act on the whole port, every channel.
 * {@link #start} runs under the port's monitor and starts the port if it is not yet running.
 *
 * @param <M> the messages the channel carries
 */
final class PortChannel<M> implements Transport<M> {
    final int number;
    final String name;
    final MessageCodec<M> codec;
    /** Send queue per replica id that is or was a member; {@code null} at this replica's own id and at others. */
    private final AtomicReferenceArray<BoundedQueue<M>> queues = new AtomicReferenceArray<>(Member.MAX_ID + 1);
    final Counter dropped;
    /** Bytes of this channel's frames written to peers, framing included ({@code parallax.net.bytes.sent{channel}}). */
    final Counter bytesSent;
    private final ReplicaConfig config;
    private final NetMetrics metrics;
    /** The port: its monitor, under which the channel starts, and its membership. */
    private final ReplicaPort port;
    private final PeerTable peers;
    /** Called under the port's monitor when the channel starts: registers the stamps, starts the port. */
    private final Consumer<ArrivalStamps> onStart;
    private volatile MessageHandler<M> handler;
    private volatile boolean closed;

    PortChannel(int number, String name, MessageCodec<M> codec, ReplicaConfig config, PortMeters meters,
                ReplicaPort port, PeerTable peers, Consumer<ArrivalStamps> onStart) {
        this.number = number;
        this.name = name;
        this.codec = codec;
        this.config = config;
        this.metrics = meters.net();
        this.port = port;
        this.peers = peers;
        this.onStart = onStart;
        this.dropped = meters.channelDropped(name);
        this.bytesSent = meters.channelBytesSent(name);
    }

    /** Opens the send queue to {@code peer} unless open; under the port's {@link PeerTable} monitor. */
    void openQueue(int peer) {
        if (queues.get(peer) == null) {
            queues.set(peer, Queues.mpsc(config.sendQueueCapacity()));
        }
    }

    /** The send queue to {@code peer}, opened before that peer's sender was made. */
    BoundedQueue<M> queue(int peer) {
        return queues.get(peer);
    }

    /** The started handler, or {@code null} before {@link #start} and after {@link #close}. */
    MessageHandler<M> handler() {
        return handler;
    }

    /** The port closed: later sends are refused. */
    void portClosed() {
        closed = true;
    }

    @Override
    public int localId() {
        return config.id();
    }

    @Override
    public void start(MessageHandler<M> messageHandler) {
        start(messageHandler, ArrivalStamps.NONE);
    }

    /** Starts, stamping {@code arrivals} on every frame a peer's connection delivers (any channel, hello included). */
    @Override
    public void start(MessageHandler<M> messageHandler, ArrivalStamps arrivals) {
        Objects.requireNonNull(messageHandler);
        synchronized (port) {
            if (handler != null || closed) {
                throw new IllegalStateException("channel '" + name + "' already started or closed");
            }
            handler = messageHandler;
            onStart.accept(arrivals);
        }
    }

    @Override
    public boolean send(int to, M message) {
        if (to < 0 || to > Member.MAX_ID) {
            throw new IllegalArgumentException("no member " + to + ": ids are 0.." + Member.MAX_ID);
        }
        if (closed) {
            return false;
        }
        if (to == config.id()) {
            MessageHandler<M> h = handler;
            if (h == null) {
                return false;
            }
            h.onMessage(to, message);
            return true;
        }
        if (!peers.live(to)) {
            if (!peers.known(to)) {
                throw new IllegalArgumentException("no member " + to + ": not in the cluster file, never added");
            }
            dropped.increment(); // removed
            metrics.dropped();
            return false;
        }
        if (!queues.get(to).offer(message)) {
            dropped.increment();
            metrics.dropped();
            return false;
        }
        return true;
    }

    /** Adds {@code id} to the port: every channel sends to it ({@link ReplicaPort#addMember}). */
    @Override
    public void addMember(int id, String host, int port) {
        this.port.addMember(id, host, port);
    }

    /** Removes {@code id} from the port, for every channel ({@link ReplicaPort#removeMember}). */
    @Override
    public void removeMember(int id) {
        port.removeMember(id);
    }

    /** Stops this channel: later sends are refused and frames for it are dropped. The port goes on. */
    @Override
    public void close() {
        closed = true;
        handler = null;
    }
}
