package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.spi.WorkerDeliveryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import java.util.function.ToLongFunction;

/**
 * A replica's total-order broadcast over an atomic multicast ({@link ConfiguredMulticast}: k group
 * streams and the global stream), every replica a member of every stream and subscribed to every
 * group with one subscription, whose merged sequence is delivered to the replica with consecutive
 * sequence numbers. Since every replica merges the same streams deterministically, every replica
 * delivers the same sequence: a total order, ordered by k + 1 streams in parallel. Multi-Ring Paxos
 * (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2, Alg. 1) and the reference multicast over
 * Multi-Paxos are ordered this way ({@link StreamOrdering} builds it from their plans).
 *
 * <p><b>Per worker</b> ({@link #startPerWorker}, P-SMR, ch. 6): one subscription per worker instead
 * ({@link WorkerDeliveries}), worker i's to its groups with the global stream merged in; see
 * {@link AtomicBroadcast#startPerWorker}.
 *
 * <p><b>Lanes</b> ({@link Lanes}): k + 1 (one with k = 1): lane i &lt; k proposes into stream i,
 * lane k into the global stream. The replica's batcher keeps a batch per lane ({@link #laneOf}),
 * so the streams are fed independently; one client's commands to one group set stay in one lane
 * and keep their order.
 *
 * <p><b>Positions in snapshots.</b> The merge position after the last delivered message is the
 * broadcast's {@link #deliveryState()} ({@link DeliveryState}), stored in the replica's snapshot;
 * {@link #snapshotInstalled(long, byte[])} resumes the subscription from it: before {@link #start}
 * (a restart from the local snapshot) the subscription starts there; after (a snapshot from a
 * peer) the subscription jumps there, and the messages still delivered before the jump (their
 * position not beyond the installed one) are dropped. The positions captured for snapshots are
 * kept ({@link CapturedPositions}) until {@link #snapshotTaken} names their sequence, which lets
 * the streams compact below them.
 *
 * <p><b>Threads.</b> {@link #propose}, {@link #readyForProposal}, {@link #laneOf},
 * {@link #redirectHint}, {@link #snapshotTaken} and {@link #snapshotInstalled} from any thread,
 * non-blocking; deliveries (and {@link #deliveryState}, called within one) on the subscriptions'
 * threads; {@link #start} (or {@link #startPerWorker}) and {@link #close} once each by the owner.
 */
public final class MulticastBroadcast implements AtomicBroadcast {
    private static final Logger LOG = LoggerFactory.getLogger(MulticastBroadcast.class);

    private final int self;
    private final GroupSet groups;
    /** The groups {@link #start} subscribes to (a subset of {@link #groups}). */
    private final GroupSet subscribed;
    private final Lanes lanes;
    private final MulticastFactory multicastFactory;
    private final Runnable closeUnstarted;
    private final CapturedPositions captured = new CapturedPositions();
    private final MergedReads reads = new MergedReads();
    private final List<AutoCloseable> closeAfter = new CopyOnWriteArrayList<>();
    /** The streams' member sets, when they change at run time (set once, before the broadcast is shared). */
    private volatile StreamsMembership membership;
    private volatile ConfiguredMulticast multicast;
    private volatile Subscription subscription;
    /** Per-worker mode: the workers' subscriptions. */
    private volatile WorkerDeliveries workers;
    private DeliveryListener listener;
    private boolean started;
    private boolean closed;
    /** Where the subscription starts (set by an install before start). */
    private MulticastPosition from = MulticastPosition.START;
    /** Per-worker positions installed before the start. */
    private DeliveryState fromWorkers;
    /** The streams' own delivery states of the snapshot installed before the start. */
    private java.util.Map<Integer, byte[]> fromStreams = java.util.Map.of();
    /** Delivery thread: the sequence number of the next delivery, and the position after the last one. */
    private volatile long next;
    private MulticastPosition current = MulticastPosition.START;
    /** An install from a peer's snapshot not yet reached by the delivery thread. */
    private final AtomicReference<Install> pending = new AtomicReference<>();

    private record Install(long next, MulticastPosition position) {
    }

