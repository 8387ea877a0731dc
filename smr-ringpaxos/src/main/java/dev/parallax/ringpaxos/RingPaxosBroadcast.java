package dev.parallax.ringpaxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.runtime.RuntimeBroadcast;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.membership.MemberAddressing;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.membership.RuntimeMembershipAdmin;
import dev.parallax.core.protocol.Effects;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.MembershipAdmin;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * {@link AtomicBroadcast} by Ring Paxos (seed 003 (Ring Paxos) ch. 3): one {@link ProtocolRuntime}
 * runs {@link RingPaxosCore} — U-Ring (Alg. 3) or M-Ring (Alg. 2), as the {@link RingConfig} says —
 * over one transport (a TCP channel, and for M-Ring also a datagram group, joined by
 * {@code Channels.union}; see {@link RingPaxos}) and one log. What is Ring Paxos' own is here:
 * <ul>
 *   <li>values: a proposed batch is a {@link RingValue.ClientBatch}; a decided
 *       {@link RingValue.Chosen} delivers its bytes, {@link ValueId#NOOP} nothing, a skip
 *       ({@link ValueId#isSkip()}, decided with {@code ring.lambda} &gt; 0) nothing or — with
 *       {@link Builder#skipDelivery} — its encoder's bytes for its target. There is no
 *       protocol-level deduplication and no delivery state: a batch decided twice is delivered
 *       twice at every replica in the same order, and the replica's client sessions answer the copy
 *       identically everywhere;</li>
 *   <li>clients are never redirected ({@link #redirectHint()} is {@link #ANY_REPLICA}: every member
 *       is a proposer, §3.3.1); {@link #leaderHint()} names the coordinator of the round this
 *       replica follows (demo, chaos and tools);</li>
 *   <li>member failure detection: a {@code MemberDetector} on its own thread applies
 *       {@link RingSuspicion} to the members the core watches in its round (the ring, or the
 *       coordinator), from the transports' arrival stamps; the core's own tick-based detection is
 *       off ({@link RingPaxosCore#detectFailuresExternally()});</li>
 *   <li>gauges {@code parallax.ring.round}, {@code .coordinator} (1 while this replica coordinates),
 *       {@code .size}, {@code .position} (-1 off the ring), {@code .window}, {@code .outstanding},
 *       {@code .first.undecided}, {@code .logical.next}, {@code .learner.buffered{unit=instances|bytes}},
 *       {@code .version.floor}, and counters {@code parallax.ring.reformations} and
 *       {@code parallax.protocol.stepdowns}, tagged {@code protocol} and
 *       {@code replica}.</li>
 * </ul>
 * The incarnation floor of the value ids this replica proposes is the wall clock in milliseconds at
 * start, so that a replica whose log was lost never reuses an incarnation. With
 * {@code ring.lambda} &gt; 0 the clock given to the builder must read nanoseconds since the Unix
 * epoch ({@code dev.parallax.core.time.EpochClock}; a simulator's shared
 * virtual clock is fine): the skip target is a function of it shared by every ring. The runtime settings that are not Ring Paxos' own come as one
 * {@link RuntimeOptions}; the longest time between two ticks is half the shortest of
 * {@code ring.heartbeat.ms}, {@code ring.retransmit.ms} and {@code mring.retransmit.ms}. What only
 * delegates to the runtime is {@link RuntimeBroadcast}'s; a snapshot taken
 * ({@link #snapshotTaken}) covers every position below its sequence, and the log is trimmed at
 * most to the version floor; an installed one carries the member history as of its position
 * ({@link RingDeliveredMembership}; nothing while the members are fixed). Membership changes
 * ({@link MembershipAdmin}, {@link RingGroup}) are taken by the coordinator, and so is a transfer
 * of leadership ({@link RingHandOver}, rules T1–T4).
 *
 * <p>Threads: {@link #propose}, {@link #redirectHint}, {@link #leaderHint},
 * {@link #readyForProposal}, {@link #snapshotTaken} and {@link #snapshotInstalled} from any thread,
 * never blocking; {@link #start} and {@link #close} once each, by the owner. The broadcast owns the
 * transport and the log it was given and closes them.
 */
public final class RingPaxosBroadcast extends RuntimeBroadcast<RingWire, RingRecord, RingValue, RingPaxosCore>
        implements MembershipAdmin.Forwarding {
    private final int self;
    private final RingDeliveredMembership delivered;
    private final RuntimeMembershipAdmin<RingWire, RingRecord, RingValue, RingPaxosCore> admin;
    private volatile Membership membership;
    /**
     * The delivery side's member history as of the last change delivered or installed, encoded
     * (empty while the ring has not changed its members): written by the delivery thread, read by
     * any (a merged multicast's snapshot reads it on its subscription's thread).
     */
    private volatile byte[] deliveredHistory = new byte[0];
    /** The latest decided member set, in effect or not yet (published by the protocol thread). */
    private volatile Membership latestMembership;
    private volatile long round = -1;
    private volatile int coordinator = -1;
    private volatile int leading;
    private volatile int size;
    private volatile int position = -1;
    private volatile long window;
    private volatile long outstanding;
    private volatile long firstUndecided;
    private volatile long logicalNext;
    private volatile long learnerBuffered;
    private volatile long learnerBufferedBytes;
    private volatile long versionFloor;
    private volatile long reformations;
    private volatile long stepDowns;
    private volatile long watchedEpoch = -1;
    private volatile long watchedMask;

    private final PaceShare pace;
    /** This ring's part in skips on demand, or null (no share, λ = 0 or {@code ring.skip.demand=off}). */
    private final DemandSlot demand;

    private RingPaxosBroadcast(Parts<RingConfig, RingWire> p, RingPaxosCore.Observer observer, LongSupplier floor,
                               LongFunction<ByteBuffer> skipEncoder, PaceShare pace) {
        RingConfig config = p.config();
        this.pace = pace;
        this.demand = pace != null && config.lambda() > 0 && config.skipOnDemand()
                ? pace.join(upTo -> {
                    ProtocolRuntime<RingWire, RingRecord, RingValue, RingPaxosCore> rt = protocolRuntime();
                    if (rt != null) {
                        rt.runOnCore((core, now, out) -> core.onSkipDemand(upTo, now, out)); // full queue: the paced skip comes
                    }
                })
                : null;
        int self = p.self();
        this.self = self;
        RuntimeOptions options = p.options();
        String defaultName = defaultName(config.kind());
        String name = options.name(defaultName);
        registerMeters(options.meterRegistry(), Tags.of("protocol", name, "replica", Integer.toString(self)));
        this.membership = Membership.initial(config.members());
        this.delivered = new RingDeliveredMembership(config, skipEncoder, encoded -> deliveredHistory = encoded);
        this.admin = new RuntimeMembershipAdmin<>(config.window(), this::protocolRuntime, ORDERING, () -> membership,
                p.transport());
        ProtocolRuntime.Builder<RingWire, RingRecord, RingValue, RingPaxosCore> rb =
                p.runtimeBuilder(defaultName, new RingRecordCodec());
        RingPaxosCore[] built = new RingPaxosCore[1];
        // As Multi-Paxos: a member added at run time gets its address before the core's first message to it.
        rb.transport(new MemberAddressing<>(p.transport(),
                () -> built[0] == null ? null : built[0].membershipHistory().latest()));
        rb.core((recovered, amnesiac, now) -> {
                    RingPaxosCore c = new RingPaxosCore(config, self, recovered, amnesiac, floor.getAsLong(), now, observer);
                    c.detectFailuresExternally();
                    built[0] = c;
                    return c;
                })
                .values(delivered)
                .memberWatch(new ProtocolRuntime.MemberWatch(new RingSuspicion(config, self, () -> membership), () -> watchedEpoch,
                        () -> watchedMask, Math.max(1, config.heartbeatNanos() / 4)))
                .observer(c -> {
                    publish(c);
                    admin.observe(c, p.clock().nanoTime());
                })
                .maxTickNanos(maxTickNanos(config));
        install(rb.build());
    }

    /**
     * The pace lead shared by the rings of one process (Multi-Ring Paxos; seed 003 (Ring Paxos /
     * Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20): the largest {@link RingPaxosCore#paceLead()} any
     * of them reported — how far ahead of this process' clock the fastest coordinator clock seen
     * runs, in logical instances — which every ring then adopts ({@link RingPaxosCore#adoptPaceLead}),
     * so that a ring whose coordinator's clock is ahead pulls the others along instead of leaving a
     * merge of them waiting for the skew. Each ring's protocol thread offers its lead and reads the
     * shared one after every work cycle ({@link Builder#paceShare}).
     *
     * <p>Thread-safe and non-blocking: any number of protocol threads.
     */
    public static final class PaceShare {
        private final AtomicLong lead = new AtomicLong();

        /**
         * A ring reports its lead: the shared one becomes at least that. Called after every work
         * cycle, so the common case (no larger lead) only reads: no write to the shared line.
         */
        public void offer(long ringLead) {
            long current;
            while (ringLead > (current = lead.get())) {
                if (lead.compareAndSet(current, ringLead)) {
                    return;
                }
            }
        }

        /** The largest lead any ring reported (0 at first). */
        public long lead() {
            return lead.get();
        }

        /** The rings of this process taking part in skips on demand. */
        private final List<DemandSlot> slots = new CopyOnWriteArrayList<>();

        /**
         * A ring joins skips on demand ({@code ring.skip.demand=on}): {@code poke} asks its core for a
         * skip to a logical instance ({@link RingPaxosCore#onSkipDemand}) from another ring's thread
         * and must not block.
         */
        public DemandSlot join(LongConsumer poke) {
            DemandSlot slot = new DemandSlot(poke);
            slots.add(slot);
            return slot;
        }

        /**
         * A ring's protocol thread, after a work cycle: its logical next, the frontier of its client
         * values ({@link RingPaxosCore#valueFrontier}) and whether this member coordinates it. When
         * the frontier grew, every other ring whose logical next is behind it is poked once for that
         * frontier (the merge waits on it): a ring coordinated here skips; when the frontier is the
         * coordinator's own (this member coordinates the ring whose frontier grew), a ring
         * coordinated elsewhere is poked too and sends the demand to its coordinator — one message
         * per opened value per ring, from the one process that opened it.
         */
        public void published(DemandSlot slot, long logicalNext, long valueFrontier, boolean coordinating) {
            if (slot.logicalNext != logicalNext) {
                slot.logicalNext = logicalNext;   // volatile: written only when it moved
            }
            if (slot.coordinating != coordinating) {
                slot.coordinating = coordinating;
            }
            if (valueFrontier <= slot.valueFrontier) {
                return;
            }
            slot.valueFrontier = valueFrontier;
            for (DemandSlot other : slots) {
                if (other != slot && (other.coordinating || coordinating) && other.logicalNext < valueFrontier) {
                    long asked = other.demanded.get();
                    if (asked < valueFrontier && other.demanded.compareAndSet(asked, valueFrontier)) {
                        other.poke.accept(valueFrontier);
                    }
                }
            }
        }
    }

    /**
     * One ring's part in skips on demand ({@link PaceShare#join}): written by its protocol thread,
     * read by the other rings' threads. Opaque to callers.
     */
    public static final class DemandSlot {
        private final LongConsumer poke;
        private volatile long logicalNext;
        private volatile boolean coordinating;
        /** Only the owning ring's thread reads and writes it. */
        private long valueFrontier;
        /** The highest frontier this ring was poked for. */
        private final AtomicLong demanded = new AtomicLong(-1);

        private DemandSlot(LongConsumer poke) {
            this.poke = poke;
        }
    }

    /** The instance name unless {@link RuntimeOptions} name another: {@code uring} or {@code mring}. */
    public static String defaultName(Ring.Kind kind) {
        return kind == Ring.Kind.U_RING ? RingPaxos.U_LOG : RingPaxos.M_LOG;
    }

    /** Half the shortest of the heartbeat and the two retransmission periods. */
    static long maxTickNanos(RingConfig config) {
        long shortest = Math.min(config.heartbeatNanos(), Math.min(config.retransmitNanos(), config.mringRetransmitNanos()));
        return Math.max(1, shortest / 2);
    }

    /**
     * The bytes a decided value delivers: a chosen batch's; a skip's from {@code skipEncoder} (none
     * without one); none for a no-op or anything else.
     */
    static ByteBuffer delivery(RingValue v, LongFunction<ByteBuffer> skipEncoder) {
        if (!(v instanceof RingValue.Chosen c) || c.vid().isNoop() || c.vid().isConfig()) {
            return null;
        }
        if (c.vid().isSkip()) {
            return skipEncoder == null ? null : skipEncoder.apply(c.vid().upTo());
        }
        return c.bytes();
    }

    /** Protocol thread, after every work cycle: the core's state for the gauges and the member detector. */
    private void publish(RingPaxosCore c) {
        if (pace != null) {
            pace.offer(c.paceLead());
            c.adoptPaceLead(pace.lead());
            if (demand != null) {
                pace.published(demand, c.logicalNext(), c.valueFrontier(), c.isCoordinator());
            }
        }
        round = c.round();
        int coord = c.coordinator();
        coordinator = coord;
        leading = c.isCoordinator() ? 1 : 0;
        Ring ring = c.ring();
        size = ring == null ? 0 : ring.size();
        position = ring == null ? -1 : ring.position(self);
        window = c.window();
        outstanding = c.outstanding();
        firstUndecided = c.firstUndecided();
        logicalNext = c.logicalNext();
        learnerBuffered = c.learnerBuffered();
        learnerBufferedBytes = c.learnerBufferedBytes();
        versionFloor = c.versionFloor();
        reformations = c.reformations();
        stepDowns = c.stepDowns();
        watchedMask = c.watchedMask();
        watchedEpoch = c.watchedEpoch();
        membership = c.membership();
        latestMembership = c.membershipHistory().latest();
    }

    /**
     * Ring Paxos for the protocol-neutral admin ({@link RingGroup}, rules G1–G8): the coordinator
     * takes changes and hands its coordination over ({@link RingHandOver}).
     */
    private static final RuntimeMembershipAdmin.Ordering<RingWire, RingRecord, RingValue, RingPaxosCore> ORDERING =
            new RuntimeMembershipAdmin.Ordering<>() {
                @Override
                public String propose(RingPaxosCore core, MembershipChange change, long now,
                                      Effects<RingWire, RingRecord, RingValue> out) {
                    return core.proposeMembership(change, now, out);
                }

                @Override
                public String transfer(RingPaxosCore core, int target, long now, Effects<RingWire, RingRecord, RingValue> out) {
                    return core.transferLeadership(target, now);
                }

                @Override
                public int transferTarget(RingPaxosCore core) {
                    return core.transferTarget();
                }

                @Override
                public MembershipHistory history(RingPaxosCore core) {
                    return core.membershipHistory();
                }

                @Override
                public Membership current(RingPaxosCore core) {
                    return core.membership();
                }

                @Override
                public boolean leads(RingPaxosCore core) {
                    return core.isCoordinator();
                }

                @Override
                public int leaderHint(RingPaxosCore core) {
                    return core.coordinator();
                }

                @Override
                public long view(RingPaxosCore core) {
                    return core.round();
                }
            };

    /** The member history as of the last delivery (empty for a fixed ring): what a snapshot carries. Any thread. */
    @Override
    public byte[] deliveryState() {
        return deliveredHistory;
    }

    /** A snapshot carrying {@code deliveryState} (a member history, or nothing) was installed: both sides take it. */
    @Override
    public void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        delivered.install(deliveryState);
        protocolRuntime().skipTo(nextSequence, deliveryState);
    }

    private void registerMeters(MeterRegistry registry, Tags tags) {
        gauge(registry, tags, "parallax.ring.round", "the round this replica follows or leads (-1 before the first)", x -> x.round);
        gauge(registry, tags, "parallax.ring.coordinator", "1 while this replica coordinates its round", x -> x.leading);
        gauge(registry, tags, "parallax.ring.size", "members of the current ring", x -> x.size);
        gauge(registry, tags, "parallax.ring.position", "this replica's position on the ring, -1 off the ring", x -> x.position);
        gauge(registry, tags, "parallax.ring.window", "instances the coordinator may keep open (flow control)", x -> x.window);
        gauge(registry, tags, "parallax.ring.outstanding", "instances open and not yet decided", x -> x.outstanding);
        gauge(registry, tags, "parallax.ring.first.undecided", "the first instance this replica has not learned decided",
                x -> x.firstUndecided);
        gauge(registry, tags, "parallax.ring.logical.next",
                "the ring's logical next over the values this replica delivered (Multi-Ring skips; a lower bound after a restart)",
                x -> x.logicalNext);
        Gauge.builder("parallax.ring.learner.buffered", this, x -> x.learnerBuffered)
                .description("instances a learner holds ahead of its decided prefix").tags(tags).tag("unit", "instances")
                .register(registry);
        Gauge.builder("parallax.ring.learner.buffered", this, x -> x.learnerBufferedBytes)
                .description("bytes a learner holds ahead of its decided prefix").tags(tags).tag("unit", "bytes")
                .register(registry);
        gauge(registry, tags, "parallax.ring.version.floor",
                "the version a quorum of learners have reached: the log is trimmed no higher (seed 003 §3.3.7)", x -> x.versionFloor);
        FunctionCounter.builder("parallax.ring.reformations", this, x -> x.reformations)
                .description("rings this replica formed as coordinator after a member was excluded or rejoined").tags(tags)
                .register(registry);
        FunctionCounter.builder("parallax.protocol.stepdowns", this, x -> x.stepDowns)
                .description("rounds this replica gave up as coordinator").tags(tags).register(registry);
    }

    private void gauge(MeterRegistry registry, Tags tags, String meter, String description,
                       ToDoubleFunction<RingPaxosBroadcast> value) {
        Gauge.builder(meter, this, value).description(description).tags(tags).register(registry);
    }

    /** A builder; config, self, transport, log and clock are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every member proposes (seed 003 (Ring Paxos) §3.3.1): never a redirect. */
    @Override
    public int redirectHint() {
        return ANY_REPLICA;
    }

    /** The coordinator of the round this replica last saw, or -1 before start or before any round. */
    @Override
    public int leaderHint() {
        return coordinator;
    }

    /** The ring's member set in effect at this member, as last published by the protocol thread (any thread). */
    public Membership currentMembership() {
        return membership;
    }

    /**
     * The latest member set this member knows decided, in effect or still waiting for its effective
     * instance (as last published by the protocol thread; any thread): what a change's answer names.
     */
    public Membership decidedMembership() {
        Membership m = latestMembership;
        return m == null ? membership : m;
    }

    /**
     * Every membership request, a leadership transfer included, goes to the ring's admin
     * ({@link RuntimeMembershipAdmin}), which runs it on the protocol thread.
     */
    @Override
    public MembershipAdmin membershipAdmin() {
        return admin;
    }

    /**
     * Mutable builder, not thread-safe: the setters of {@link RuntimeBroadcast.BaseBuilder} — the
     * transport is that of every Ring Paxos message (for U-Ring one TCP channel; for M-Ring the TCP
     * channel and the datagram group joined by {@code Channels.union}, {@link RingPaxos#create}),
     * the log the acceptor's and learner's, the default name {@code uring} or {@code mring} — and
     * Ring Paxos' own.
     */
    public static final class Builder extends BaseBuilder<RingConfig, RingWire, Builder> {
        private RingPaxosCore.Observer observer = RingPaxosCore.Observer.NONE;
        private LongSupplier incarnationFloor = System::currentTimeMillis;
        private LongFunction<ByteBuffer> skipEncoder;
        private PaceShare pace;

        private Builder() {
            super(RingConfig::members);
        }

        @Override
        protected Builder thisBuilder() {
            return this;
        }

        /** The core's test hook; default {@link RingPaxosCore.Observer#NONE}. Called on the protocol thread. */
        public Builder observer(RingPaxosCore.Observer observer) {
            this.observer = Objects.requireNonNull(observer);
            return this;
        }

        /** The lowest incarnation a start may use; default the wall clock in milliseconds. */
        public Builder incarnationFloor(LongSupplier floor) {
            this.incarnationFloor = Objects.requireNonNull(floor);
            return this;
        }

        /**
         * Delivers a decided skip (Multi-Ring Paxos; {@code ring.lambda} &gt; 0) to the
         * {@code DeliveryListener} at its instance as {@code encoder.apply(upTo)}, its absolute
         * logical target ({@code next = max(next, upTo)}), so a multicast layer can put its own envelope kind on it;
         * default none: skips are not delivered, like no-ops. Called on the protocol thread; must
         * not block, must return a buffer no one mutates afterwards (null delivers nothing).
         */
        public Builder skipDelivery(LongFunction<ByteBuffer> encoder) {
            this.skipEncoder = Objects.requireNonNull(encoder, "encoder");
            return this;
        }

        /**
         * Shares this ring's pace lead ({@link RingPaxosCore#paceLead}) with the other rings of the
         * process that are given the same {@link PaceShare} (Multi-Ring Paxos, {@code ring.lambda}
         * &gt; 0): after every work cycle the protocol thread offers its lead and adopts the shared
         * one, so every ring follows the fastest coordinator clock any of them saw. Default none.
         */
        public Builder paceShare(PaceShare share) {
            this.pace = Objects.requireNonNull(share, "share");
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing or inconsistent */
        public RingPaxosBroadcast build() {
            return new RingPaxosBroadcast(parts(), observer, incarnationFloor, skipEncoder, pace);
        }
    }
}
