package dev.parallax.paxos.multicast;

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
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reference {@link AtomicMulticast}: every group is ordered by a Multi-Paxos instance of its
 * own, multi-group messages by one more instance (the "global" stream,
 * {@link MulticastPosition#GLOBAL_STREAM}, as Multi-Ring Paxos' global ring), and every
 * subscription merges the streams of its groups and the global stream deterministically, M
 * instances of each in turn, in increasing stream id (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1). It is a correctness baseline for the protocols that follow (Multi-Ring Paxos,
 * P-SMR, S-SMR), not a fast path.
 *
 * <p><b>Structure.</b> Every process is a member of every stream's broadcast (built by the
 * caller's {@link StreamFactory}; a {@code PaxosBroadcast} over its own transport and log) and
 * receives every stream's decisions into a bounded per-stream history ({@link DecidedStreams}).
 * Each subscription runs the merge on a thread of its own. A {@link Sequencer} thread feeds the
 * broadcasts.
 *
 * <p><b>Multicast from any process.</b> Multi-Paxos orders proposals at its leader only, so a
 * message goes to the stream's leader as this process knows it: into the local queue if it leads,
 * over the caller's {@link MulticastForward} transport otherwise (the receiver forwards again if
 * it no longer leads). Each origin may have {@link Builder#credits} messages per stream accepted
 * and not yet seen decided; {@link #multicast} refuses beyond that, and while no leader is known.
 * A message accepted while the stream's leader crashes or changes may be lost (as with
 * {@link AtomicBroadcast}); the origin gets its credits back after
 * {@link Builder#forgetAfter} without progress.
 *
 * <p><b>Idle streams.</b> A subscriber merging an idle stream with a busy one would wait forever;
 * the leader of each stream decides skip values to keep its stream level with the busiest one
 * (see {@link Sequencer}): demand-driven, so an idle system decides nothing.
 *
 * <p><b>Positions and history.</b> A position names the next instance of every merged stream
 * (group streams and the global one). Any such vector is a resume point of the merge. Per stream
 * this process keeps the last {@link Builder#retention} messages, dropping the oldest only once
 * no open subscription still needs it, so a subscription may start from any position at or above
 * what is kept. A subscription starting beyond everything decided here (a snapshot from a peer)
 * makes the stream's broadcast skip there ({@link AtomicBroadcast#snapshotInstalled});
 * {@link Subscription#snapshotTaken} lets a stream's broadcast compact below the lowest snapshot
 * of the open subscriptions merging it.
 *
 * <p><b>Cost.</b> Per process: three threads per stream (the broadcast's), one sequencer thread,
 * one thread per subscription; every process runs every stream, so each process receives every
 * message whatever it subscribes to (unlike Multi-Ring Paxos, which lets a learner join only the
 * rings it needs); a message to several groups is ordered once, on the global stream, which every
 * subscriber merges; skips add up to one instance per stream for each instance of the busiest
 * stream; a forwarded message costs one extra hop.
 *
 * <p><b>Threads.</b> {@link #multicast}, {@link #subscribe} and {@link #groups} from any thread;
 * {@link #multicast} never blocks. {@link #close} once by the owner: it closes the subscriptions,
 * stops the sequencer, closes the transport and the broadcasts, and leaves no thread running.
 */
public final class PaxosMulticast implements AtomicMulticast {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PaxosMulticast.class);
    private final int self;
    private final GroupSet groups;
    private final int[] ids;
    private final int[] indexOf = new int[MulticastPosition.GLOBAL_STREAM + 1];
    private final AtomicBroadcast[] broadcasts;
    private final DecidedStreams streams;
    private final OriginCredits credits;
    private final Sequencer sequencer;
    private final Transport<MulticastForward> transport;
    private final Clock clock;
    private final List<SubscriptionWorker> subscriptions = new CopyOnWriteArrayList<>();
    private final AtomicInteger subscriptionCount = new AtomicInteger();
    private final Counter forwardsDropped;
    private final Counter unreadable;
    private final Object lifecycle = new Object();
    private volatile boolean closed;

    private PaxosMulticast(Builder b) {
        this.self = b.self;
        this.groups = b.groups;
        this.transport = b.transport;
        this.clock = b.clock;
        java.util.Arrays.fill(indexOf, -1);
        int count = groups.size() + (groups.size() > 1 ? 1 : 0);
        this.ids = new int[count];
        int n = 0;
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            ids[n++] = g;
        }
        if (groups.size() > 1) {
            ids[n] = MulticastPosition.GLOBAL_STREAM;
        }
        for (int i = 0; i < ids.length; i++) {
            indexOf[ids[i]] = i;
        }
        String replica = Integer.toString(self);
        MeterRegistry registry = b.registry;
        this.forwardsDropped = Counter.builder("parallax.multicast.forwards.dropped")
                .description("forwarded messages dropped: the leader's queue was full or the stream unknown")
                .tag("replica", replica).register(registry);
        this.unreadable = Counter.builder("parallax.multicast.unreadable")
                .description("decided values that were not multicast envelopes (consumed as skips)")
                .tag("replica", replica).register(registry);
        Counter skips = Counter.builder("parallax.multicast.skips.proposed").tag("replica", replica).register(registry);
        Counter forgotten = Counter.builder("parallax.multicast.credits.forgotten")
                .description("accepted messages presumed lost on a leader change").tag("replica", replica)
                .register(registry);
        Counter lost = Counter.builder("parallax.multicast.forwards.lost")
                .description("forwards the transport refused").tag("replica", replica).register(registry);
        this.streams = new DecidedStreams(ids, b.roundLength, b.retention);
        this.credits = new OriginCredits(ids.length, b.credits, clock.nanoTime());
        this.broadcasts = new AtomicBroadcast[ids.length];
        for (int i = 0; i < ids.length; i++) {
            broadcasts[i] = Objects.requireNonNull(b.factory.create(ids[i]), "stream factory returned null");
        }
        this.sequencer = new Sequencer(self, ids, broadcasts, streams, transport, credits, b.credits * b.members,
                b.roundLength, b.credits, b.period.toNanos(), b.forgetAfter.toNanos(), clock, skips, forgotten, lost);
    }

    /** A builder; self, members, groups, streams and transport are required. */
    public static Builder builder() {
        return new Builder();
    }

    private void start() {
        for (int i = 0; i < ids.length; i++) {
            int index = i;
            broadcasts[i].start((instance, value) -> onDecided(index, instance, value));
        }
        transport.start(this::onForward);
        sequencer.start();
    }

    /** A stream's delivery thread. */
    private void onDecided(int index, long instance, ByteBuffer value) throws InterruptedException {
        Envelope e = Envelope.decode(value);
        if (e.kind() == Envelope.Kind.UNREADABLE) {
            unreadable.increment();
        }
        streams.decided(index, instance, e);
        if (e.origin() == self) {
            if (e.kind() == Envelope.Kind.MESSAGE) {
                credits.release(index, clock.nanoTime());
            } else if (e.kind() == Envelope.Kind.SKIP) {
                sequencer.skipDecided(index);
            }
        }
        sequencer.wake();
    }

    /** The forward transport's receiving thread. */
    private void onForward(int from, MulticastForward f) {
        int stream = f == null ? -1 : f.stream();
        int index = stream >= 0 && stream < indexOf.length ? indexOf[stream] : -1;
        if (index < 0 || f.envelope() == null || closed || !sequencer.offer(index, f.envelope())) {
            forwardsDropped.increment();
        }
    }

    @Override
    public GroupSet groups() {
        return groups;
    }

    /** The stream a message to {@code groups} is ordered in: its group's, or the global one. */
    private int streamOf(GroupSet target) {
        return target.size() == 1 ? target.first() : MulticastPosition.GLOBAL_STREAM;
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
        int index = indexOf[streamOf(target)];
        if (!credits.tryAcquire(index, clock.nanoTime())) {
            return false;
        }
        ByteBuffer envelope = Envelope.encodeMessage(self, target.bits(), message);
        int leader = broadcasts[index].leaderHint();
        boolean taken;
        if (leader == self) {
            taken = sequencer.offer(index, envelope);
        } else if (leader >= 0) {
            taken = transport.send(leader, new MulticastForward(ids[index], envelope));
        } else {
            taken = false;
        }
        if (!taken) {
            credits.undo(index);
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
            boolean[] merged = new boolean[ids.length];
            for (int g = target.first(); g >= 0; g = target.next(g)) {
                merged[indexOf[g]] = true;
            }
            if (ids.length > groups.size()) {
                merged[indexOf[MulticastPosition.GLOBAL_STREAM]] = true;
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
            LOG.info("replica {}: stream {} skips to instance {} (every subscription starts there)", self,
                    ids[p.index()], p.sequence());
            broadcasts[p.index()].snapshotInstalled(p.sequence());
        }
    }

    private void compact(List<DecidedStreams.StreamPoint> points) {
        for (DecidedStreams.StreamPoint p : points) {
            broadcasts[p.index()].snapshotTaken(p.sequence());
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
        transport.close();
        for (AtomicBroadcast b : broadcasts) {
            b.close();
        }
    }

    /** Mutable builder, not thread-safe. */
    public static final class Builder {
        private int self = -1;
        private int members;
        private GroupSet groups;
        private StreamFactory factory;
        private Transport<MulticastForward> transport;
        private Clock clock = SystemClock.INSTANCE;
        private MeterRegistry registry = new SimpleMeterRegistry();
        private int roundLength = 1;
        private int credits = 64;
        private int retention = 4096;
        private Duration period = Duration.ofMillis(1);
        private Duration forgetAfter = Duration.ofSeconds(5);

        private Builder() {
        }

        /** This process's member id, the same in every stream. */
        public Builder self(int self) {
            this.self = self;
            return this;
        }

        /** How many processes run the streams. */
        public Builder members(int members) {
            this.members = members;
            return this;
        }

        /** The groups offered. */
        public Builder groups(GroupSet groups) {
            this.groups = groups;
            return this;
        }

        /** Builds each stream's broadcast (one per group, and the global one when there are several groups). */
        public Builder streams(StreamFactory factory) {
            this.factory = factory;
            return this;
        }

        /** Where messages for another process's stream leader travel; the multicast owns and closes it. */
        public Builder forwardTransport(Transport<MulticastForward> transport) {
            this.transport = transport;
            return this;
        }

        /** Time for credit and skip expiry; default {@link SystemClock}. */
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

        /** Messages per stream an origin may have accepted and not yet seen decided; default 64. */
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

        /** After this long without progress, outstanding messages are presumed lost; default 5 s. */
        public Builder forgetAfter(Duration d) {
            this.forgetAfter = Objects.requireNonNull(d);
            return this;
        }

        /**
         * Builds the streams' broadcasts and starts them, the forward transport and the sequencer.
         *
         * @throws IllegalArgumentException if a required part is missing or a value is out of range
         */
        public PaxosMulticast build() {
            if (groups == null || factory == null || transport == null) {
                throw new IllegalArgumentException("groups, streams and forwardTransport are required");
            }
            if (members <= 0 || self < 0 || self >= members) {
                throw new IllegalArgumentException("self must be 0.." + (members - 1) + " of " + members + " members, got "
                        + self);
            }
            if (transport.localId() != self) {
                throw new IllegalArgumentException("forward transport is member " + transport.localId() + ", not " + self);
            }
            if (roundLength <= 0 || credits <= 0 || retention <= 0) {
                throw new IllegalArgumentException("roundLength, credits and retention must be positive");
            }
            if (period.isNegative() || period.isZero() || forgetAfter.isNegative() || forgetAfter.isZero()) {
                throw new IllegalArgumentException("period and forgetAfter must be positive");
            }
            PaxosMulticast m = new PaxosMulticast(this);
            m.start();
            return m;
        }
    }
}
