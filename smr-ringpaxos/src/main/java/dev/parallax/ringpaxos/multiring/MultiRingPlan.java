package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.Numbering;
import dev.parallax.core.multicast.Routing;
import dev.parallax.core.multicast.SkipPolicy;
import dev.parallax.core.multicast.StreamMembership;
import dev.parallax.core.multicast.StreamPlan;
import dev.parallax.core.runtime.Channels;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.EpochClock;
import dev.parallax.core.time.SystemClock;
import dev.parallax.ringpaxos.MPacket;
import dev.parallax.ringpaxos.MPacketCodec;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingCodec;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.RingPaxosBroadcast;
import dev.parallax.ringpaxos.RingUnicast;
import dev.parallax.ringpaxos.RingWire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * Multi-Ring Paxos' {@link StreamPlan} (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5): k group
 * rings and the global ring laid out by the configuration's {@link MultiRingTopology} (per ring its
 * kind, processes and datagram address; the group → ring mapping). Every ring member proposes
 * ({@link Routing#LOCAL}), each ring's coordinator skips at rate λ by itself ({@link SkipPolicy#NONE}),
 * and the merge counts logical indices ({@link Numbering#LOGICAL}), M at a time. Ring i (0..k-1)
 * runs on the replica-port channel and log {@code ring-<i>}, the global ring on {@code ring-g}; an
 * M-Ring ring also joins the datagram group channel {@code ring-<i>-mcast} (or {@code ring-g-mcast})
 * at its datagram address. A replica's transport is seen with the ring's member ids
 * ({@link RingMemberTransport}), so the rings' coordinators sit on different replicas.
 *
 * <p>The rings of the replica share one {@link RingPaxosBroadcast.PaceShare}, so that they follow the fastest
 * coordinator clock any of them saw. Thread-safe (immutable but for that share); nothing blocks.
 */
public final class MultiRingPlan implements StreamPlan<RingWire> {
    private static final Logger LOG = LoggerFactory.getLogger(MultiRingPlan.class);

    private final MultiRingConfig config;
    private final MultiRingTopology topology;
    /** Ring i's settings with λ and Δ applied (index k: the global ring). */
    private final RingConfig[] rings;
    /** The pace lead the rings of this replica share (thread-safe). */
    private final RingPaxosBroadcast.PaceShare pace = new RingPaxosBroadcast.PaceShare();
    /** Ring i's numbering of the replicas (index k: the global ring). */
    private final RingMemberIds[] ids;
    /** Per replica incarnation (its ordering context), the tally of its rings' removals. */
    private final Map<OrderingContext, PortRemovals> removals = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * @throws IllegalArgumentException if a ring's settings are out of range or do not match its
     *                                  processes
     */
    MultiRingPlan(MultiRingConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.topology = config.topology();
        this.rings = new RingConfig[config.streams()];
        this.ids = new RingMemberIds[config.streams()];
        for (int i = 0; i < rings.length; i++) {
            int[] procs = topology.members(stream(i));
            try {
                rings[i] = config.ring(i).toBuilder().lambda(config.lambda()).skipInterval(config.skipInterval()).build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("ring " + stream(i) + " on processes " + Arrays.toString(procs) + ": "
                        + e.getMessage(), e);
            }
            if (rings[i].members() != procs.length) {
                throw new IllegalArgumentException("ring " + stream(i) + " runs on " + procs.length + " processes "
                        + Arrays.toString(procs) + " but its config has n = " + rings[i].members());
            }
            ids[i] = new RingMemberIds(i, procs, topology.joiners(stream(i)));
        }
    }

    /** The configuration. */
    public MultiRingConfig config() {
        return config;
    }

    @Override
    public String name() {
        return MultiRing.NAME;
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

    @Override
    public int processes() {
        return config.members();
    }

    @Override
    public GroupSet groups() {
        return topology.groups();
    }

    @Override
    public int streamOf(int group) {
        return topology.ringOf(group);
    }

    /** The ring's processes; where the rings change their members, also every id a replica joining later may take. */
    @Override
    public int[] streamMembers(int stream) {
        return config.membershipChanges() ? ids[index(stream)].replicas() : topology.members(stream);
    }

    /** {@code ring.member.ids} where the rings change their members, else n. */
    @Override
    public int origins() {
        return config.membershipChanges() ? config.idSpace() : processes();
    }

    @Override
    public boolean changesMembers() {
        return config.membershipChanges();
    }

    /** The ring's member set in replica ids ({@link RingMembership}). */
    @Override
    public StreamMembership streamMembership(int stream, AtomicBroadcast broadcast) {
        return new RingMembership(streamName(stream), (RingPaxosBroadcast) broadcast, ids[index(stream)]);
    }

    /** The groups whose rings {@code self} runs (seed 004 (S-SMR) §IV: a partition's replicas). */
    @Override
    public GroupSet subscribed(int self) {
        return MultiRingBroadcast.subscribed(self, topology);
    }

    @Override
    public Routing routing() {
        return Routing.LOCAL;
    }

    @Override
    public SkipPolicy skips() {
        return SkipPolicy.NONE;
    }

    @Override
    public Numbering numbering() {
        return Numbering.LOGICAL;
    }

    @Override
    public int roundLength() {
        return config.roundLength();
    }

    /** {@link MultiRing#ringName}: {@code ring-<i>}, the global ring {@code ring-g}. */
    @Override
    public String streamName(int stream) {
        return MultiRing.ringName(index(stream), config.rings());
    }

    @Override
    public String forwardChannel() {
        return MultiRing.FORWARD_CHANNEL;
    }

    /** Warns that TLS does not cover M-Ring's datagrams. */
    @Override
    public void check(OrderingContext context) {
        if (config.anyMRing() && context.config().tls().replicaPort()) {
            LOG.warn("replica {}: multi-ring with M-Ring rings and tls.replica=required: TLS covers the TCP channels only; "
                    + "the IP-multicast datagrams are not encrypted (mring.auth authenticates them)", context.config().id());
        }
    }

    /**
     * The ring's TCP channel (and for M-Ring its datagram group), seen with the ring's member ids.
     *
     * @throws UnsupportedOperationException for M-Ring, if the context has no datagram groups
     */
    @Override
    public Transport<RingWire> openTransport(OrderingContext context, int stream) {
        int i = index(stream);
        String name = streamName(stream);
        int n = Math.max(context.config().members().size(), origins());
        RingCodec codec = new RingCodec(n);
        RingConfig ring = config.ring(i);
        Transport<RingWire> replicas;
        if (ring.kind() == Ring.Kind.U_RING) {
            replicas = Channels.union(RingWire.class, Channels.Route.of(RingUnicast.class, context.transport(name, codec)));
        } else {
            replicas = Channels.union(RingWire.class,
                    Channels.Route.of(RingUnicast.class, context.transport(name, codec)),
                    Channels.Route.of(MPacket.class, context.datagramGroup(name + "-mcast", new MPacketCodec(n),
                            RingPaxos.datagramGroup(ring))));
        }
        PortRemovals tally = removals.computeIfAbsent(context, c -> new PortRemovals());
        return new RingMemberTransport<>(replicas, ids[i], tally);
    }

    /** An {@link EpochClock} for the real clock: the skip target is a function of wall time shared by every ring. */
    @Override
    public Clock streamClock(Clock clock) {
        return clock == SystemClock.INSTANCE ? new EpochClock() : clock;
    }

    /** {@link #snapshotPeer(MultiRingTopology, int, int)} of the replica that is {@code peer} in the ring. */
    @Override
    public int snapshotPeer(int self, int stream, int peer) {
        int replica = ids[index(stream)].replica(peer);
        return snapshotPeer(topology, self, replica < 0 ? peer : replica);
    }

    @Override
    public AtomicBroadcast broadcast(StreamParts<RingWire> parts) {
        int i = index(parts.id());
        int member = ids[i].member(parts.self());
        if (member < 0) {
            throw new IllegalArgumentException("replica " + parts.self() + " cannot be a member of ring " + parts.id() + " ("
                    + (config.membershipChanges() ? "the replicas that may join it are " + Arrays.toString(topology.joiners(parts.id()))
                    : "its members are fixed: set ring.member.ids to let replicas join") + ")");
        }
        if (parts.transport().localId() != member) {
            throw new IllegalStateException("ring " + parts.id() + ": member " + member + " but the transport is "
                    + parts.transport().localId());
        }
        return RingMulticast.ring(rings[i], member, parts.transport(), parts.log(), parts.clock(), parts.options(), pace);
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
        int[] others = Arrays.stream(members).filter(m -> m != self).toArray();
        return others.length == 0 ? peer : others[Math.floorMod(peer, others.length)];
    }

    /** The ring number of stream id {@code stream}: the group ring's, or k for the global stream. */
    private int index(int stream) {
        return stream == MulticastPosition.GLOBAL_STREAM ? config.rings() : stream;
    }

    /** The stream id of ring number {@code index}. */
    private int stream(int index) {
        return index == config.rings() && config.rings() > 1 ? MulticastPosition.GLOBAL_STREAM : index;
    }

    @Override
    public String toString() {
        return MultiRing.NAME + " " + config;
    }
}
