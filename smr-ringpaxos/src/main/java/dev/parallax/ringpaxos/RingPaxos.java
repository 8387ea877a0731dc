package dev.parallax.ringpaxos;

import dev.parallax.core.runtime.Channels;
import dev.parallax.core.runtime.DatagramFaults;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.EpochClock;
import dev.parallax.core.time.SystemClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 3) as a replica's ordering protocol:
 * {@code Replica.builder().ordering(RingPaxos.uRing(RingConfig.builder(3, Ring.Kind.U_RING).build()))}.
 * Every replica takes clients (no redirect); one runtime runs {@link RingPaxosCore} and one log.
 * <ul>
 *   <li>{@value #U_RING} (Alg. 3, §3.3.3): every message on the TCP channel {@value #U_CHANNEL},
 *       log {@value #U_LOG};</li>
 *   <li>{@value #M_RING} (Alg. 2, §3.3.2): ring messages on the TCP channel {@value #M_CHANNEL},
 *       Phase 2A and decisions as IP-multicast datagrams on the group channel
 *       {@value #M_DATAGRAM_CHANNEL} ({@link OrderingContext#datagramGroup}, the {@code mring.*}
 *       settings), joined by {@link Channels#union}; log {@value #M_LOG}.</li>
 * </ul>
 * Batches are closed at {@code ring.batch.bytes} (BSZ, one datagram by default) or after
 * {@code ring.batch.timeout.ms}. M-Ring with TLS between replicas logs a WARN: TLS covers the TCP
 * channel, not the datagrams.
 *
 * <p>Immutable and thread-safe; {@link #create} builds a new, unstarted broadcast on each call.
 */
public final class RingPaxos implements OrderingProtocol {
    /** The protocol name of U-Ring (cluster files: {@code ordering=u-ring}). */
    public static final String U_RING = "u-ring";
    /** The protocol name of M-Ring (cluster files: {@code ordering=m-ring}). */
    public static final String M_RING = "m-ring";
    /** U-Ring's replica-port channel. */
    public static final String U_CHANNEL = "uring";
    /** M-Ring's replica-port channel (ring-unicast messages). */
    public static final String M_CHANNEL = "mring";
    /** M-Ring's datagram group channel. */
    public static final String M_DATAGRAM_CHANNEL = "mring-mcast";
    /** U-Ring's log (directory under the data directory). */
    public static final String U_LOG = "uring";
    /** M-Ring's log (directory under the data directory). */
    public static final String M_LOG = "mring";

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxos.class);
    private final RingConfig config;

    private RingPaxos(RingConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * U-Ring with {@code config}.
     *
     * @throws IllegalArgumentException if {@code config} is not a U-Ring configuration
     */
    public static RingPaxos uRing(RingConfig config) {
        if (config.kind() != Ring.Kind.U_RING) {
            throw new IllegalArgumentException("u-ring needs a U_RING configuration, got " + config.kind());
        }
        return new RingPaxos(config);
    }

    /**
     * M-Ring with {@code config}.
     *
     * @throws IllegalArgumentException if {@code config} is not an M-Ring configuration
     */
    public static RingPaxos mRing(RingConfig config) {
        if (config.kind() != Ring.Kind.M_RING) {
            throw new IllegalArgumentException("m-ring needs an M_RING configuration, got " + config.kind());
        }
        return new RingPaxos(config);
    }

    /** The configuration. */
    public RingConfig config() {
        return config;
    }

    @Override
    public String name() {
        return config.kind() == Ring.Kind.U_RING ? U_RING : M_RING;
    }

    /** BSZ from the {@link RingConfig} ({@code ring.batch.bytes}). */
    @Override
    public int batchBytes() {
        return config.batchBytes();
    }

    /** The batch time-out from the {@link RingConfig} ({@code ring.batch.timeout.ms}). */
    @Override
    public long batchTimeoutNanos() {
        return config.batchTimeoutNanos();
    }

    /**
     * The M-Ring datagram group of {@code config}: its {@code mring.*} group, port, interface,
     * packet size, socket buffers, TTL, test faults and authentication ({@code mring.auth}).
     *
     * @throws IllegalArgumentException if a setting is out of range
     */
    public static DatagramGroupConfig datagramGroup(RingConfig config) {
        return DatagramGroupConfig.builder().group(config.mringGroup()).port(config.mringPort())
                .interfaceAddress(config.mringInterface()).packetBytes(config.mringPacketBytes())
                .socketBufferBytes(config.mringSocketBufferBytes()).ttl(config.mringTtl())
                .faults(config.mringTestFaults().isBlank() ? DatagramFaults.NONE : DatagramFaults.parse(config.mringTestFaults()))
                .authenticated(!config.get(RingKeys.MRING_AUTH).equals("none"))
                .build();
    }

    /**
     * The broadcast for the replica {@code context} describes: its transports (one TCP channel for
     * U-Ring; TCP and the datagram group for M-Ring), its log, and the replica's runtime options.
     *
     * @throws IllegalArgumentException if the member counts differ
     * @throws UnsupportedOperationException for M-Ring, if the context has no datagram groups
     */
    @Override
    public AtomicBroadcast create(OrderingContext context) {
        int members = context.config().members().size();
        if (members != config.members()) {
            throw new IllegalArgumentException(name() + " configured for " + config.members() + " members, cluster has "
                    + members);
        }
        // Ids up to ring.member.ids (members added at run time, RingGroup) are legal on the wire.
        RingCodec codec = new RingCodec(config.idSpace());
        Transport<RingWire> transport;
        String log;
        if (config.kind() == Ring.Kind.U_RING) {
            transport = Channels.union(RingWire.class, Channels.Route.of(RingUnicast.class, context.transport(U_CHANNEL, codec)));
            log = U_LOG;
        } else {
            if (context.config().tls().replicaPort()) {
                LOG.warn("replica {}: m-ring with tls.replica=required: TLS covers the TCP channel only; the IP-multicast "
                        + "datagrams of group {}:{} are not encrypted (mring.auth authenticates them)", context.config().id(),
                        config.mringGroup(), config.mringPort());
            }
            transport = Channels.union(RingWire.class,
                    Channels.Route.of(RingUnicast.class, context.transport(M_CHANNEL, codec)),
                    Channels.Route.of(MPacket.class,
                            context.datagramGroup(M_DATAGRAM_CHANNEL, new MPacketCodec(config.idSpace()), datagramGroup(config))));
            log = M_LOG;
        }
        return RingPaxosBroadcast.builder().config(config).self(context.config().id()).transport(transport)
                .log(context.durableLog(log)).clock(clockFor(config, context.clock()))
                .options(RuntimeOptions.forReplica(context).build())
                .build();
    }

    /**
     * The clock of the core: with {@code ring.lambda} &gt; 0 the real monotonic clock is replaced by an
     * {@link EpochClock} (the skip target is a function of wall time shared by every ring); a
     * virtual clock (simulator, tests) and λ = 0 keep {@code clock}.
     */
    static Clock clockFor(RingConfig config, Clock clock) {
        return config.lambda() > 0 && clock == SystemClock.INSTANCE ? new EpochClock() : clock;
    }
}