    /**
     * The broadcast over {@code streams} group streams (and the global stream when there are
     * several): lane i proposes to the groups {@code streamOfGroup} maps to stream i.
     *
     * @param self             this replica's id
     * @param groups           the groups the multicast offers (every one subscribed)
     * @param streams          k, the group streams
     * @param streamOfGroup    the stream ordering each offered group, in {@code [0, streams)}
     * @param multicastFactory builds and starts the streams and the multicast, called once, by
     *                         {@link #start} or {@link #startPerWorker}
     * @param closeUnstarted   releases what the factory would have owned (transports, logs) when
     *                         the broadcast is closed without having been started
     * @throws IllegalArgumentException if {@code streams < 1} or a group maps outside the streams
     */
    public MulticastBroadcast(int self, GroupSet groups, int streams, IntUnaryOperator streamOfGroup,
                              MulticastFactory multicastFactory, Runnable closeUnstarted) {
        this(self, groups, groups, streams, streamOfGroup, multicastFactory, closeUnstarted);
    }

    /**
     * As {@link #MulticastBroadcast(int, GroupSet, int, IntUnaryOperator, MulticastFactory, Runnable)},
     * subscribing ({@link #start}) to {@code subscribed} only: a replica of one partition of a
     * partitioned service (seed 004 (S-SMR) §IV: partition p's servers deliver the commands
     * multicast to p) still proposes to every offered group.
     *
     * @throws IllegalArgumentException also if {@code subscribed} is not a subset of {@code groups}
     */
    public MulticastBroadcast(int self, GroupSet groups, GroupSet subscribed, int streams, IntUnaryOperator streamOfGroup,
                              MulticastFactory multicastFactory, Runnable closeUnstarted) {
        if ((subscribed.bits() & ~groups.bits()) != 0) {
            throw new IllegalArgumentException("subscribed groups " + subscribed + " are not all offered: " + groups);
        }
        this.subscribed = subscribed;
        this.self = self;
        this.multicastFactory = Objects.requireNonNull(multicastFactory, "multicastFactory");
        this.closeUnstarted = Objects.requireNonNull(closeUnstarted, "closeUnstarted");
        this.groups = Objects.requireNonNull(groups, "groups");
        this.lanes = new Lanes(groups, streams, streamOfGroup);
    }

    /**
     * Builds the streams and the multicast with this broadcast's subscriptions already open, so
     * that no stream's log replay runs ahead of them ({@code StreamMulticastBuilder.initialSubscription}).
     * Called once, by {@link #start} or {@link #startPerWorker}, on the thread that starts the
     * replica; may block while the streams start.
     */
    @FunctionalInterface
    public interface MulticastFactory {
        /**
         * @return a started multicast whose {@link ConfiguredMulticast#initialSubscriptions()} are
         *         {@code subscriptions}, in order (or none: then the broadcast subscribes itself,
         *         after the start)
         */
        ConfiguredMulticast open(List<InitialSubscription> subscriptions);
    }

