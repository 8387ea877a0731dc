package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastBroadcast;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.multicast.MulticastForwardCodec;
import dev.parallax.core.runtime.Channels;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.EpochClock;
import dev.parallax.core.time.SystemClock;
import dev.parallax.ringpaxos.MPacket;
import dev.parallax.ringpaxos.MPacketCodec;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingCodec;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.RingUnicast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5) as a replica's ordering
 * protocol, named {@value #NAME}: {@code Replica.builder().ordering(MultiRing.protocol(config))}.
 * A {@link MultiRingBroadcast} over a {@link RingMulticast} of k group rings and the global ring,
 * every replica a member of every ring, laid out by the configuration's {@link MultiRingTopology}
 * (per ring its kind and datagram address, the group → ring mapping). Ring i (0..k-1) runs on the
 * replica-port channel and log {@code ring-<i>}, the global ring on {@code ring-g}; an M-Ring ring
 * also joins the datagram group channel {@code ring-<i>-mcast} (or {@code ring-g-mcast}) at its
 * datagram address (by default the template's {@code mring.group}, port {@code mring.port} + i,
 * the global ring + k). The rings' coordinators
 * sit on different replicas (see {@link RingMulticast#ringMember}). Batches close at the template's
 * {@code ring.batch.bytes} / {@code ring.batch.timeout.ms}, one batch per lane.
 *
 * <p>A ring that needs a snapshot (its peers compacted what it lacks) asks the replica for any
 * snapshot newer than what it delivered; the snapshot's merge position then moves every ring.
 *
 * <p>Immutable and thread-safe; {@link #create} builds a new, unstarted broadcast on each call.
 */
public final class MultiRing implements OrderingProtocol {
    /** The replica-port channel on which a process forwards a message to a ring it does not run. */
    public static final String FORWARD_CHANNEL = "ring-forward";

    /** The protocol name (cluster files: {@code ordering=multi-ring}). */
    public static final String NAME = "multi-ring";
    private static final Logger LOG = LoggerFactory.getLogger(MultiRing.class);

    private final MultiRingConfig config;

    private MultiRing(MultiRingConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Multi-Ring Paxos with {@code config}. */
    public static MultiRing protocol(MultiRingConfig config) {
        return new MultiRing(config);
    }

    /** The configuration. */
    public MultiRingConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** BSZ from the ring template ({@code ring.batch.bytes}). */
    @Override
    public int batchBytes() {
        return config.template().batchBytes();
    }

    /** The batch time-out from the ring template ({@code ring.batch.timeout.ms}). */
    @Override
    public long batchTimeoutNanos() {
        return config.template().batchTimeoutNanos();
    }

    /** The channel and log name of ring number {@code index} (k: the global ring). */
    public static String ringName(int index, int rings) {
        return index == rings && rings > 1 ? "ring-g" : "ring-" + index;
    }

    /**
     * Opens every ring's channels and log (while the context is valid) and returns the broadcast,
     * which builds the rings when started.
     *
     * @throws IllegalArgumentException      if the member counts differ
     * @throws UnsupportedOperationException for M-Ring, if the context has no datagram groups
     */
    @Override
    public AtomicBroadcast create(OrderingContext context) {
        int n = context.config().members().size();
        if (n != config.members()) {
            throw new IllegalArgumentException(NAME + " configured for " + config.members() + " members, cluster has " + n);
        }
        int self = context.config().id();
        int k = config.rings();
        int streams = config.streams();
        if (config.anyMRing() && context.config().tls().replicaPort()) {
            LOG.warn("replica {}: multi-ring with M-Ring rings and tls.replica=required: TLS covers the TCP channels only; "
                    + "the multicast datagrams are neither encrypted nor authenticated", self);
        }
        List<RingMemberTransport<Object>> transports = new ArrayList<>();
        List<DurableLog> logs = new ArrayList<>();
        RingCodec codec = new RingCodec(n);
        MultiRingTopology topology = config.topology();
        for (int i = 0; i < streams; i++) {
            String name = ringName(i, k);
            RingConfig ring = config.ring(i);
            int[] processes = topology.members(i == k ? MultiRingTopology.GLOBAL : i);
            if (java.util.Arrays.stream(processes).noneMatch(p -> p == self)) {
                transports.add(null); // a ring of another partition (seed 004 (S-SMR)): not run here
                logs.add(null);
                continue;
            }
            Transport<Object> replicas;
            if (ring.kind() == Ring.Kind.U_RING) {
                replicas = Channels.union(Channels.Route.of(RingUnicast.class, context.transport(name, codec)));
            } else {
                replicas = Channels.union(
                        Channels.Route.of(RingUnicast.class, context.transport(name, codec)),
                        Channels.Route.of(MPacket.class, context.datagramGroup(name + "-mcast", new MPacketCodec(n),
                                RingPaxos.datagramGroup(ring))));
            }
            transports.add(new RingMemberTransport<>(replicas, i, processes));
            logs.add(context.durableLog(name));
        }
        // A process that does not run every ring (a partition's replica, seed 004 (S-SMR)) forwards
        // what it multicasts to a ring it does not run to a member of that ring.
        boolean runsEveryRing = java.util.Arrays.stream(topology.ringIds())
                .allMatch(id -> java.util.Arrays.stream(topology.members(id)).anyMatch(p -> p == self));
        Transport<MulticastForward> forward = runsEveryRing ? null
                : context.transport(FORWARD_CHANNEL, new MulticastForwardCodec());
        Clock clock = context.clock();
        Clock ringClock = clock == SystemClock.INSTANCE ? new EpochClock() : clock;
        StageThreads ringThreads = MulticastBroadcast.streamThreads(context);
        MulticastBroadcast[] broadcast = new MulticastBroadcast[1];
        RingMulticast.Builder builder = RingMulticast.builder().self(self).topology(config.topology())
                .rings(stream -> config.ring(index(stream, k)).toBuilder())
                .transports((stream, member) -> {
                    RingMemberTransport<Object> t = transports.get(index(stream, k));
                    if (t.localId() != member) {
                        throw new IllegalStateException("ring " + stream + ": member " + member + " but the transport is "
                                + t.localId());
                    }
                    return t;
                })
                .logs(stream -> logs.get(index(stream, k)))
                .options(stream -> {
                    int i = index(stream, k);
                    RingMemberTransport<Object> t = transports.get(i);
                    SnapshotRequester replicaRequester = context.snapshotRequester();
                    SnapshotRequester requester = (peer, instance) ->
                            replicaRequester.request(snapshotPeer(config.topology(), self, t.replica(peer)),
                                    broadcast[0].nextSequence() + 1);
                    return RuntimeOptions.forReplica(context).threads(ringThreads).name(ringName(i, k))
                            .snapshotRequester(requester).build();
                })
                .lambda(config.lambda()).skipInterval(config.skipInterval()).roundLength(config.roundLength())
                .ringClock(ringClock).clock(clock).meterRegistry(context.meterRegistry());
        if (forward != null) {
            builder.forwardTransport(forward);
        }
        MulticastBroadcast.MulticastFactory factory = subscriptions -> {
            for (MulticastBroadcast.InitialSubscription s : subscriptions) {
                builder.initialSubscription(s.groups(), s.from(), s.listener());
            }
            return builder.build();
        };
        broadcast[0] = MultiRingBroadcast.create(self, config.topology(), factory, () -> {
            transports.stream().filter(java.util.Objects::nonNull).forEach(Transport::close);
            if (forward != null) {
                forward.close();
            }
            logs.stream().filter(java.util.Objects::nonNull).forEach(MultiRing::closeQuietly);
        });
        if (ringThreads != context.stageThreads()) {
            broadcast[0].closeAfter(ringThreads);
        }
        return broadcast[0];
    }

    /**
     * The replica to fetch a snapshot from when {@code peer} trimmed what {@code self} lacks: {@code
     * peer} if it delivers the same groups as {@code self} (so holds the same state), else a replica
     * that does — under a partitioned service (seed 004 (S-SMR)) the global ring's peer may belong to
     * another partition, whose state is not this replica's. The chosen replica runs this replica's
     * first group ring; it is derived from {@code peer} so that repeated requests spread.
     */
    static int snapshotPeer(MultiRingTopology topology, int self, int peer) {
        GroupSet mine = MultiRingBroadcast.subscribed(self, topology);
        if (mine.equals(topology.groups()) || MultiRingBroadcast.subscribed(peer, topology).equals(mine)) {
            return peer;
        }
        int[] members = topology.members(topology.ringOf(mine.first()));
        int[] others = java.util.Arrays.stream(members).filter(m -> m != self).toArray();
        return others.length == 0 ? peer : others[Math.floorMod(peer, others.length)];
    }

    /** The ring number of stream id {@code stream}: the group, or k for the global stream. */
    private static int index(int stream, int rings) {
        return stream == MulticastPosition.GLOBAL_STREAM ? rings : stream;
    }

    private static void closeQuietly(DurableLog log) {
        try {
            log.close();
        } catch (RuntimeException e) {
            LOG.warn("closing a multi-ring log failed", e);
        }
    }

    @Override
    public String toString() {
        return NAME + " " + config;
    }
}
