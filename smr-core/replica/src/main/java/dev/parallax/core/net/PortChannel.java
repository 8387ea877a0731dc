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

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One named channel of a {@link ReplicaPort}: a {@link Transport} over the port's connections. It
 * owns one bounded send queue per peer (drained by that peer's {@link PeerSender}), its handler
 * and its closed flag, and its two meters ({@code parallax.net.channel.dropped},
 * {@code parallax.net.bytes.sent}).
 *
 * <p>{@link #send} from any thread, never blocking: a message to this replica goes straight to the
 * handler on the caller's thread, one to a peer into its queue (refused when full).
 * {@link #start} runs under the port's monitor and starts the port if it is not yet running.
 *
 * @param <M> the messages the channel carries
 */
final class PortChannel<M> implements Transport<M> {
    final int number;
    final String name;
    final MessageCodec<M> codec;
    /** Send queue per member id; {@code null} at this replica's own id. */
    final List<BoundedQueue<M>> queues = new ArrayList<>();
    final Counter dropped;
    /** Bytes of this channel's frames written to peers, framing included ({@code parallax.net.bytes.sent{channel}}). */
    final Counter bytesSent;
    private final ReplicaConfig config;
    private final NetMetrics metrics;
    /** The port's monitor, under which the channel starts. */
    private final Object portLock;
    /** Called under {@link #portLock} when the channel starts: registers the stamps, starts the port. */
    private final Consumer<ArrivalStamps> onStart;
    private volatile MessageHandler<M> handler;
    private volatile boolean closed;

    PortChannel(int number, String name, MessageCodec<M> codec, ReplicaConfig config, PortMeters meters,
                Object portLock, Consumer<ArrivalStamps> onStart) {
        this.number = number;
        this.name = name;
        this.codec = codec;
        this.config = config;
        this.metrics = meters.net();
        this.portLock = portLock;
        this.onStart = onStart;
        for (int p = 0; p < config.members().size(); p++) {
            queues.add(p == config.id() ? null : Queues.mpsc(config.sendQueueCapacity()));
        }
        this.dropped = meters.channelDropped(name);
        this.bytesSent = meters.channelBytesSent(name);
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
        synchronized (portLock) {
            if (handler != null || closed) {
                throw new IllegalStateException("channel '" + name + "' already started or closed");
            }
            handler = messageHandler;
            onStart.accept(arrivals);
        }
    }

    @Override
    public boolean send(int to, M message) {
        if (to < 0 || to >= config.members().size()) {
            throw new IllegalArgumentException("no member " + to);
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
        if (!queues.get(to).offer(message)) {
            dropped.increment();
            metrics.dropped();
            return false;
        }
        return true;
    }

    /** Stops this channel: later sends are refused and frames for it are dropped. The port goes on. */
    @Override
    public void close() {
        closed = true;
        handler = null;
    }
}
