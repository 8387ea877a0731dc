package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * An {@link AtomicMulticast} over one {@link AtomicBroadcast} per stream: every group is ordered
 * by a broadcast of its own, multi-group messages by one more (the "global" stream,
 * {@link MulticastPosition#GLOBAL_STREAM}, as Multi-Ring Paxos' global ring), and every
 * subscription merges the streams of its groups and the global stream deterministically, M
 * indices of each in turn, in increasing stream id (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1). Protocol-independent: the protocol comes in through the {@link StreamFactory}
 * and three strategies,
 * <ul>
 *   <li>{@link Routing}: to the stream's leader (Multi-Paxos) or to the local broadcast (rings);</li>
 *   <li>{@link SkipPolicy}: demand-driven skips decided here (Multi-Paxos), or none (rings skip at
 *       rate λ by themselves);</li>
 *   <li>{@link Numbering}: the merge's index is the instance (Multi-Paxos), or a logical sequence
 *       per stream fed by the decided skips (Multi-Ring Paxos).</li>
 * </ul>
 * Multi-Paxos' configuration is {@code PaxosMulticast} (smr-paxos), Multi-Ring Paxos' is
 * {@code RingMulticast} (smr-ringpaxos).
 *
 * <p><b>Structure.</b> Group g is ordered in stream g by default; {@link Builder#groupStream} may
 * map several groups to one stream (Multi-Ring Paxos maps groups to rings, seed 003 §5.2). A
 * message to the groups of one stream is ordered in it, a message to groups of several streams in
 * the global stream. Each stream runs on a set of processes, by default every process
 * ({@link Builder#streamMembers}). A process is a member of the broadcasts of the streams it runs
 * (built by the caller's {@link StreamFactory}, for those streams only) and receives their
 * decisions into a bounded per-stream history ({@link DecidedStreams}); it never builds, starts or
 * hears the other streams (a learner joins only the rings it needs). Each subscription runs the
 * merge on a thread of its own. A {@code Sequencer} thread feeds the broadcasts.
 *
 * <p><b>Who may subscribe where.</b> A subscription merges the streams of its groups and the
 * global stream (if any), so a process may subscribe to a set of groups only if it runs all those
 * streams ({@link #canSubscribe}); otherwise {@link #subscribe} throws
 * {@link IllegalArgumentException}. Every process subscribing to a group delivers the same
 * sequence, as with full membership: the merge key (⌊index / M⌋, stream id) does not depend on
 * which streams a process runs.
 *
 * <p><b>Multicast from any process.</b> With {@link Routing#LEADER} a message goes to the
 * stream's leader as this process knows it: into the local queue if it leads, over the caller's
 * {@link MulticastForward} transport otherwise (the receiver forwards again if it no longer
 * leads); while no leader is known it is refused. With {@link Routing#LOCAL} it goes into the
 * local queue, from which the sequencer proposes it to this process's broadcast of the stream.
 * A message for a stream this process does not run goes over the forward transport to a member of
 * it (its proxy, see {@code Sequencer}), which handles it as its own routing says (proposes it, or
 * forwards it to its leader). Each origin may have {@link Builder#credits} messages per stream
 * accepted and not yet seen decided; {@link #multicast} refuses beyond that.
 *
 * <p><b>Origins outside a stream.</b> An origin that does not run a stream cannot see its
 * messages decided. The rule: a member of the stream that receives a forwarded message of an
 * origin outside the stream remembers that origin (one flag per stream and origin, never cleared),
 * and from then on, for every message of that origin it sees decided in the stream — a first
 * decision or a copy — sends the origin a decided notice {@code (origin, sequence)} over the
 * forward transport. The origin treats a notice as seeing the message decided: its credit returns
 * and it is not resent. Normally one member (the proxy) sends one notice per message; after a
 * proxy change, the old and the new proxy both do (duplicates are harmless). A lost notice (or a
 * crashed proxy) makes the origin resend to the next member after {@link Builder#resendAfter}; the
 * copy is decided, dropped as a copy by every subscriber ({@code OriginSequences}, fed at the
 * members, exactly as for an origin inside the stream), and noticed by the new proxy. Exactly-once
 * is thus unchanged: it is decided at the members by {@code (origin, sequence)}, whoever proposed
 * the copy.
 *
 * <p><b>No loss while the origin lives.</b> The forward transport is best effort (a replica port
 * drops what it sends to a peer not connected yet), and a proposal may die with a leader that
 * steps down (or a ring coordinator that fails). So the origin keeps each accepted message
 * ({@code OriginOutbox}, bounded by its credits) until it sees it decided — in the streams it runs
 * itself, or by a decided notice from a member — and resends it along its route after
 * {@link Builder#resendAfter}, then with exponential back-off. An accepted message is therefore
 * delivered while its origin is alive and the streams make progress; the contract's allowance
 * (loss when a leader crashes or changes) is needed only when the origin crashes too, or when this
 * process's stream continues from a snapshot while the message is outstanding (then it is not
 * resent, see {@code OriginOutbox}, and given up after {@link Builder#forgetAfter} unless seen
 * decided). Credits return when the message is seen decided.
 *
 * <p><b>Exactly once.</b> A resent message may be decided twice. Each envelope carries
 * {@code (origin, sequence)}; per stream and origin every process keeps a watermark and a window
 * of the sequence numbers above it that were decided ({@code OriginSequences}), fed with the
 * stream's decisions in order. A later copy takes its index as a gap. Every member of a stream
 * sees the same decisions, and every subscriber of a stream's groups is a member of it, so every
 * subscriber drops the same copies and delivers each message once, at the same position. A run
 * of a process numbers its messages from far above its previous run ({@link #SEQUENCE_RUN_SHIFT}).
 *
 * <p><b>Idle streams.</b> A subscriber merging an idle stream with a busy one would wait forever.
 * With {@link SkipPolicy#DEMAND} the leader of each stream decides skip values to keep its stream
 * level with the busiest one: demand-driven, so an idle system decides nothing (it sees only the
 * streams it runs, so demand skips need every process in every stream: the builder refuses them
 * with {@link Builder#streamMembers} subsets). With
 * {@link SkipPolicy#NONE} the streams must skip by themselves: a decided skip reaches this layer
 * as a {@link #skipValue(long)} value, which under {@link Numbering#LOGICAL} moves the stream's
 * logical next up to its target.
 *
 * <p><b>Positions and history.</b> A position names the next index of every merged stream (group
 * streams and the global one) and, with {@link Numbering#LOGICAL}, the instance each stream's
 * delivery resumes from ({@link MulticastPosition#resumeStream}). Any such vector is a resume
 * point of the merge. Per stream this process keeps the last {@link Builder#retention} values,
 * dropping the oldest only once no open subscription still needs it, so a subscription may start
 * from any position at or above what is kept. A subscription starting beyond everything decided
 * here (a snapshot from a peer) makes the stream's broadcast skip there
 * ({@link AtomicBroadcast#snapshotInstalled}, at the resume instance);
 * {@link Subscription#snapshotTaken} lets a stream's broadcast compact below the lowest snapshot
 * of the open subscriptions merging it.
 *
 * <p><b>Cost.</b> Per process: the broadcasts' threads, one sequencer thread, one thread per
 * subscription; a process receives every message of the streams it runs (all of them by default),
 * whatever it subscribes to; a message to several groups is ordered once, on the global stream, which every subscriber
 * merges; a forwarded message costs one extra hop, and one decided notice back when its origin
 * does not run the stream. Memory: the origin keeps up to
 * {@link Builder#credits} messages per stream until they are decided (its own proposal queue holds
 * up to credits × members); the duplicate record is {@code OriginSequences.WINDOW} bits (128 bytes)
 * per stream and origin. A message not decided within {@link Builder#resendAfter} is sent again,
 * and costs a second instance if both copies are decided.
 *
 * <p><b>Threads.</b> {@link #multicast}, {@link #subscribe} and {@link #groups} from any thread;
 * {@link #multicast} never blocks. {@link #close} once by the owner: it closes the subscriptions,
 * stops the sequencer, closes the transport and the broadcasts, and leaves no thread running.
 */
public final class StreamMulticast implements AtomicMulticast {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamMulticast.class);
    /**
     * A run of a process numbers its messages in each stream from its start time in milliseconds
     * shifted left by this: a later run starts above every number an earlier one used unless that
     * one multicast more than 2^20 messages to one stream per millisecond it ran.
     */
    public static final int SEQUENCE_RUN_SHIFT = 20;
    private final int self;
    private final int members;
    private final GroupSet groups;
    private final StreamLayout layout;
    private final int[] ids;
    /** Per stream, this process's broadcast; null for a stream it does not run. */
    private final AtomicBroadcast[] broadcasts;
    /** Per stream this process runs, the origins outside it that forwarded here (see "Origins outside a stream"). */
    private final AtomicIntegerArray[] noticeTo;
    private final DecidedStreams streams;
    private final OriginOutbox outbox;
    private final Sequencer sequencer;
    private final Transport<MulticastForward> transport;
    private final Clock clock;
    private final Routing routing;
    private final Numbering numbering;
    private final List<SubscriptionWorker> subscriptions = new CopyOnWriteArrayList<>();
    private final AtomicInteger subscriptionCount = new AtomicInteger();
    private final Counter forwardsDropped;
    private final Counter unreadable;
    private final Counter duplicates;
    private final Counter forgotten;
    private final Counter noticesLost;
    private final Object lifecycle = new Object();
    private volatile boolean closed;
    /** Set once by {@link Builder#build} before the streams start. */
    private volatile List<Subscription> initial = List.of();

    private StreamMulticast(Builder b) {
        this.self = b.self;
        this.members = b.members;
        this.groups = b.groups;
        this.transport = b.transport;
        this.clock = b.clock;
        this.routing = b.routing;
        this.numbering = b.numbering;
        this.layout = b.layout;
        this.ids = layout.ids();
        String replica = Integer.toString(self);
        MeterRegistry registry = b.registry;
        this.forwardsDropped = Counter.builder("parallax.multicast.forwards.dropped")
                .description("forwarded messages dropped: the leader's queue was full or the stream unknown")
                .tag("replica", replica).register(registry);
        this.unreadable = Counter.builder("parallax.multicast.unreadable")
                .description("decided values that were not multicast envelopes of a member (consumed as skips)")
                .tag("replica", replica).register(registry);
        this.duplicates = Counter.builder("parallax.multicast.duplicates")
                .description("decided copies of a message decided before (resent), consumed as skips")
                .tag("replica", replica).register(registry);
        this.forgotten = Counter.builder("parallax.multicast.forgotten")
                .description("this process's accepted messages given up: their stream continued from a snapshot here and "
                        + "they were not seen decided after it").tag("replica", replica).register(registry);
        Counter skips = Counter.builder("parallax.multicast.skips.proposed").tag("replica", replica).register(registry);
        Counter lost = Counter.builder("parallax.multicast.forwards.lost")
                .description("forwards the transport refused").tag("replica", replica).register(registry);
        Counter resends = Counter.builder("parallax.multicast.resends")
                .description("this process's messages resent to a stream's leader, not seen decided in time")
                .tag("replica", replica).register(registry);
        this.noticesLost = Counter.builder("parallax.multicast.notices.lost")
                .description("decided notices to origins outside a stream the forward transport refused (the origin "
                        + "resends, and the copy is noticed)").tag("replica", replica).register(registry);
        this.streams = new DecidedStreams(ids, b.members, b.roundLength, b.retention, b.numbering);
        this.outbox = new OriginOutbox(self, ids.length, b.credits, b.firstSequence, b.resendAfter.toNanos(),
                b.forgetAfter.toNanos());
        this.broadcasts = new AtomicBroadcast[ids.length];
        this.noticeTo = new AtomicIntegerArray[ids.length];
        int[][] proxies = new int[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            if (layout.runs(i)) {
                broadcasts[i] = Objects.requireNonNull(b.factory.create(ids[i]), "stream factory returned null");
                noticeTo[i] = new AtomicIntegerArray(members);
            } else {
                proxies[i] = layout.members(i);
            }
        }
        this.sequencer = new Sequencer(self, ids, broadcasts, proxies, streams, transport, outbox, b.routing, b.skips,
                b.credits * b.members,
                b.roundLength, b.credits, b.period.toNanos(), b.forgetAfter.toNanos(), clock, skips, forgotten, lost,
                resends);
    }

    /**
     * A builder; self, members, groups and streams are required, and a forward transport with
     * {@link Routing#LEADER}.
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The value a stream's broadcast delivers for a skip its protocol decided, up to logical index
     * {@code upTo} (exclusive): under {@link Numbering#LOGICAL} the stream's next index becomes at
     * least {@code upTo}; under {@link Numbering#INSTANCE} it is a gap at its instance. A ring
     * broadcast is given {@code StreamMulticast::skipValue} as its skip encoder. Thread-safe; a new
     * read-only buffer each call.
     *
     * @throws IllegalArgumentException if {@code upTo} is negative
     */
    public static ByteBuffer skipValue(long upTo) {
        return Envelope.encodeSkipTo(upTo);
    }

    /**
     * The (first) subscription {@link Builder#initialSubscription} opened before the streams
     * started, or null if none was asked for. Thread-safe.
     */
    public Subscription initialSubscription() {
        List<Subscription> l = initial;
        return l.isEmpty() ? null : l.get(0);
    }

    /**
     * Every subscription {@link Builder#initialSubscription} opened before the streams started, in
     * the order they were asked for (empty if none). Thread-safe.
     */
    public List<Subscription> initialSubscriptions() {
        return initial;
    }

    private void start() {
        for (int i = 0; i < ids.length; i++) {
            int index = i;
            if (broadcasts[i] != null) {
                broadcasts[i].start((instance, value) -> onDecided(index, instance, value));
            }
        }
        if (transport != null) {
            transport.start(this::onForward);
        }
        sequencer.start();
    }

    /** A stream's delivery thread. */
    private void onDecided(int index, long instance, ByteBuffer value) throws InterruptedException {
        Envelope e = Envelope.decode(value);
        if (e.kind() == Envelope.Kind.MESSAGE && (e.origin() < 0 || e.origin() >= members)) {
            e = Envelope.UNREADABLE;
        }
        if (e.kind() == Envelope.Kind.UNREADABLE) {
            unreadable.increment();
        }
        if (streams.decided(index, instance, e)) {
            duplicates.increment();
        }
        if (e.origin() == self) {
            if (e.kind() == Envelope.Kind.MESSAGE) {
                outbox.decided(index, e.sequence());
            } else if (e.kind() == Envelope.Kind.SKIP) {
                sequencer.skipDecided(index);
            }
        } else if (e.kind() == Envelope.Kind.MESSAGE && noticeTo[index].get(e.origin()) != 0) {
            notice(index, e.origin(), e.sequence());
        }
        sequencer.wake();
    }

    /**
     * Tells {@code origin} (outside the stream; it forwarded here, so a transport exists) that its
     * message {@code sequence} was decided in stream {@code index}. A notice not sent is counted:
     * the origin resends, and the copy is noticed.
     */
    private void notice(int index, int origin, long sequence) {
        boolean sent = false;
        if (!closed) {
            try {
                sent = transport.send(origin, new MulticastForward(ids[index], Envelope.encodeDecided(origin, sequence)));
            } catch (RuntimeException ex) {
                LOG.debug("replica {}: decided notice to {} not sent", self, origin, ex);
            }
        }
        if (!sent) {
            noticesLost.increment();
        }
    }

    /** The forward transport's receiving thread. */
    private void onForward(int from, MulticastForward f) {
        int index = f == null ? -1 : layout.index(f.stream());
        if (index < 0 || f.envelope() == null || closed) {
            forwardsDropped.increment();
            return;
        }
        long[] notice = Envelope.decidedNotice(f.envelope());
        if (notice != null) {
            if (notice[0] == self && !layout.runs(index)) {
                outbox.decided(index, notice[1]);
            } else {
                forwardsDropped.increment();
            }
            return;
        }
        int origin = Envelope.messageOrigin(f.envelope());
        if (origin >= 0 && origin < members && layout.runs(index) && !layout.isMember(index, origin)) {
            noticeTo[index].set(origin, 1); // this process tells that origin what it sees decided
        }
        if (!sequencer.offer(index, f.envelope())) {
            forwardsDropped.increment();
        }
    }

    @Override
    public GroupSet groups() {
        return groups;
    }

    /**
     * Whether this process may {@link #subscribe} to {@code target}: it runs the streams of all
     * its groups, and the global stream when there is one (every subscription merges it). True for
     * every offered set unless {@link Builder#streamMembers} left this process out of a stream.
     */
    public boolean canSubscribe(GroupSet target) {
        return (target.bits() & ~groups.bits()) == 0 && (target.bits() & ~layout.subscribable()) == 0;
    }

    /**
     * Whether this process runs stream {@code stream} (builds its broadcast and receives its
     * decisions); false also for an id that is not one of this multicast's streams.
     */
    public boolean runsStream(int stream) {
        int index = layout.index(stream);
        return index >= 0 && layout.runs(index);
    }

    private void checkOffered(GroupSet target) {
        Objects.requireNonNull(target, "groups");
        if ((target.bits() & ~groups.bits()) != 0) {
            throw new IllegalArgumentException("groups " + target + " are not all offered; this multicast offers " + groups);
        }
    }

    @Override
    public boolean multicast(GroupSet target, ByteBuffer message) {
        checkOffered(target);
        Objects.requireNonNull(message, "message");
        if (closed) {
            throw new IllegalStateException("closed");
        }
        int index = layout.indexFor(target);
        int leader = sequencer.leader(index);
        if (leader < 0) {
            return false;
        }
        OriginOutbox.Accepted a = outbox.accept(index, target.bits(), message, clock.nanoTime());
        if (a == null) {
            return false;
        }
        boolean taken = leader == self ? sequencer.offer(index, a.envelope())
                : transport.send(leader, new MulticastForward(ids[index], a.envelope().duplicate()));
        if (!taken) {
            outbox.remove(index, a.sequence());
        }
        return taken;
    }

    @Override
    public Subscription subscribe(GroupSet target, MulticastPosition from, MulticastListener listener) {
        checkOffered(target);
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(listener, "listener");
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            if (!canSubscribe(target)) {
                throw new IllegalArgumentException("process " + self + " does not run the streams of groups "
                        + StreamLayout.describe(target.bits() & ~layout.subscribable()) + " (or the global stream): it "
                        + "may subscribe only to groups among " + StreamLayout.describe(layout.subscribable()));
            }
            boolean[] merged = new boolean[ids.length];
            for (int g = target.first(); g >= 0; g = target.next(g)) {
                merged[layout.indexOfGroup(g)] = true;
            }
            if (layout.globalIndex() >= 0) {
                merged[layout.globalIndex()] = true;
            }
            MergeCursor cursor = new MergeCursor(target, merged);
            List<DecidedStreams.StreamPoint> installs = streams.open(cursor, from);
            SubscriptionWorker w = new SubscriptionWorker(
                    "multicast-subscription-" + self + "-" + subscriptionCount.incrementAndGet(), streams, cursor,
                    listener, this::install, this::compact, subscriptions::remove);
            subscriptions.add(w);
            install(installs);
            w.start();
            return w;
        }
    }

    private void install(List<DecidedStreams.StreamPoint> points) {
        for (DecidedStreams.StreamPoint p : points) {
            LOG.info("replica {}: stream {} skips to {} (instance {}; every subscription starts there); {} messages of "
                    + "this process no longer resent", self, ids[p.index()], p.sequence(), p.instance(),
                    outbox.outstanding(p.index()));
            outbox.uncertain(p.index(), clock.nanoTime());
            broadcasts[p.index()].snapshotInstalled(p.instance());
        }
    }

    private void compact(List<DecidedStreams.StreamPoint> points) {
        for (DecidedStreams.StreamPoint p : points) {
            broadcasts[p.index()].snapshotTaken(p.instance());
        }
    }

    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (SubscriptionWorker w : subscriptions) {
            w.close();
        }
        streams.close();
        sequencer.stop();
        if (transport != null) {
            transport.close();
        }
        for (AtomicBroadcast b : broadcasts) {
            if (b != null) {
                b.close();
            }
        }
    }

    /** Mutable builder, not thread-safe. */
    public static final class Builder {
        private int self = -1;
        private int members;
        private GroupSet groups;
        private StreamFactory factory;
        private Transport<MulticastForward> transport;
        private Routing routing = Routing.LEADER;
        private SkipPolicy skips = SkipPolicy.DEMAND;
        private Numbering numbering = Numbering.INSTANCE;
        private Clock clock = SystemClock.INSTANCE;
        private MeterRegistry registry = new SimpleMeterRegistry();
        private int roundLength = 1;
        private int credits = 64;
        private int retention = 4096;
        private Duration period = Duration.ofMillis(1);
        private Duration forgetAfter = Duration.ofSeconds(5);
        private Duration resendAfter = Duration.ofMillis(200);
        private long firstSequence = System.currentTimeMillis() << SEQUENCE_RUN_SHIFT;
        private final List<Initial> initialSubscriptions = new ArrayList<>();

        private record Initial(GroupSet groups, MulticastPosition from, MulticastListener listener) {
        }
        private final Map<Integer, Integer> groupStreams = new HashMap<>();
        private final Map<Integer, int[]> streamMembers = new HashMap<>();
        private StreamLayout layout;

        private Builder() {
        }

        /** This process's member id, the same in every stream. */
        public Builder self(int self) {
            this.self = self;
            return this;
        }

        /**
         * How many processes there are (ids 0..members-1, the origins of messages); each stream runs
         * on every one of them unless {@link #streamMembers} names its members.
         */
        public Builder members(int members) {
            this.members = members;
            return this;
        }

        /** The groups offered. */
        public Builder groups(GroupSet groups) {
            this.groups = groups;
            return this;
        }

        /**
         * The processes that run stream {@code stream} (a stream id of the offered groups, see
         * {@link #groupStream}, or {@link MulticastPosition#GLOBAL_STREAM}); default every process.
         * This process builds, starts and receives only the streams it is a member of, may subscribe
         * only to groups whose streams it runs (and the global stream), and forwards its messages
         * for another stream to a member of it (see the class comment). Replaces an earlier call
         * for the same stream.
         */
        public Builder streamMembers(int stream, int... processes) {
            streamMembers.put(stream, processes.clone());
            return this;
        }

        /**
         * Orders group {@code group}'s messages in stream {@code stream} (0..{@link
         * dev.parallax.core.GroupSet#MAX_GROUP}); default the group's own stream, id {@code group}.
         * Groups sharing a stream share its order; a message to groups of one stream only is ordered
         * in it, a message to groups of several in the global stream.
         */
        public Builder groupStream(int group, int stream) {
            groupStreams.put(group, stream);
            return this;
        }

        /**
         * Builds each stream's broadcast that this process runs (one per distinct stream of the
         * offered groups, and the global one when there are several).
         */
        public Builder streams(StreamFactory factory) {
            this.factory = factory;
            return this;
        }

        /**
         * Where messages for another process's stream leader, or for a stream this process does not
         * run, travel (and, for the latter, the members' decided notices back); the multicast owns
         * and closes it. Addressed by process id. Required with {@link Routing#LEADER} and when
         * this process does not run every stream; optional otherwise.
         */
        public Builder forwardTransport(Transport<MulticastForward> transport) {
            this.transport = transport;
            return this;
        }

        /** Where a message is proposed; default {@link Routing#LEADER}. */
        public Builder routing(Routing routing) {
            this.routing = Objects.requireNonNull(routing);
            return this;
        }

        /** Who decides skips for idle streams; default {@link SkipPolicy#DEMAND}. */
        public Builder skips(SkipPolicy skips) {
            this.skips = Objects.requireNonNull(skips);
            return this;
        }

        /** How the merge numbers a stream's values; default {@link Numbering#INSTANCE}. */
        public Builder numbering(Numbering numbering) {
            this.numbering = Objects.requireNonNull(numbering);
            return this;
        }

        /** Time for resends and skip expiry; default {@link SystemClock}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Where the multicast's counters go; default a private simple registry. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry);
            return this;
        }

        /** M: instances the merge takes from each stream in turn; default 1 (as the thesis' experiments). */
        public Builder roundLength(int m) {
            this.roundLength = m;
            return this;
        }

        /**
         * Messages per stream an origin may have accepted and not yet seen decided (kept for
         * resends meanwhile); default 64, at most {@code OriginSequences.WINDOW} (1024).
         */
        public Builder credits(int n) {
            this.credits = n;
            return this;
        }

        /** Messages per stream kept for subscriptions that start later or resume; default 4096. */
        public Builder retention(int n) {
            this.retention = n;
            return this;
        }

        /** How long the sequencer parks when nothing wakes it; default 1 ms. */
        public Builder period(Duration d) {
            this.period = Objects.requireNonNull(d);
            return this;
        }

        /**
         * The last resort, never used while the streams run from their start: after this long,
         * skips this process proposed as a leader and did not see decided are presumed lost (it
         * lost the leadership), and this process's messages still outstanding in a stream that
         * continued from a snapshot here are given up (counted in
         * {@code parallax.multicast.forgotten}); default 5 s.
         */
        public Builder forgetAfter(Duration d) {
            this.forgetAfter = Objects.requireNonNull(d);
            return this;
        }

        /**
         * How long this process waits to see a message it multicast decided before it resends it
         * to the stream's leader; each further resend waits twice as long as the one before, up to
         * 16 times this. Default 200 ms: well above a consensus round, so copies are rare (each
         * costs an instance, and is not delivered).
         */
        public Builder resendAfter(Duration d) {
            this.resendAfter = Objects.requireNonNull(d);
            return this;
        }

        /**
         * The first message number of every stream of this run; default the start time in
         * milliseconds shifted left by {@link StreamMulticast#SEQUENCE_RUN_SHIFT}. For tests.
         */
        /**
         * A subscription opened before the streams start ({@link #initialSubscription()}): its
         * position is in place before any stream replays its log or delivers, so no decision can
         * meet a bounded history that has no subscriber yet (a restarted replica resuming from its
         * snapshot's merge position: a replay longer than {@code retention} values would otherwise
         * drop what the subscription opened a moment later still needs). Each call adds one (P-SMR:
         * one per worker), opened in call order. Default none.
         */
        public Builder initialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener) {
            initialSubscriptions.add(new Initial(Objects.requireNonNull(groups, "groups"),
                    Objects.requireNonNull(from, "from"), Objects.requireNonNull(listener, "listener")));
            return this;
        }

        public Builder firstSequence(long n) {
            this.firstSequence = n;
            return this;
        }

        /**
         * Builds the streams' broadcasts and starts them, the forward transport (if any) and the
         * sequencer.
         *
         * @throws IllegalArgumentException if a required part is missing or a value is out of range
         */
        public StreamMulticast build() {
            if (groups == null || factory == null) {
                throw new IllegalArgumentException("groups and streams are required");
            }
            if (members <= 0 || self < 0 || self >= members) {
                throw new IllegalArgumentException("self must be 0.." + (members - 1) + " of " + members + " members, got "
                        + self);
            }
            layout = StreamLayout.of(self, members, groups, groupStreams, streamMembers);
            boolean runsAll = true;
            for (int i = 0; i < layout.count(); i++) {
                runsAll &= layout.runs(i);
            }
            if (transport == null && (routing == Routing.LEADER || !runsAll)) {
                throw new IllegalArgumentException("a forward transport is required with routing LEADER and when this "
                        + "process does not run every stream (routing " + routing + ", process " + self + ")");
            }
            if (skips == SkipPolicy.DEMAND && (routing != Routing.LEADER || numbering != Numbering.INSTANCE)) {
                throw new IllegalArgumentException("demand skips need routing LEADER and numbering INSTANCE");
            }
            if (skips == SkipPolicy.DEMAND && !layout.fullMembership()) {
                // A leader keeps its stream level with the busiest stream it runs: a stream it does
                // not run could leave subscribers merging both waiting.
                throw new IllegalArgumentException("demand skips need every process in every stream; streams over a "
                        + "subset of the processes need streams that skip by themselves (SkipPolicy.NONE, as rings at λ)");
            }
            if (transport != null && transport.localId() != self) {
                throw new IllegalArgumentException("forward transport is member " + transport.localId() + ", not " + self);
            }
            if (roundLength <= 0 || credits <= 0 || retention <= 0) {
                throw new IllegalArgumentException("roundLength, credits and retention must be positive");
            }
            if (credits > OriginSequences.WINDOW) {
                throw new IllegalArgumentException("credits must be at most " + OriginSequences.WINDOW + ", got " + credits);
            }
            if (period.isNegative() || period.isZero() || forgetAfter.isNegative() || forgetAfter.isZero()
                    || resendAfter.isNegative() || resendAfter.isZero()) {
                throw new IllegalArgumentException("period, forgetAfter and resendAfter must be positive");
            }
            if (firstSequence < 0) {
                throw new IllegalArgumentException("firstSequence must not be negative");
            }
            StreamMulticast m = new StreamMulticast(this);
            if (!initialSubscriptions.isEmpty()) {
                List<Subscription> opened = new ArrayList<>();
                try {
                    for (Initial i : initialSubscriptions) {
                        opened.add(m.subscribe(i.groups(), i.from(), i.listener()));
                    }
                } catch (RuntimeException e) {
                    m.close();
                    throw e;
                }
                m.initial = List.copyOf(opened);
            }
            m.start();
            return m;
        }
    }
}