    /**
     * A subscription to open before the streams start: its groups, its position, its listener, and
     * the streams' own delivery states of the snapshot it resumes from (by stream id; empty for none).
     */
    public record InitialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener,
                                      java.util.Map<Integer, byte[]> streamStates) {
        /** One that resumes from a snapshot without stream states (or from the start). */
        public InitialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener) {
            this(groups, from, listener, java.util.Map.of());
        }
    }

    private void checkStartable() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        if (closed) {
            throw new IllegalStateException("closed");
        }
    }

    @Override
    public synchronized void start(DeliveryListener listener) {
        checkStartable();
        started = true;
        this.listener = Objects.requireNonNull(listener, "listener");
        if (fromWorkers != null) {
            throw new IllegalArgumentException("the snapshot installed holds per-worker positions (taken with p-smr "
                    + "execution): start per worker");
        }
        current = from;
        multicast = multicastFactory.open(List.of(new InitialSubscription(subscribed, from, this::onDelivery, fromStreams)));
        Subscription initial = multicast.initialSubscription();
        if (initial == null) {
            multicast.streamStatesToInstall(fromStreams);
        }
        subscription = initial != null ? initial : multicast.subscribe(subscribed, from, this::onDelivery);
        reads.open(multicast, subscription, () -> next);
        LOG.info("replica {}: multicast ordering over {} streams starts at sequence {}, merge position {}", self,
                lanes.count(), next, from);
    }

    /** The multicast gives each worker a subscription of its own. */
    @Override
    public boolean deliversPerWorker() {
        return true;
    }

    /**
     * Opens one subscription per worker, before any stream starts: worker i's to the groups g with
     * bit i in {@code workersOf({g})} (the global stream is merged into each), each delivering on a
     * thread of its own (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.2: t_i subscribes to
     * {g_i, g_all}).
     */
    @Override
    public synchronized void startPerWorker(int workers, ToLongFunction<GroupSet> workersOf, WorkerDeliveryListener listener) {
        checkStartable();
        GroupSet[] of = WorkerDeliveries.workerGroups(groups, workers, workersOf);
        if (fromWorkers != null && fromWorkers.positions().length != workers) {
            throw new IllegalArgumentException("the snapshot installed holds the positions of " + fromWorkers.positions().length
                    + " workers; this replica runs " + workers);
        }
        if (fromWorkers == null && from != MulticastPosition.START) {
            throw new IllegalArgumentException("the snapshot installed holds one merge position (taken without p-smr "
                    + "execution): this replica cannot resume its workers from it");
        }
        Objects.requireNonNull(listener, "listener");
        started = true;
        reads.perWorker();
        WorkerDeliveries w = new WorkerDeliveries(self, of, listener, fromWorkers);
        multicast = multicastFactory.open(w.initial(fromStreams));
        if (multicast.initialSubscriptions().isEmpty()) {
            multicast.streamStatesToInstall(fromStreams);
        }
        w.open(multicast);
        this.workers = w;
        LOG.info("replica {}: multicast ordering over {} streams delivers per worker to {} workers (groups {}), at sequence {}",
                self, lanes.count(), workers, w.describe(), nextSequence());
    }

    /** The subscription's thread. */
    private void onDelivery(GroupSet to, ByteBuffer message, MulticastPosition after) throws InterruptedException {
        Install install;
        while ((install = pending.get()) != null) {
            if (!beyond(after, install.position)) {
                return; // before the installed snapshot: the replica's state covers it
            }
            if (pending.compareAndSet(install, null)) {
                next = install.next;
                break;
            }
        }
        long sequence = next;
        next = sequence + 1;
        current = after;
        listener.deliver(sequence, message);
        reads.progressed();
    }

    /** Whether {@code a} is past {@code b} in some stream (positions along one merge are ordered). */
    static boolean beyond(MulticastPosition a, MulticastPosition b) {
        for (int i = 0; i < a.streamCount(); i++) {
            int s = a.stream(i);
            if (a.next(s) > b.next(s)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean propose(ByteBuffer value) {
        return propose(0, value);
    }

    @Override
    public int lanes() {
        return lanes.count();
    }

    /**
     * Groups all ordered by stream i: lane i; anything else (groups of several streams, a group
     * not offered, no group): the global lane k (lane 0 with one stream).
     */
    @Override
    public int laneOf(GroupSet target) {
        return lanes.laneOf(target);
    }

    @Override
    public boolean propose(int lane, ByteBuffer value) {
        if (lane < 0 || lane >= lanes.count()) {
            throw new IllegalArgumentException("lane must be 0.." + (lanes.count() - 1) + ", got " + lane);
        }
        ConfiguredMulticast m = multicast;
        if (m == null || closed) {
            throw new IllegalStateException(closed ? "closed" : "not started");
        }
        return m.multicast(lanes.groups(lane), value);
    }

    /**
     * Read-index over the merge ({@link MergedReads}): every merged stream confirms a point, and the
     * read is answered once the merge passed them all. Unsupported per worker, or when a stream's
     * ordering serves no reads.
     */
    @Override
    public java.util.Optional<dev.parallax.core.spi.ReadIndex> readIndex() {
        return java.util.Optional.of(reads);
    }

    /** Every replica proposes into its own streams. */
    @Override
    public int redirectHint() {
        return ANY_REPLICA;
    }

    /** No single leader: every stream has a leader (or coordinator) of its own. */
    /** Set by {@link StreamOrdering} before it hands the broadcast out: the streams change their members. */
    void membership(StreamsMembership streams) {
        this.membership = Objects.requireNonNull(streams);
    }

    /** The streams' member sets ({@link StreamsMembership}) when the plan changes them, else empty. */
    @Override
    public java.util.Optional<dev.parallax.core.spi.MembershipAdmin> membership() {
        return java.util.Optional.ofNullable(membership);
    }

    @Override
    public int leaderHint() {
        return -1;
    }

    /** Every stream this replica runs knows its leader or coordinator; false before start. */
    @Override
    public boolean leaderKnown() {
        ConfiguredMulticast m = multicast;
        return m != null && m.leadersKnown();
    }

    /**
     * The merge position after the last delivery, with the multicast's duplicate record
     * ({@link Subscription#resumePosition}: without it a replica resuming here could deliver a
     * late copy the others drop, and number its deliveries differently), encoded as a
     * {@link DeliveryState}; per worker, every worker's.
     */
    @Override
    public byte[] deliveryState() {
        WorkerDeliveries w = workers;
        ConfiguredMulticast m = multicast;
        if (w != null) {
            return w.state(captured, m);
        }
        Subscription s = subscription;
        MulticastPosition p = s == null ? current : s.resumePosition(current);
        // The streams' states after the position: each stream delivered at least up to it.
        byte[] state = DeliveryState.encode(p, m == null ? java.util.Map.of() : m.streamStates());
        captured.capture(next, new MulticastPosition[] {p});
        return state;
    }

    @Override
    public void snapshotTaken(long nextSequence) {
        MulticastPosition[] at = captured.taken(nextSequence);
        if (at == null) {
            return;
        }
        WorkerDeliveries w = workers;
        if (w != null) {
            w.snapshotTaken(at);
            return;
        }
        Subscription s = subscription;
        if (s != null) {
            s.snapshotTaken(at[0]);
        }
    }

    /** Without the position a multicast broadcast cannot resume: logged and ignored. */
    @Override
    public void snapshotInstalled(long nextSequence) {
        LOG.warn("replica {}: snapshot at {} installed without a merge position; the multicast ignores it", self, nextSequence);
    }

    /**
     * Resumes the merge at the snapshot's position.
     *
     * @throws IllegalArgumentException if {@code deliveryState} is not a multicast position
     */
    @Override
    public synchronized void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        DeliveryState d = DeliveryState.decode(deliveryState);
        if (closed) {
            return;
        }
        if (!started) {
            fromStreams = d.streams();
            if (d.perWorker()) {
                fromWorkers = d;
                return;
            }
            fromWorkers = null;
            from = d.positions()[0];
            next = nextSequence;
            current = from;
            return;
        }
        multicast.streamStatesToInstall(d.streams());
        WorkerDeliveries w = workers;
        if (w != null) {
            w.move(multicast, d, captured);
            return;
        }
        if (d.perWorker()) {
            throw new IllegalArgumentException("the snapshot holds per-worker positions (taken with p-smr execution): "
                    + "this replica delivers one merge");
        }
        MulticastPosition p = d.positions()[0];
        pending.set(new Install(nextSequence, p));
        subscription.snapshotInstalled(p);
    }

    /**
     * The sequence number the next delivery takes (for snapshot requests); per worker, the sum of
     * the workers' next sequence numbers. Read from any thread.
     */
    public long nextSequence() {
        WorkerDeliveries w = workers;
        return w == null ? next : w.nextSequence();
    }

    /** The replica's own id. */
    public int self() {
        return self;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (multicast != null) {
            multicast.close();
        } else {
            closeUnstarted.run();
        }
        for (AutoCloseable c : closeAfter) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("replica {}: closing {} failed", self, c, e);
            }
        }
    }

    /** Closes {@code resource} after the streams (e.g. their own stage threads); before {@link #start}. */
    public void closeAfter(AutoCloseable resource) {
        closeAfter.add(Objects.requireNonNull(resource, "resource"));
    }
}
