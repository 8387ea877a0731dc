package dev.parallax.core.testkit.cluster;

import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Keeps, per replica, the inbound handler an ordering protocol installs on its peer channels or on
 * its datagram group, so that a test can hand a replica a message as if a peer had sent it (a
 * forged or conflicting message of a hostile network) without building its wire bytes.
 * {@link #around} wraps the protocol; everything else of the context passes through unchanged.
 *
 * <p><b>Threads.</b> Thread-safe: the handlers are set on the replicas' start-up threads and read by
 * the test's; {@link #handler} does not block. The handler it returns must be called as the
 * transport would (any one thread at a time per replica).
 *
 * @param <M> the protocol's message type
 */
public final class InboundTap<M> {
    /** Which of a replica's inbound paths the tap keeps. */
    public enum Path {
        /** The point-to-point peer channels ({@link OrderingContext#transport}). */
        PEER_CHANNELS,
        /** The datagram group ({@link OrderingContext#datagramGroup}). */
        DATAGRAM_GROUP
    }

    private final Path path;
    private final AtomicReferenceArray<MessageHandler<M>> handlers;

    /** A tap on {@code path} for replicas 0 to {@code replicas} − 1. */
    public InboundTap(Path path, int replicas) {
        this.path = Objects.requireNonNull(path);
        this.handlers = new AtomicReferenceArray<>(replicas);
    }

    /** {@code inner}, whose replicas' inbound handlers on this tap's path this tap keeps. */
    public OrderingProtocol around(OrderingProtocol inner) {
        return ForwardingOrderingContext.around(inner, TappedContext::new);
    }

    /**
     * Replica {@code replica}'s inbound handler on this tap's path.
     *
     * @throws IllegalStateException if that replica has not started the path yet
     */
    public MessageHandler<M> handler(int replica) {
        MessageHandler<M> h = handlers.get(replica);
        if (h == null) {
            throw new IllegalStateException("replica " + replica + " has not started its " + path + " yet");
        }
        return h;
    }

    @SuppressWarnings("unchecked")
    private <T> Transport<T> tapped(int replica, Transport<T> t) {
        return new Transport<>() {
            @Override
            public int localId() {
                return t.localId();
            }

            @Override
            public void start(MessageHandler<T> handler) {
                handlers.set(replica, (MessageHandler<M>) handler);
                t.start(handler);
            }

            @Override
            public void start(MessageHandler<T> handler, ArrivalStamps stamps) {
                handlers.set(replica, (MessageHandler<M>) handler);
                t.start(handler, stamps);
            }

            @Override
            public boolean send(int to, T message) {
                return t.send(to, message);
            }

            @Override
            public boolean sendDatagram(int group, T message) {
                return t.sendDatagram(group, message);
            }

            @Override
            public void close() {
                t.close();
            }
        };
    }

    /** The replica's context with the tapped path wrapped. */
    private final class TappedContext extends ForwardingOrderingContext {
        TappedContext(OrderingContext ctx) {
            super(ctx);
        }

        @Override
        public <T> Transport<T> transport(String channel, MessageCodec<T> codec) {
            Transport<T> t = ctx.transport(channel, codec);
            return path == Path.PEER_CHANNELS ? tapped(ctx.config().id(), t) : t;
        }

        @Override
        public <T> Transport<T> datagramGroup(String channel, MessageCodec<T> codec, DatagramGroupConfig group) {
            Transport<T> t = ctx.datagramGroup(channel, codec, group);
            return path == Path.DATAGRAM_GROUP ? tapped(ctx.config().id(), t) : t;
        }
    }
}
