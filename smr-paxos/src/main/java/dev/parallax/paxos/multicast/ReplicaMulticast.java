package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastForwardCodec;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.paxos.PaxosBroadcast;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessageCodec;

/**
 * Builds the reference {@link PaxosMulticast} inside a replica process: every stream's Multi-Paxos
 * instance on a named channel of the replica port ({@code mcast-<stream>}) with a named log of its
 * own ({@code mcast-<stream>}), and forwards on the channel {@code mcast-forward} — several
 * protocol cores in one process over one port, as Multi-Ring Paxos will run one ring per group.
 *
 * <p>Used on the thread that builds the replica's ordering; the multicast follows its own contract.
 */
public final class ReplicaMulticast {
    /** The channel forwards travel on. */
    public static final String FORWARD_CHANNEL = "mcast-forward";

    private ReplicaMulticast() {
    }

    /** The channel and log name of {@code stream}. */
    public static String streamName(int stream) {
        return "mcast-" + stream;
    }

    /**
     * A not-yet-subscribed reference multicast over {@code groups} (plus the global stream) for the
     * replica described by {@code context}, every stream ordered by Multi-Paxos with {@code paxos}.
     */
    public static PaxosMulticast create(OrderingContext context, GroupSet groups, PaxosConfig paxos) {
        int self = context.config().id();
        return PaxosMulticast.builder().self(self).members(context.config().members().size()).groups(groups)
                .clock(context.clock()).meterRegistry(context.meterRegistry())
                .forwardTransport(context.transport(FORWARD_CHANNEL, new MulticastForwardCodec()))
                .streams(stream -> PaxosBroadcast.builder().config(paxos).self(self)
                        .transport(context.transport(streamName(stream), new PaxosMessageCodec()))
                        .log(context.durableLog(streamName(stream))).clock(context.clock())
                        .options(RuntimeOptions.builder().name(streamName(stream)).threads(context.stageThreads())
                                .meterRegistry(context.meterRegistry()).snapshotRequester(context.snapshotRequester())
                                .build())
                        .build())
                .build();
    }
}
