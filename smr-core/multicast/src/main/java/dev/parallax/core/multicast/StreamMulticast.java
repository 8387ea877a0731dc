package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

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
 * <p><b>Structure.</b> Group g is ordered in stream g by default; {@link StreamMulticastBuilder#groupStream} may
 * map several groups to one stream (Multi-Ring Paxos maps groups to rings, seed 003 §5.2). A
 * message to the groups of one stream is ordered in it, a message to groups of several streams in
 * the global stream. Each stream runs on a set of processes, by default every process
 * ({@link StreamMulticastBuilder#streamMembers}). A process is a member of the broadcasts of the streams it runs
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
 * forwards it to its leader). Each origin may have {@link StreamMulticastBuilder#credits} messages per stream
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
 * crashed proxy) makes the origin resend to the next member after {@link StreamMulticastBuilder#resendAfter}; the
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
 * {@link StreamMulticastBuilder#resendAfter}, then with exponential back-off. An accepted message is therefore
 * delivered while its origin is alive and the streams make progress; the contract's allowance
 * (loss when a leader crashes or changes) is needed only when the origin crashes too, or when this
 * process's stream continues from a snapshot while the message is outstanding (then it is not
 * resent, see {@code OriginOutbox}, and given up after {@link StreamMulticastBuilder#forgetAfter} unless seen
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
 * with {@link StreamMulticastBuilder#streamMembers} subsets). With
 * {@link SkipPolicy#NONE} the streams must skip by themselves: a decided skip reaches this layer
 * as a {@link #skipValue(long)} value, which under {@link Numbering#LOGICAL} moves the stream's
 * logical next up to its target.
 *
 * <p><b>Positions and history.</b> A position names the next index of every merged stream (group
 * streams and the global one) and, with {@link Numbering#LOGICAL}, the instance each stream's
 * delivery resumes from ({@link MulticastPosition#resumeStream}). Any such vector is a resume
 * point of the merge. Per stream this process keeps the last {@link StreamMulticastBuilder#retention} values,
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
 * {@link StreamMulticastBuilder#credits} messages per stream until they are decided (its own proposal queue holds
 * up to credits × members); the duplicate record is {@code OriginSequences.WINDOW} bits (128 bytes)
 * per stream and origin. A message not decided within {@link StreamMulticastBuilder#resendAfter} is sent again,
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
    private final DecidedStreams streams;
    private final OriginOutbox outbox;
    private final Sequencer sequencer;
    private final Transport<MulticastForward> transport;
    private final Clock clock;
    private final List<SubscriptionWorker> subscriptions = new CopyOnWriteArrayList<>();
    private final AtomicInteger subscriptionCount = new AtomicInteger();
    private final MulticastCounters counters;
    private final ForwardDesk forwards;
    private final Object lifecycle = new Object();
    /** By stream id, the stream's own delivery state a snapshot carried, for the stream's next install. */
    private final Map<Integer, byte[]> statesToInstall = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Set once by {@link StreamMulticastBuilder#build} before the streams start. */
    volatile List<Subscription> initial = List.of();

    StreamMulticast(StreamMulticastBuilder b) {
        this.self = b.self;
        this.members = b.members;
        this.groups = b.groups;
        this.transport = b.transport;
        this.clock = b.clock;
        this.layout = b.layout;
        this.ids = layout.ids();
        this.counters = new MulticastCounters(b.registry, self);
        this.streams = new DecidedStreams(ids, b.members, b.roundLength, b.retention, b.numbering);
        this.outbox = new OriginOutbox(self, ids.length, b.credits, b.firstSequence, b.resendAfter.toNanos(),
                b.forgetAfter.toNanos());
        this.broadcasts = new AtomicBroadcast[ids.length];
        int[][] proxies = new int[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            if (layout.runs(i)) {
                broadcasts[i] = Objects.requireNonNull(b.factory.create(ids[i]), "stream factory returned null");
            } else {
                proxies[i] = layout.members(i);
            }
        }
        this.sequencer = new Sequencer(self, ids, broadcasts, proxies, streams, transport, outbox, b.routing, b.skips,
                b.credits * b.members,
                b.roundLength, b.credits, b.period.toNanos(), b.forgetAfter.toNanos(), clock, counters.skips,
                counters.forgotten, counters.forwardsLost, counters.resends);
        this.forwards = new ForwardDesk(self, members, layout, transport, outbox, sequencer, counters, () -> closed);
    }

    /**
     * Whether every stream this process runs knows its leader or coordinator
     * ({@link AtomicBroadcast#leaderKnown()}); true if it runs none. Any thread, never blocks.
     */
    public boolean leadersKnown() {
        for (AtomicBroadcast b : broadcasts) {
            if (b != null && !b.leaderKnown()) {
                return false;
            }
        }
        return true;
    }

    /**
     * A builder; self, members, groups and streams are required, and a forward transport with
     * {@link Routing#LEADER}.
     */
    public static StreamMulticastBuilder builder() {
        return new StreamMulticastBuilder();
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
     * The (first) subscription {@link StreamMulticastBuilder#initialSubscription} opened before the streams
     * started, or null if none was asked for. Thread-safe.
     */
    public Subscription initialSubscription() {
        List<Subscription> l = initial;
        return l.isEmpty() ? null : l.get(0);
    }

    /**
     * Every subscription {@link StreamMulticastBuilder#initialSubscription} opened before the streams started, in
     * the order they were asked for (empty if none). Thread-safe.
     */
    public List<Subscription> initialSubscriptions() {
        return initial;
    }

    void start() {
        for (int i = 0; i < ids.length; i++) {
            int index = i;
            if (broadcasts[i] != null) {
                broadcasts[i].start((instance, value) -> onDecided(index, instance, value));
            }
        }
        if (transport != null) {
            transport.start(forwards::onForward);
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
            counters.unreadable.increment();
        }
        if (streams.decided(index, instance, e)) {
            counters.duplicates.increment();
        }
        if (e.origin() == self) {
            if (e.kind() == Envelope.Kind.MESSAGE) {
                outbox.decided(index, e.sequence());
            } else if (e.kind() == Envelope.Kind.SKIP) {
                sequencer.skipDecided(index);
            }
        } else if (e.kind() == Envelope.Kind.MESSAGE) {
            forwards.decided(index, e.origin(), e.sequence());
        }
        sequencer.wake();
    }

    @Override
    public GroupSet groups() {
        return groups;
    }

    /**
     * Whether this process may {@link #subscribe} to {@code target}: it runs the streams of all
     * its groups, and the global stream when there is one (every subscription merges it). True for
     * every offered set unless {@link StreamMulticastBuilder#streamMembers} left this process out of a stream.
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

    /**
     * Stream {@code stream}'s read-index ({@link AtomicBroadcast#readIndex}), if this process runs
     * it and its ordering serves reads. Any thread.
     */
    public java.util.Optional<dev.parallax.core.spi.ReadIndex> streamReads(int stream) {
        int index = layout.index(stream);
        return index >= 0 && broadcasts[index] != null ? broadcasts[index].readIndex() : java.util.Optional.empty();
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
            byte[] state = statesToInstall.remove(ids[p.index()]);
            if (state != null && state.length > 0) {
                broadcasts[p.index()].snapshotInstalled(p.instance(), state);
            } else {
                broadcasts[p.index()].snapshotInstalled(p.instance());
            }
        }
    }

    private void compact(List<DecidedStreams.StreamPoint> points) {
        for (DecidedStreams.StreamPoint p : points) {
            broadcasts[p.index()].snapshotTaken(p.instance());
        }
    }

    /**
     * By stream id, each stream's own delivery state ({@link AtomicBroadcast#deliveryState()}: a
     * ring's member history where its members change), for the streams run here that have one:
     * what a snapshot of the merge carries besides the position. Any thread.
     */
    public Map<Integer, byte[]> streamStates() {
        Map<Integer, byte[]> states = new java.util.TreeMap<>();
        for (int i = 0; i < ids.length; i++) {
            byte[] state = broadcasts[i] == null ? null : broadcasts[i].deliveryState();
            if (state != null && state.length > 0) {
                states.put(ids[i], state);
            }
        }
        return states;
    }

    /**
     * A snapshot's stream states ({@link #streamStates()}), handed to each stream with its next
     * install (when a subscription moves the stream to the snapshot's position). Any thread.
     */
    public void streamStatesToInstall(Map<Integer, byte[]> states) {
        statesToInstall.putAll(states);
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
}
