package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastBroadcast;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.multicast.MulticastForwardCodec;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.paxos.PaxosBroadcast;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosMessageCodec;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The reference atomic multicast ({@link PaxosMulticast}: one Multi-Paxos instance per group and a
 * global one, merged deterministically, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 Alg. 1) as a
 * replica's ordering protocol, named {@value #NAME}: a {@link MulticastBroadcast} over k groups
 * ({@code multicast.groups}), every stream configured by the cluster's {@code paxos.*} settings.
 * It is the correctness baseline the multicast's users (P-SMR per worker, seed 003 ch. 6) also run
 * on, next to Multi-Ring Paxos; each stream has a leader, and a message reaches it over the
 * forward channel ({@link ReplicaMulticast}).
 *
 * <p>Stream i runs on the replica-port channel and log {@code mcast-<i>}, the global stream on
 * {@code mcast-64}, forwards on {@code mcast-forward}. A stream that needs a snapshot (its peers
 * compacted what it lacks) asks the replica for any snapshot newer than what it delivered.
 *
 * <p>Immutable and thread-safe; {@link #create} builds a new, unstarted broadcast on each call.
 */
public final class MulticastOrdering implements OrderingProtocol {
    /** The protocol name (cluster files: {@code ordering=multicast}). */
    public static final String NAME = "multicast";
    /** The most groups: one Multi-Paxos instance each, all in one replica process. */
    public static final int MAX_GROUPS = 16;

    private final PaxosConfig paxos;
    private final int groups;

    private MulticastOrdering(PaxosConfig paxos, int groups) {
        this.paxos = Objects.requireNonNull(paxos, "paxos");
        if (groups < 1 || groups > MAX_GROUPS) {
            throw new IllegalArgumentException("multicast.groups must be 1.." + MAX_GROUPS + ", got " + groups);
        }
        this.groups = groups;
    }

    /**
     * The reference multicast over {@code groups} groups (0..groups-1), every stream ordered by
     * Multi-Paxos with {@code paxos}.
     *
     * @throws IllegalArgumentException if {@code groups} is not in 1..{@value #MAX_GROUPS}
     */
    public static MulticastOrdering protocol(PaxosConfig paxos, int groups) {
        return new MulticastOrdering(paxos, groups);
    }

    /** k, the groups. */
    public int groups() {
        return groups;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int batchBytes() {
        return paxos.batchBytes();
    }

    @Override
    public long batchTimeoutNanos() {
        return paxos.batchTimeoutNanos();
    }

    /**
     * Opens every stream's channel and log and the forward channel (while the context is valid) and
     * returns the broadcast, which builds the streams when started.
     *
     * @throws IllegalArgumentException if the member counts differ
     */
    @Override
    public AtomicBroadcast create(OrderingContext context) {
        int n = context.config().members().size();
        if (n != paxos.members()) {
            throw new IllegalArgumentException(NAME + " configured for " + paxos.members() + " members, cluster has " + n);
        }
        int self = context.config().id();
        GroupSet offered = GroupSet.partition(groups);
        Map<Integer, Transport<PaxosMessage>> transports = new HashMap<>();
        Map<Integer, DurableLog> logs = new HashMap<>();
        for (int g = 0; g < groups; g++) {
            open(context, g, transports, logs);
        }
        if (groups > 1) {
            open(context, MulticastPosition.GLOBAL_STREAM, transports, logs);
        }
        Transport<MulticastForward> forward = context.transport(ReplicaMulticast.FORWARD_CHANNEL, new MulticastForwardCodec());
        StageThreads threads = MulticastBroadcast.streamThreads(context);
        MulticastBroadcast[] broadcast = new MulticastBroadcast[1];
        SnapshotRequester replicaRequester = context.snapshotRequester();
        SnapshotRequester requester = (peer, instance) -> replicaRequester.request(peer, broadcast[0].nextSequence() + 1);
        MulticastBroadcast.MulticastFactory factory = subscriptions -> {
            PaxosMulticast.Builder b = PaxosMulticast.builder().self(self).members(n).groups(offered)
                    .clock(context.clock()).meterRegistry(context.meterRegistry()).forwardTransport(forward)
                    .streams(stream -> PaxosBroadcast.builder().config(paxos).self(self)
                            .transport(transports.get(stream)).log(logs.get(stream)).clock(context.clock())
                            .options(RuntimeOptions.builder().name(ReplicaMulticast.streamName(stream)).threads(threads)
                                    .meterRegistry(context.meterRegistry()).snapshotRequester(requester).build())
                            .build());
            for (MulticastBroadcast.InitialSubscription s : subscriptions) {
                b.initialSubscription(s.groups(), s.from(), s.listener());
            }
            return b.build();
        };
        broadcast[0] = new MulticastBroadcast(self, offered, groups, g -> g, factory, () -> {
            forward.close();
            transports.values().forEach(Transport::close);
            logs.values().forEach(DurableLog::close);
        });
        if (threads != context.stageThreads()) {
            broadcast[0].closeAfter(threads);
        }
        return broadcast[0];
    }

    private static void open(OrderingContext context, int stream, Map<Integer, Transport<PaxosMessage>> transports,
                             Map<Integer, DurableLog> logs) {
        String name = ReplicaMulticast.streamName(stream);
        transports.put(stream, context.transport(name, new PaxosMessageCodec()));
        logs.put(stream, context.durableLog(name));
    }

    @Override
    public String toString() {
        return NAME + " over " + groups + " groups, " + paxos;
    }
}
