package dev.parallax.paxos.spaxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.runtime.RuntimeBroadcast;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.paxos.PaxosMembershipAdmin;
import dev.parallax.paxos.PaxosRuntimeParts;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * {@link AtomicBroadcast} by S-Paxos (seed 002 (S-Paxos) §IV): one {@link ProtocolRuntime} runs
 * {@link SPaxosCore} over one transport of {@link SPaxosWire}s joining the dissemination and
 * ordering channels ({@link SPaxos}) and one log. What is S-Paxos' own is here:
 * <ul>
 *   <li>values: a proposed batch is a {@link SPaxosValue.ClientBatch}; an {@link Executable} is
 *       delivered as {@link ExecutedBatches} bytes, of which the listener sees only the commands —
 *       the ids go to the {@link ExecutionMirror} first, whose record is this broadcast's
 *       {@link #deliveryState()} and is restored by {@link #snapshotInstalled(long, byte[])};</li>
 *   <li>membership changes ({@link MembershipAdmin}, as {@code PaxosBroadcast}): an operator's request
 *       is proposed by the ordering core on the protocol thread ({@link SPaxosCore#proposeMembership});
 *       dissemination follows the ordering layer's membership ({@link DisseminationCore} rules
 *       M1–M5); a decided change reaches the delivery side as a {@link MembershipDecided}, which the
 *       mirror applies to its membership history, carried in the delivery state beside the executed
 *       ids ({@link SPaxosDeliveryState}; a state of an older snapshot, without a history, still
 *       installs);</li>
 *   <li>clients are never redirected ({@link #redirectHint()} is always {@link #ANY_REPLICA},
 *       §IV-A: every replica takes client requests); {@link #leaderHint()} names the ordering
 *       leader;</li>
 *   <li>gauges {@code parallax.spaxos.bodies.held{unit=count|bytes}} and
 *       {@code parallax.spaxos.execution.waiting}; Multi-Paxos' view, leader and failure detection
 *       for the ordering core come from {@link PaxosRuntimeParts}, as for {@code PaxosBroadcast}.</li>
 * </ul>
 * The incarnation floor of the dissemination layer is the wall clock in milliseconds at start
 * (so an origin whose log was lost never reuses an incarnation). The runtime settings that are not S-Paxos' own come as one
 * {@link RuntimeOptions}; what only delegates to the runtime is {@link RuntimeBroadcast}'s.
 *
 * <p>Threads: {@link #propose}, {@link #redirectHint}, {@link #leaderHint},
 * {@link #readyForProposal}, {@link #snapshotTaken} and {@link #snapshotInstalled} from any thread,
 * never blocking; {@link #deliveryState} on the delivery thread; {@link #start} and {@link #close}
 * once each, by the owner. The broadcast owns the transport and the log it was given and closes them.
 */
public final class SPaxosBroadcast extends RuntimeBroadcast<SPaxosWire, SPaxosRecord, SPaxosValue, SPaxosCore>
        implements MembershipAdmin.Forwarding {
    /** The instance name unless {@link RuntimeOptions} name another: the meters' {@code protocol} tag. */
    public static final String DEFAULT_NAME = "spaxos";
    private final PaxosRuntimeParts parts;
    private final ExecutionMirror mirror;
    private final PaxosMembershipAdmin<SPaxosWire, SPaxosRecord, SPaxosValue, SPaxosCore> admin;
    private volatile long heldBodies;
    private volatile long heldBytes;
    private volatile long executionWaiting;

    private SPaxosBroadcast(Parts<SPaxosConfig, SPaxosWire> p, SPaxosCore.Observer observer, LongSupplier floor) {
        SPaxosConfig config = p.config();
        int self = p.self();
        String replica = Integer.toString(self);
        RuntimeOptions options = p.options();
        String name = options.name(DEFAULT_NAME);
        MeterRegistry registry = options.meterRegistry();
        parts = new PaxosRuntimeParts(config.paxos(), self, name, registry);
        mirror = new ExecutionMirror(Membership.initial(config.members()), config.paxos().window());
        admin = new PaxosMembershipAdmin<>(config.paxos(), this::protocolRuntime, SPaxosCore::ordering,
                new PaxosMembershipAdmin.Operations<>() {
                    @Override
                    public String propose(SPaxosCore core, MembershipChange change, long now,
                                          dev.parallax.core.protocol.Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
                        return core.proposeMembership(change, now, out);
                    }

                    @Override
                    public String transfer(SPaxosCore core, int target, long now,
                                           dev.parallax.core.protocol.Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
                        return core.transferLeadership(target, now, out);
                    }
                }, parts, p.transport());
        dev.parallax.core.time.Clock clock = p.clock();
        Gauge.builder("parallax.spaxos.bodies.held", this, x -> x.heldBodies).description("batch bodies this replica holds")
                .tag("protocol", name).tag("replica", replica).tag("unit", "count").register(registry);
        Gauge.builder("parallax.spaxos.bodies.held", this, x -> x.heldBytes).description("bytes of the batch bodies held")
                .tag("protocol", name).tag("replica", replica).tag("unit", "bytes").register(registry);
        Gauge.builder("parallax.spaxos.execution.waiting", this, x -> x.executionWaiting)
                .description("decided ordering instances waiting for execution (a body is missing, or one before it)")
                .tag("protocol", name).tag("replica", replica).register(registry);
        ProtocolRuntime.Builder<SPaxosWire, SPaxosRecord, SPaxosValue, SPaxosCore> rb =
                p.runtimeBuilder(DEFAULT_NAME, new SPaxosRecordCodec());
        SPaxosCore[] built = new SPaxosCore[1];
        rb.transport(new dev.parallax.core.membership.MemberAddressing<>(p.transport(),
                () -> built[0] == null ? null : built[0].ordering().membershipHistory().latest()));
        rb.core((recovered, amnesiac, now) -> {
                    SPaxosCore c = new SPaxosCore(config, self, recovered, amnesiac, floor.getAsLong(), now, observer);
                    c.ordering().detectFailuresExternally();
                    built[0] = c;
                    return c;
                })
                .values(new ProtocolRuntime.ValueAdapter<>() {
                    @Override
                    public SPaxosValue fromBytes(ByteBuffer bytes) {
                        return new SPaxosValue.ClientBatch(bytes);
                    }

                    @Override
                    public ByteBuffer toDelivery(SPaxosValue v) {
                        return v instanceof Executable e ? ExecutedBatches.encode(e) : null;
                    }

                    /** Delivery thread: a configuration command goes to the mirror's history, in order. */
                    @Override
                    public ByteBuffer toDelivery(long instance, SPaxosValue v) {
                        if (v instanceof MembershipDecided m) {
                            mirror.applyMembership(instance, m.change());
                        }
                        return toDelivery(v);
                    }
                })
                .failureDetection(parts.failureDetection())
                .observer(c -> {
                    parts.observe(c.ordering(), protocolRuntime().protocolStage().undelivered());
                    heldBodies = c.dissemination().heldBodies();
                    heldBytes = c.dissemination().heldBytes();
                    executionWaiting = c.executionWaiting();
                    admin.observe(c, clock.nanoTime());
                })
                .maxTickNanos(parts.maxTickNanos());
        install(rb.build());
    }

    /** A builder; config, self, transport, log and clock are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the runtime; each delivered instance's ids go to the execution mirror, then its
     * commands (one command batch) to {@code listener}, on the delivery thread.
     */
    @Override
    public void start(DeliveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        super.start((sequence, value) -> {
            ExecutedBatches.Delivered d = ExecutedBatches.decode(value);
            mirror.apply(sequence, d.ids());
            listener.deliver(sequence, d.commands());
        });
    }

    /** Every replica takes clients (seed 002 (S-Paxos) §IV-A): never a redirect. */
    @Override
    public int redirectHint() {
        return ANY_REPLICA;
    }

    /** The ordering layer's leader as this replica last saw it, or -1 before start. */
    @Override
    public int leaderHint() {
        return parts.leaderHint();
    }

    @Override
    public void snapshotInstalled(long nextSequence) {
        snapshotInstalled(nextSequence, new byte[0]);
    }

    /** Restores the mirror and hands the executed-id record to the core ({@link SPaxosCore#skipTo(long, ByteBuffer)}). */
    @Override
    public void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        mirror.restore(nextSequence, deliveryState);
        protocolRuntime().skipTo(nextSequence, deliveryState);
    }

    /** The executed-id record and the membership history as of the last delivery ({@link ExecutionMirror#state}). */
    @Override
    public byte[] deliveryState() {
        return mirror.state();
    }

    /** Every membership request goes to the ordering layer's admin ({@link PaxosMembershipAdmin}): the membership is the ordering layer's. */
    @Override
    public MembershipAdmin membershipAdmin() {
        return admin;
    }

    /**
     * Mutable builder, not thread-safe: the setters of {@link RuntimeBroadcast.BaseBuilder} — the
     * transport is one carrying both layers' messages, {@link SPaxosWire}s ({@code Channels.union}
     * in a replica, {@link SPaxos#create}), the log that of both layers — and S-Paxos' own.
     */
    public static final class Builder extends BaseBuilder<SPaxosConfig, SPaxosWire, Builder> {
        private SPaxosCore.Observer observer = SPaxosCore.Observer.NONE;
        private LongSupplier incarnationFloor = System::currentTimeMillis;

        private Builder() {
            super(SPaxosConfig::members);
        }

        @Override
        protected Builder thisBuilder() {
            return this;
        }

        /** The core's test hook; default {@link SPaxosCore.Observer#NONE}. Called on the protocol thread. */
        public Builder observer(SPaxosCore.Observer observer) {
            this.observer = Objects.requireNonNull(observer);
            return this;
        }

        /** The lowest incarnation a start may use; default the wall clock in milliseconds. */
        public Builder incarnationFloor(LongSupplier floor) {
            this.incarnationFloor = Objects.requireNonNull(floor);
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing or inconsistent */
        public SPaxosBroadcast build() {
            return new SPaxosBroadcast(parts(), observer, incarnationFloor);
        }
    }
}
