package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.ConfiguredMulticast;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.multicast.Numbering;
import dev.parallax.core.multicast.Routing;
import dev.parallax.core.multicast.SkipPolicy;
import dev.parallax.core.multicast.StreamMulticast;
import dev.parallax.core.multicast.StreamMulticastBuilder;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.EpochClock;
import dev.parallax.core.time.SystemClock;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxosBroadcast;
import dev.parallax.ringpaxos.RingWire;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1): an
 * {@link AtomicMulticast} in which every group is ordered by a Ring Paxos ring of its own (U-Ring
 * or M-Ring, per ring), multi-group messages by one more ring (the global ring,
 * {@link MulticastPosition#GLOBAL_STREAM}), and every subscription merges the rings of its groups
 * and the global ring on their logical sequences, M at a time, in increasing ring id.
 *
 * <p>A configuration of smr-core's {@link StreamMulticast} (which documents the merge, resends,
 * exactly-once delivery, positions, history and back-pressure):
 * <ul>
 *   <li>streams: one {@link RingPaxosBroadcast} per ring, built here with the caller's per-ring
 *       {@link RingConfig} settings, λ and Δ applied to every ring, an {@link EpochClock} (the
 *       skip target λ·⌊now / 1 ms⌋ / 1000 reads the epoch time, so rings line up), one
 *       {@link RingPaxosBroadcast.PaceShare} (a ring whose coordinator's clock runs ahead pulls the others along), and
 *       {@link StreamMulticast#skipValue} as the skip encoder (a decided SKIP(upTo) reaches the
 *       merge);</li>
 *   <li>{@link Routing#LOCAL}: every ring member proposes (§3.3.1), so a message is proposed to
 *       this process's own ring, no forwarding;</li>
 *   <li>{@link SkipPolicy#NONE}: each ring's coordinator skips at rate λ every Δ by itself (Alg. 1
 *       l.40-46), and caps client instances one interval ahead of the target (back-pressure
 *       instead of halting when λ is below the real rate: a refused proposal waits in the
 *       multicast's queue, and {@link #multicast} refuses once the origin's credits are used);</li>
 *   <li>{@link Numbering#LOGICAL}: a ring's values are numbered logically (client value +1,
 *       NOOP +0, SKIP(upTo): {@code next = max(next, upTo)}), the rule the ring cores count by;
 *       positions name per ring the logical next and the instance its delivery resumes from.</li>
 * </ul>
 *
 * <p><b>Membership</b> (seed 003 §5.2: learners join only the rings they need). Group g is
 * ordered by ring g unless {@link Builder#groupRing} maps it elsewhere. Each ring runs on a set of
 * processes, by default every process ({@link Builder#ringMembers}, {@link Builder#globalMembers},
 * or a {@link MultiRingTopology}); its {@link RingConfig} has n = its member count (1..31, odd or even; majority quorums),
 * every member an acceptor, learner and proposer. A process builds, starts and hears only the
 * rings it is a member of; it may subscribe to the groups whose rings it runs, if it also runs the
 * global ring ({@link #canSubscribe}; otherwise {@link #subscribe} throws
 * {@link IllegalArgumentException}); it may multicast to any group: a message for a ring it does
 * not run goes over the {@link Builder#forwardTransport} to a member of the ring, which proposes
 * it, and decided notices come back (see {@link StreamMulticast}, "Origins outside a stream").
 *
 * <p><b>Ring member ids.</b> A ring numbers its members 0..n-1: the ring's processes in increasing
 * id, rotated so that the rings' coordinators are not all one process — process {@code p} at
 * position k of the i-th ring's process list (rings in increasing stream id, the global ring
 * last) is member {@link #ringMember(int, int, int[]) (k + i) mod n}; with every process in every
 * ring that is {@link #ringMember(int, int, int) (p + i) mod n}, and a fresh ring's first
 * coordinator (member 0 of round 0) is a different process for each of the first n rings. The
 * caller's {@link RingTransports} are addressed by those member ids ({@link #ringProcess} maps one
 * back to its process).
 *
 * <p><b>Liveness.</b> With λ = 0 no ring skips: a subscription merging a ring without traffic
 * stops at it (the merge waits for that ring's next index). λ must exceed every ring's real rate
 * of client values (else the cap throttles the ring to λ).
 *
 * <p><b>Threads.</b> {@link #multicast}, {@link #subscribe} and {@link #groups} from any thread;
 * {@link #multicast} never blocks. {@link #close} once by the owner; it closes the rings and
 * leaves no thread running.
 */
public final class RingMulticast extends ConfiguredMulticast {
    /** Default λ: logical instances per second every ring's coordinator keeps its ring at. */
    public static final long DEFAULT_LAMBDA = 10_000;
    /** Default Δ: how often a coordinator checks whether a skip is due. */
    public static final Duration DEFAULT_SKIP_INTERVAL = Duration.ofMillis(5);

    private RingMulticast(StreamMulticast multicast) {
        super(multicast);
    }

    /** A builder; self, members, groups, transports and logs are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The member id process {@code process} has in the {@code ring}-th ring (rings numbered
     * 0, 1, ... in increasing stream id, the global ring last): {@code (process + ring) mod members}.
     *
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static int ringMember(int process, int ring, int members) {
        if (members <= 0 || process < 0 || process >= members || ring < 0) {
            throw new IllegalArgumentException("process " + process + " of " + members + ", ring " + ring);
        }
        return (int) ((process + (long) ring) % members);
    }

    /**
     * The member id process {@code process} has in the {@code ring}-th ring (rings numbered 0, 1,
     * ... in increasing stream id, the global ring last) whose processes are {@code processes}:
     * {@code (k + ring) mod n} where k is the process's position in the increasing process list.
     *
     * @throws IllegalArgumentException if {@code process} is not in {@code processes} or {@code ring} is negative
     */
    public static int ringMember(int process, int ring, int[] processes) {
        int[] sorted = processes.clone();
        java.util.Arrays.sort(sorted);
        int k = java.util.Arrays.binarySearch(sorted, process);
        if (k < 0 || ring < 0) {
            throw new IllegalArgumentException("process " + process + " is not a member of ring " + ring + " "
                    + java.util.Arrays.toString(sorted));
        }
        return (int) ((k + (long) ring) % sorted.length);
    }

    /**
     * The process that is member {@code member} of the {@code ring}-th ring whose processes are
     * {@code processes}: the inverse of {@link #ringMember(int, int, int[])}.
     *
     * @throws IllegalArgumentException if {@code member} is not 0..n-1 or {@code ring} is negative
     */
    public static int ringProcess(int member, int ring, int[] processes) {
        int n = processes.length;
        if (member < 0 || member >= n || ring < 0) {
            throw new IllegalArgumentException("member " + member + " of " + n + ", ring " + ring);
        }
        int[] sorted = processes.clone();
        java.util.Arrays.sort(sorted);
        return sorted[(int) Math.floorMod(member - (long) ring, (long) n)];
    }

    /**
     * Whether this process may subscribe to {@code groups}: it runs their rings and the global ring.
     *
     * @see StreamMulticast#canSubscribe
     */
    public boolean canSubscribe(GroupSet groups) {
        return multicast.canSubscribe(groups);
    }

    /** Whether this process runs ring {@code stream} (a ring's stream id, or {@link MulticastPosition#GLOBAL_STREAM}). */
    public boolean runsRing(int stream) {
        return multicast.runsStream(stream);
    }

    /**
     * One ring's broadcast as the merge needs it: member {@code member} of a ring with
     * {@code config}, delivering its decided skips as {@link StreamMulticast#skipValue} values.
     */
    static RingPaxosBroadcast ring(RingConfig config, int member, Transport<RingWire> transport, DurableLog log, Clock clock,
                                   RuntimeOptions options, RingPaxosBroadcast.PaceShare pace) {
        return RingPaxosBroadcast.builder().config(config).self(member).transport(transport).log(log).clock(clock)
                .options(options).skipDelivery(StreamMulticast::skipValue).paceShare(pace).build();
    }

    /** The transport of one ring's member: addressed by that ring's member ids. */
    @FunctionalInterface
    public interface RingTransports {
        /**
         * @param stream the ring's stream id: a group id or {@link MulticastPosition#GLOBAL_STREAM}
         * @param member this process's member id in that ring ({@link #ringMember(int, int, int[])})
         * @return a transport the ring owns and closes (for M-Ring, joined with its datagram group)
         */
        Transport<RingWire> transport(int stream, int member);
    }

    /** Mutable builder, not thread-safe; the multicast's defaults are {@link StreamMulticastBuilder}'s. */
    public static final class Builder {
        private final StreamMulticastBuilder b = StreamMulticast.builder().routing(Routing.LOCAL)
                .skips(SkipPolicy.NONE).numbering(Numbering.LOGICAL);
        private int self = -1;
        private int members;
        private GroupSet groups;
        private IntFunction<RingConfig.Builder> configs;
        private RingTransports transports;
        private IntFunction<DurableLog> logs;
        private IntFunction<RuntimeOptions> options;
        private long lambda = DEFAULT_LAMBDA;
        private Duration skipInterval = DEFAULT_SKIP_INTERVAL;
        private Clock ringClock;
        private MeterRegistry registry = new SimpleMeterRegistry();
        private final Map<Integer, int[]> ringMembers = new HashMap<>();
        private final Map<Integer, Integer> groupRings = new HashMap<>();

        private Builder() {
        }

        /** This process's id among the members (the origin id of its messages). */
        public Builder self(int self) {
            this.self = self;
            b.self(self);
            return this;
        }

        /**
         * How many processes there are (ids 0..members-1); every ring runs on all of them unless
         * {@link #ringMembers} says otherwise.
         */
        public Builder members(int members) {
            this.members = members;
            b.members(members);
            return this;
        }

        /** The groups offered (a ring each, and a global ring when there are several). */
        public Builder groups(GroupSet groups) {
            this.groups = groups;
            b.groups(groups);
            return this;
        }

        /**
         * Each ring's settings by stream id (its variant — U-Ring or M-Ring —, timeouts, M-Ring's
         * datagram group); λ and Δ are set here for every ring. Default: U-Ring with
         * {@link RingConfig}'s defaults.
         */
        public Builder rings(IntFunction<RingConfig.Builder> configs) {
            this.configs = Objects.requireNonNull(configs);
            return this;
        }

        /**
         * The processes that run ring {@code ring} (a ring's stream id; see {@link #groupRing}),
         * default every process. The ring's {@link RingConfig} must have n = their count.
         *
         * @see StreamMulticastBuilder#streamMembers
         */
        public Builder ringMembers(int ring, int... processes) {
            ringMembers.put(ring, processes.clone());
            b.streamMembers(ring, processes);
            return this;
        }

        /** The processes that run the global ring; default every process. */
        public Builder globalMembers(int... processes) {
            return ringMembers(MulticastPosition.GLOBAL_STREAM, processes);
        }

        /**
         * Orders group {@code group} in ring {@code ring} (a stream id 0..{@link GroupSet#MAX_GROUP});
         * default ring {@code group}.
         *
         * @see StreamMulticastBuilder#groupStream
         */
        public Builder groupRing(int group, int ring) {
            groupRings.put(group, ring);
            b.groupStream(group, ring);
            return this;
        }

        /**
         * Where this process's messages for rings it does not run travel, to a member of the ring
         * (and the members' decided notices back), addressed by process id; the multicast owns and
         * closes it. Required when this process is not a member of every ring; not used otherwise.
         */
        public Builder forwardTransport(Transport<MulticastForward> transport) {
            b.forwardTransport(Objects.requireNonNull(transport));
            return this;
        }

        /**
         * Takes the processes, groups, group → ring mapping, every ring's members and every ring's
         * {@link RingConfig} (kind, n, M-Ring datagram address: {@link MultiRingTopology#ringConfig})
         * from {@code topology}. A later {@link #rings} call replaces the configs (keep the
         * topology's kind, n and address by starting from {@code topology.ringConfig(stream)}).
         */
        public Builder topology(MultiRingTopology topology) {
            Objects.requireNonNull(topology);
            members(topology.processes());
            groups(topology.groups());
            for (int g = topology.groups().first(); g >= 0; g = topology.groups().next(g)) {
                groupRing(g, topology.ringOf(g));
            }
            for (int ring : topology.ringIds()) {
                ringMembers(ring, topology.members(ring));
            }
            return rings(topology::ringConfig);
        }

        /** Each ring member's transport. Required. */
        public Builder transports(RingTransports transports) {
            this.transports = Objects.requireNonNull(transports);
            return this;
        }

        /** Each ring's log by stream id (the ring owns and closes it). Required. */
        public Builder logs(IntFunction<DurableLog> logs) {
            this.logs = Objects.requireNonNull(logs);
            return this;
        }

        /**
         * Each ring's runtime options by stream id; default a runtime named {@code ring-<stream>}
         * on {@link #meterRegistry}.
         */
        public Builder options(IntFunction<RuntimeOptions> options) {
            this.options = Objects.requireNonNull(options);
            return this;
        }

        /** λ, logical instances per second of every ring; default {@value #DEFAULT_LAMBDA}; 0: no skips. */
        public Builder lambda(long instancesPerSecond) {
            this.lambda = instancesPerSecond;
            return this;
        }

        /** Δ, default 5 ms. */
        public Builder skipInterval(Duration d) {
            this.skipInterval = Objects.requireNonNull(d);
            return this;
        }

        /** M: logical indices the merge takes from each ring in turn; default 1. */
        public Builder roundLength(int m) {
            b.roundLength(m);
            return this;
        }

        /**
         * The rings' clock: must read nanoseconds since the Unix epoch (the skip target is a function
         * of it); default a new {@link EpochClock}. Tests may share one.
         */
        public Builder ringClock(Clock clock) {
            this.ringClock = Objects.requireNonNull(clock);
            return this;
        }

        /** The multicast's own clock (resends, expiry); default {@link SystemClock}. */
        public Builder clock(Clock clock) {
            b.clock(clock);
            return this;
        }

        /** Where the counters go (the multicast's, and the rings' by default); default a private simple registry. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry);
            b.meterRegistry(registry);
            return this;
        }

        /** See {@link StreamMulticastBuilder#credits}; default 64. */
        public Builder credits(int n) {
            b.credits(n);
            return this;
        }

        /** See {@link StreamMulticastBuilder#retention}; default 4096 values per ring (skips count). */
        public Builder retention(int n) {
            b.retention(n);
            return this;
        }

        /** See {@link StreamMulticastBuilder#resendAfter}; default 200 ms. */
        public Builder resendAfter(Duration d) {
            b.resendAfter(d);
            return this;
        }

        /** See {@link StreamMulticastBuilder#forgetAfter}; default 5 s. */
        public Builder forgetAfter(Duration d) {
            b.forgetAfter(d);
            return this;
        }

        /**
         * A subscription opened before any ring starts (see
         * {@code StreamMulticastBuilder.initialSubscription}): a replica resuming from its
         * snapshot's merge position opens it here, so no ring's log replay runs ahead of it.
         * {@link RingMulticast#initialSubscriptions()} returns them; each call adds one. Default none.
         */
        public Builder initialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener) {
            b.initialSubscription(groups, from, listener);
            return this;
        }

        /**
         * Builds the rings and starts them and the multicast.
         *
         * @throws IllegalArgumentException if a required part is missing or a value is out of range
         */
        public RingMulticast build() {
            if (groups == null || transports == null || logs == null) {
                throw new IllegalArgumentException("groups, transports and logs are required");
            }
            if (members <= 0 || self < 0 || self >= members) {
                throw new IllegalArgumentException("self must be 0.." + (members - 1) + " of " + members + " members, got "
                        + self);
            }
            // λ and Δ checked before any ring is built (a bad value must not leave rings half started).
            RingConfig.builder(1, Ring.Kind.U_RING).lambda(lambda).skipInterval(skipInterval);
            Clock clock = ringClock != null ? ringClock : new EpochClock();
            MeterRegistry meters = registry;
            IntFunction<RuntimeOptions> runtime = options != null ? options
                    : stream -> RuntimeOptions.builder().name("ring-" + stream).meterRegistry(meters).build();
            // Every config of a ring this process runs, checked before any ring is built too.
            java.util.TreeSet<Integer> rings = new java.util.TreeSet<>();
            for (int g = groups.first(); g >= 0; g = groups.next(g)) {
                rings.add(groupRings.getOrDefault(g, g));
            }
            if (rings.size() > 1) {
                rings.add(MulticastPosition.GLOBAL_STREAM);
            }
            Map<Integer, RingConfig> built = new HashMap<>();
            RingPaxosBroadcast.PaceShare pace = new RingPaxosBroadcast.PaceShare();   // one per process: its rings follow the fastest clock any saw
            Map<Integer, Integer> memberIds = new HashMap<>();
            int index = 0;
            for (int ring : rings) {
                int[] procs = ringMembers.get(ring);
                if (procs == null) {
                    procs = new int[members];
                    java.util.Arrays.setAll(procs, p -> p);
                }
                int ringIndex = index++;
                if (java.util.Arrays.stream(procs).noneMatch(p -> p == self)) {
                    continue; // not run here (StreamMulticast checks the member sets themselves)
                }
                RingConfig config;
                try {
                    config = (configs != null ? configs.apply(ring) : RingConfig.builder(procs.length, Ring.Kind.U_RING))
                            .lambda(lambda).skipInterval(skipInterval).build();
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("ring " + ring + " on processes " + java.util.Arrays.toString(procs)
                            + ": " + e.getMessage(), e);
                }
                if (config.members() != procs.length) {
                    throw new IllegalArgumentException("ring " + ring + " runs on " + procs.length + " processes "
                            + java.util.Arrays.toString(procs) + " but its config has n = " + config.members());
                }
                built.put(ring, config);
                memberIds.put(ring, ringMember(self, ringIndex, procs));
            }
            b.streams(stream -> {
                RingConfig config = built.get(stream);
                int member = memberIds.get(stream);
                return ring(config, member, transports.transport(stream, member), logs.apply(stream), clock,
                        runtime.apply(stream), pace);
            });
            return new RingMulticast(b.build());
        }
    }
}
