package dev.parallax.core.net;

import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Objects;

/**
 * A {@link ReplicaPort} with a single channel, as one {@link Transport}: for a process that runs
 * one protocol instance and owns its port (tests, tools). Replicas share one port between their
 * protocols instead ({@code OrderingContext.transport(channel, codec)}).
 *
 * <p>Threads: as {@link ReplicaPort}; closing the transport closes the port and its threads.
 */
public final class NettyReplicaTransport<M> implements Transport<M> {
    /** The channel name this transport uses. */
    public static final String CHANNEL = "main";
    /** Frame type of the hello frame (control channel). */
    public static final int HELLO = ReplicaPort.HELLO;

    private final StageThreads threads;
    private final ReplicaPort port;
    private final Transport<M> channel;

    public NettyReplicaTransport(ReplicaConfig config, MessageCodec<M> codec, MeterRegistry registry,
                                 WaitStrategy.Factory waitStrategy, Clock clock) {
        Objects.requireNonNull(codec);
        this.threads = StageThreads.builder(dev.parallax.core.stage.ThreadPlacement.STAGED).waitStrategy(waitStrategy).clock(clock).meterRegistry(registry).build();
        this.port = new ReplicaPort(config, registry, threads, clock);
        this.channel = port.channel(CHANNEL, codec);
    }

    @Override
    public int localId() {
        return channel.localId();
    }

    /** Network meters of this transport. */
    public NetMetrics metrics() {
        return port.metrics();
    }

    @Override
    public void start(MessageHandler<M> handler) {
        channel.start(handler);
    }

    @Override
    public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
        channel.start(handler, stamps);
    }

    @Override
    public boolean send(int to, M message) {
        return channel.send(to, message);
    }

    @Override
    public void addMember(int id, String host, int port) {
        channel.addMember(id, host, port);
    }

    @Override
    public void removeMember(int id) {
        channel.removeMember(id);
    }

    @Override
    public void close() {
        port.close();
        threads.close();
    }
}
