package dev.parallax.core.net;

import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.ForwardingTransport;
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
public final class NettyReplicaTransport<M> extends ForwardingTransport<M> {
    /** The channel name this transport uses. */
    public static final String CHANNEL = "main";
    /** Frame type of the hello frame (control channel). */
    public static final int HELLO = ReplicaPort.HELLO;

    private final StageThreads threads;
    private final ReplicaPort port;

    public NettyReplicaTransport(ReplicaConfig config, MessageCodec<M> codec, MeterRegistry registry,
                                 WaitStrategy.Factory waitStrategy, Clock clock) {
        this(StageThreads.builder(dev.parallax.core.stage.ThreadPlacement.STAGED).waitStrategy(waitStrategy).clock(clock)
                .meterRegistry(registry).build(), config, Objects.requireNonNull(codec), registry, clock);
    }

    private NettyReplicaTransport(StageThreads threads, ReplicaConfig config, MessageCodec<M> codec, MeterRegistry registry,
                                  Clock clock) {
        this(threads, new ReplicaPort(config, registry, threads, clock), codec);
    }

    private NettyReplicaTransport(StageThreads threads, ReplicaPort port, MessageCodec<M> codec) {
        super(port.channel(CHANNEL, codec));
        this.threads = threads;
        this.port = port;
    }

    /** Network meters of this transport. */
    public NetMetrics metrics() {
        return port.metrics();
    }

    @Override
    public void close() {
        port.close();
        threads.close();
    }
}
