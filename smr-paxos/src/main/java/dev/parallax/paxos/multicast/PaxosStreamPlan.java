package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.Numbering;
import dev.parallax.core.multicast.Routing;
import dev.parallax.core.multicast.SkipPolicy;
import dev.parallax.core.multicast.StreamPlan;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.Transport;
import dev.parallax.paxos.PaxosBroadcast;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosMessageCodec;

import java.util.Objects;

/**
 * The reference multicast's {@link StreamPlan} (one Multi-Paxos instance per group and a global one,
 * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1): group g is ordered in stream g, every
 * replica runs every stream, each a {@link PaxosBroadcast} configured by {@code paxos}; messages go
 * to a stream's leader ({@link Routing#LEADER}), whose leader keeps it level by deciding skips on
 * demand ({@link SkipPolicy#DEMAND}), and positions name instances ({@link Numbering#INSTANCE}).
 * Stream i runs on the replica-port channel and log {@code mcast-<i>} (the global stream on
 * {@code mcast-64}), forwards travel on {@value #FORWARD_CHANNEL}.
 *
 * <p>Immutable and thread-safe; nothing blocks.
 *
 * @param paxos  every stream's Multi-Paxos settings
 * @param groups the groups offered
 */
public record PaxosStreamPlan(PaxosConfig paxos, GroupSet groups) implements StreamPlan<PaxosMessage> {
    /** The channel forwards travel on. */
    public static final String FORWARD_CHANNEL = "mcast-forward";

    /** @throws NullPointerException if an argument is null */
    public PaxosStreamPlan {
        Objects.requireNonNull(paxos, "paxos");
        Objects.requireNonNull(groups, "groups");
    }

    @Override
    public String name() {
        return MulticastOrdering.NAME;
    }

    @Override
    public int batchBytes() {
        return paxos.batchBytes();
    }

    @Override
    public long batchTimeoutNanos() {
        return paxos.batchTimeoutNanos();
    }

    @Override
    public int processes() {
        return paxos.members();
    }

    @Override
    public int streamOf(int group) {
        return group;
    }

    @Override
    public Routing routing() {
        return Routing.LEADER;
    }

    @Override
    public SkipPolicy skips() {
        return SkipPolicy.DEMAND;
    }

    @Override
    public Numbering numbering() {
        return Numbering.INSTANCE;
    }

    /** {@code mcast-<stream>}. */
    @Override
    public String streamName(int stream) {
        return "mcast-" + stream;
    }

    @Override
    public String forwardChannel() {
        return FORWARD_CHANNEL;
    }

    @Override
    public Transport<PaxosMessage> openTransport(OrderingContext context, int stream) {
        return context.transport(streamName(stream), new PaxosMessageCodec());
    }

    /** The replica's registry, default queue capacities. */
    @Override
    public RuntimeOptions.Builder runtimeOptions(OrderingContext context) {
        return RuntimeOptions.builder().meterRegistry(context.meterRegistry());
    }

    @Override
    public AtomicBroadcast broadcast(StreamParts<PaxosMessage> parts) {
        return PaxosBroadcast.builder().config(paxos).self(parts.self()).transport(parts.transport()).log(parts.log())
                .clock(parts.clock()).options(parts.options()).build();
    }

    @Override
    public String toString() {
        return MulticastOrdering.NAME + " over " + Long.bitCount(groups.bits()) + " groups, " + paxos;
    }
}
