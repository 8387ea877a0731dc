package dev.parallax.core.testkit.cluster;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.protocol.SafetyAlarm;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * An {@link OrderingContext} that hands every call to another one: a test overrides the one or two
 * methods it intercepts (a transport it taps, a log on a faulty disk) and {@link #around} puts the
 * result under a protocol, so every other part of the replica's context passes through unchanged,
 * the safety alarm hook and the datagram groups included.
 *
 * <p><b>Threads.</b> As the context it forwards to: the replica's start-up thread creates the
 * protocol through it. Never blocks beyond what the forwarded call does.
 */
public class ForwardingOrderingContext implements OrderingContext {
    /** The context every call goes to unless overridden. */
    protected final OrderingContext ctx;

    /** Forwards to {@code ctx}. */
    public ForwardingOrderingContext(OrderingContext ctx) {
        this.ctx = Objects.requireNonNull(ctx);
    }

    /** {@code inner}, created through the context {@code wrap} makes of the replica's own. */
    public static OrderingProtocol around(OrderingProtocol inner, UnaryOperator<OrderingContext> wrap) {
        return new OrderingProtocol() {
            @Override
            public String name() {
                return inner.name();
            }

            @Override
            public int batchBytes() {
                return inner.batchBytes();
            }

            @Override
            public long batchTimeoutNanos() {
                return inner.batchTimeoutNanos();
            }

            @Override
            public AtomicBroadcast create(OrderingContext context) {
                return inner.create(wrap.apply(context));
            }
        };
    }

    @Override
    public ReplicaConfig config() {
        return ctx.config();
    }

    @Override
    public <M> Transport<M> transport(String channel, MessageCodec<M> codec) {
        return ctx.transport(channel, codec);
    }

    @Override
    public <M> Transport<M> datagramGroup(String channel, MessageCodec<M> codec, DatagramGroupConfig group) {
        return ctx.datagramGroup(channel, codec, group);
    }

    @Override
    public DurableLog durableLog(String name) {
        return ctx.durableLog(name);
    }

    @Override
    public Clock clock() {
        return ctx.clock();
    }

    @Override
    public MeterRegistry meterRegistry() {
        return ctx.meterRegistry();
    }

    @Override
    public SnapshotRequester snapshotRequester() {
        return ctx.snapshotRequester();
    }

    @Override
    public StageThreads stageThreads() {
        return ctx.stageThreads();
    }

    @Override
    public SafetyAlarm safetyAlarm() {
        return ctx.safetyAlarm();
    }
}
