package dev.parallax.core.runtime;

import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Joins several typed channels into the one {@link Transport} a {@link ProtocolRuntime} runs on,
 * so that a core composed of sub-cores with messages of their own (S-Paxos: dissemination and
 * ordering, seed 002 (S-Paxos) §IV; Multi-Ring Paxos: ring and skip channels) runs on one protocol
 * thread while each channel keeps its own codec, bounded send queues and {@code channel=} metrics.
 *
 * <p>A message is sent (or sent as a datagram) on the first route whose type it is an instance of; route types may not
 * overlap (neither may be a subtype of another), so the route is unambiguous. Everything received
 * on any route goes to the one handler, stamped on the same {@link ArrivalStamps}. A channel whose
 * message type cannot be one of the union's (it lives in a package of its own) joins through a
 * wrapper type ({@link Route#wrapping}), which its route unwraps before the channel's codec sees it.
 *
 * <p>Threads: the union is as thread-safe as its routes: {@code send} from any thread, never
 * blocking; {@code sendDatagram} likewise, throwing {@link UnsupportedOperationException} when the
 * message's route has no datagram groups; {@code start} and {@code close} by the owner.
 */
public final class Channels {

    private Channels() {
    }

    /**
     * One channel of a union: the messages of {@code type} travel on {@code transport}.
     *
     * @param <M> the channel's message type
     */
    public record Route<M>(Class<M> type, Transport<M> transport) {
        public Route {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(transport, "transport");
        }

        /** The route for messages of {@code type} over {@code transport}. */
        public static <M> Route<M> of(Class<M> type, Transport<M> transport) {
            return new Route<>(type, transport);
        }

        /**
         * The route for messages of {@code type} that wrap a channel's messages of another type
         * (a type the union's sealed interface cannot permit, such as a protocol's message type
         * from a package of its own): {@code send} and {@code sendDatagram} hand
         * {@code unwrap(message)} to {@code transport}, whose codec encodes it as it would on its
         * own, so the wrapper never reaches the wire; what {@code transport} receives reaches the
         * handler as {@code wrap(received)}, stamped by {@code transport} as it stamps its own
         * messages. {@code unwrap} runs on the sending thread, {@code wrap} on the transport's
         * receiving thread: both must be pure and must not return null. The wrapper type should be
         * a {@link dev.parallax.core.protocol.MessageWrapper}, so the runtime's per-type meters
         * count the wrapped message's type.
         *
         * @param <M> the route's (wrapper) message type
         * @param <W> the channel's message type
         */
        public static <M, W> Route<M> wrapping(Class<M> type, Transport<W> transport,
                                               Function<? super M, ? extends W> unwrap,
                                               Function<? super W, ? extends M> wrap) {
            return new Route<>(type, new Wrapping<>(transport, unwrap, wrap));
        }

        boolean carries(Object message) {
            return type.isInstance(message);
        }

        boolean send(int to, Object message) {
            return transport.send(to, type.cast(message));
        }

        boolean sendDatagram(int group, Object message) {
            return transport.sendDatagram(group, type.cast(message));
        }

        <U> void start(MessageHandler<U> handler, ArrivalStamps stamps, Class<U> union) {
            transport.start((from, m) -> handler.onMessage(from, union.cast(m)), stamps);
        }
    }

    /**
     * A transport of {@code union} messages over every route: {@code send} routes by type,
     * {@code start} starts every route with the same handler and stamps, {@code close} closes them
     * all. {@code union} is the channels' common message type (a sealed interface their types
     * implement), so neither the protocol nor its caller casts.
     *
     * @throws IllegalArgumentException if there is no route, two route types overlap, a route's
     *                                  type is not a {@code union}, or the routes' transports are
     *                                  different members
     */
    @SafeVarargs
    public static <M> Transport<M> union(Class<M> union, Route<? extends M>... routes) {
        Objects.requireNonNull(union, "union");
        List<Route<?>> list = List.<Route<?>>of(routes);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("a union needs at least one route");
        }
        int localId = list.get(0).transport().localId();
        for (int i = 0; i < list.size(); i++) {
            Route<?> r = list.get(i);
            if (!union.isAssignableFrom(r.type())) {
                throw new IllegalArgumentException(r.type().getName() + " is not a " + union.getName());
            }
            if (r.transport().localId() != localId) {
                throw new IllegalArgumentException("routes belong to different members: " + localId + " and "
                        + r.transport().localId() + " (" + r.type().getName() + ")");
            }
            for (int j = 0; j < i; j++) {
                Class<?> other = list.get(j).type();
                if (other.isAssignableFrom(r.type()) || r.type().isAssignableFrom(other)) {
                    throw new IllegalArgumentException("route types overlap: " + other.getName() + " and "
                            + r.type().getName());
                }
            }
        }
        return new Union<>(union, localId, list);
    }

    /**
     * A channel's transport seen through a wrapper type ({@link Route#wrapping}); as thread-safe as
     * the transport it wraps, and owns it ({@code close} closes it).
     */
    private static final class Wrapping<M, W> implements Transport<M> {
        private final Transport<W> transport;
        private final Function<? super M, ? extends W> unwrap;
        private final Function<? super W, ? extends M> wrap;

        Wrapping(Transport<W> transport, Function<? super M, ? extends W> unwrap, Function<? super W, ? extends M> wrap) {
            this.transport = Objects.requireNonNull(transport, "transport");
            this.unwrap = Objects.requireNonNull(unwrap, "unwrap");
            this.wrap = Objects.requireNonNull(wrap, "wrap");
        }

        @Override
        public int localId() {
            return transport.localId();
        }

        @Override
        public void start(MessageHandler<M> handler) {
            Objects.requireNonNull(handler, "handler");
            transport.start((from, m) -> handler.onMessage(from, wrap.apply(m)));
        }

        @Override
        public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
            Objects.requireNonNull(handler, "handler");
            transport.start((from, m) -> handler.onMessage(from, wrap.apply(m)), stamps);
        }

        @Override
        public boolean send(int to, M message) {
            return transport.send(to, unwrap.apply(message));
        }

        @Override
        public boolean sendDatagram(int group, M message) {
            return transport.sendDatagram(group, unwrap.apply(message));
        }

        @Override
        public void addMember(int id, String host, int port) {
            transport.addMember(id, host, port);
        }

        @Override
        public void removeMember(int id) {
            transport.removeMember(id);
        }

        @Override
        public void close() {
            transport.close();
        }
    }

    private static final class Union<M> implements Transport<M> {
        private final Class<M> union;
        private final int localId;
        private final List<Route<?>> routes;
        private final AtomicBoolean started = new AtomicBoolean();

        Union(Class<M> union, int localId, List<Route<?>> routes) {
            this.union = union;
            this.localId = localId;
            this.routes = routes;
        }

        @Override
        public int localId() {
            return localId;
        }

        @Override
        public void start(MessageHandler<M> handler) {
            start(handler, ArrivalStamps.NONE);
        }

        @Override
        public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
            Objects.requireNonNull(handler, "handler");
            Objects.requireNonNull(stamps, "stamps");
            if (!started.compareAndSet(false, true)) {
                throw new IllegalStateException("already started");
            }
            for (Route<?> r : routes) {
                r.start(handler, stamps, union);
            }
        }

        @Override
        public boolean send(int to, M message) {
            for (Route<?> r : routes) {
                if (r.carries(message)) {
                    return r.send(to, message);
                }
            }
            throw new IllegalArgumentException("no route for a message of type "
                    + (message == null ? "null" : message.getClass().getName()));
        }

        @Override
        public boolean sendDatagram(int group, M message) {
            for (Route<?> r : routes) {
                if (r.carries(message)) {
                    return r.sendDatagram(group, message);
                }
            }
            throw new IllegalArgumentException("no route for a message of type "
                    + (message == null ? "null" : message.getClass().getName()));
        }

        /** Every route's transport learns the member (the routes may not share connections). */
        @Override
        public void addMember(int id, String host, int port) {
            for (Route<?> r : routes) {
                r.transport().addMember(id, host, port);
            }
        }

        @Override
        public void removeMember(int id) {
            for (Route<?> r : routes) {
                r.transport().removeMember(id);
            }
        }

        @Override
        public void close() {
            RuntimeException first = null;
            for (Route<?> r : routes) {
                try {
                    r.transport().close();
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }
}
