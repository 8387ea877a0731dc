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
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
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
 * <p><b>Per worker</b> ({@link #startPerWorker}, P-SMR, ch. 6): one subscription per worker instead,
 * worker i's to its groups with the global stream merged in; see {@link AtomicBroadcast#startPerWorker}.
 *
 * <p><b>Lanes.</b> k + 1 lanes (one with k = 1): lane i &lt; k proposes into stream i (a batch of
 * commands to groups ordered by stream i alone), lane k into the global stream (commands to groups
 * of several streams, or to a group not offered). The replica's batcher keeps a batch per lane
 * ({@link #laneOf}), so the streams are fed independently; one client's commands to one group set
 * stay in one lane and keep their order.
 *
 * <p><b>Positions in snapshots.</b> The merge position after the last delivered message is the
 * broadcast's {@link #deliveryState()} (a version byte and the {@link MulticastPosition}), stored in
 * the replica's snapshot; {@link #snapshotInstalled(long, byte[])} resumes the subscription from it:
 * before {@link #start} (a restart from the local snapshot) the subscription starts there; after
 * (a snapshot from a peer) the subscription jumps there, and the messages still delivered before
 * the jump (their position not beyond the installed one) are dropped. The positions captured for
 * snapshots are kept (at most {@value #CAPTURED}) until {@link #snapshotTaken} names their
 * sequence, which lets the streams compact below them.
 *
 * <p><b>Threads.</b> {@link #propose}, {@link #readyForProposal}, {@link #laneOf},
 * {@link #redirectHint}, {@link #snapshotTaken} and {@link #snapshotInstalled} from any thread,
 * non-blocking; deliveries (and {@link #deliveryState}, called within one) on the subscriptions'
 * threads; {@link #start} (or {@link #startPerWorker}) and {@link #close} once each by the owner.
 */
public final class MulticastBroadcast implements AtomicBroadcast {
    private static final Logger LOG = LoggerFactory.getLogger(MulticastBroadcast.class);
    /** The positions captured for snapshots and not yet reported durable that are kept. */
    static final int CAPTURED = 16;
    /** The version byte of the delivery state. */
    static final byte STATE_VERSION = 2;
    /** The version byte of a per-worker delivery state ({@link #startPerWorker}). */
    static final byte PER_WORKER_VERSION = 3;

    private final int self;
    private final int streams;
    private final GroupSet groups;
    /** The groups {@link #start} subscribes to (a subset of {@link #groups}). */
    private final GroupSet subscribed;
    private final GroupSet[] laneGroups;
    /** Group g's stream (for offered groups), and each stream's groups as bits. */
    private final int[] groupStream;
    private final long[] streamGroupBits;
    private final MulticastFactory multicastFactory;
    private final Runnable closeUnstarted;
    private final ArrayDeque<Captured> captured = new ArrayDeque<>();
    private volatile ConfiguredMulticast multicast;
    private volatile Subscription subscription;
    private final java.util.List<AutoCloseable> closeAfter = new java.util.concurrent.CopyOnWriteArrayList<>();
    private DeliveryListener listener;
    private boolean started;
    private boolean closed;
    /** Where the subscription starts (set by an install before start). */
    private MulticastPosition from = MulticastPosition.START;
    /** Delivery thread: the sequence number of the next delivery, and the position after the last one. */
    private volatile long next;
    private MulticastPosition current = MulticastPosition.START;
    /** An install from a peer's snapshot not yet reached by the delivery thread. */
    private final AtomicReference<Install> pending = new AtomicReference<>();

    private record Install(long next, MulticastPosition position) {
    }

    /** A snapshot's positions: one merge position, or (per worker) one per worker. */
    private record Captured(long next, MulticastPosition[] positions) {
    }

    /** A decoded delivery state: per-worker next sequences ({@code null} for one merge) and positions. */
    record DeliveryState(long[] nexts, MulticastPosition[] positions) {
    }

    /** Per-worker mode: the workers' streams (replaced as a whole by an install). */
    private volatile WorkerStream[] workerStreams;
    private GroupSet[] workerGroups;
    private WorkerDeliveryListener workerListener;
    /** Per-worker positions installed before the start. */
    private DeliveryState fromWorkers;

    /**
     * Worker i's stream: its subscription, its delivery numbers and its position. Its fields are
     * written by the subscription's thread; read by a worker at a barrier (every stream then
     * waits inside the barrier's delivery, after writing them) and by snapshot requests.
     */
    private final class WorkerStream implements MulticastListener {
        final int worker;
        volatile long next;
        volatile MulticastPosition current;
        volatile Subscription subscription;

        WorkerStream(int worker, long next, MulticastPosition current) {
            this.worker = worker;
            this.next = next;
            this.current = current;
        }

        @Override
        public void deliver(GroupSet to, ByteBuffer message, MulticastPosition after) throws InterruptedException {
            long sequence = next;
            next = sequence + 1;
            current = after;
            workerListener.deliver(worker, sequence, to, message);
        }
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
        if (streams < 1) {
            throw new IllegalArgumentException("streams must be >= 1, got " + streams);
        }
        this.self = self;
        this.streams = streams;
        this.multicastFactory = Objects.requireNonNull(multicastFactory, "multicastFactory");
        this.closeUnstarted = Objects.requireNonNull(closeUnstarted, "closeUnstarted");
        this.groups = Objects.requireNonNull(groups, "groups");
        this.groupStream = new int[GroupSet.MAX_GROUP + 1];
        this.laneGroups = new GroupSet[streams > 1 ? streams + 1 : 1];
        long[] streamBits = new long[streams];
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            int stream = streamOfGroup.applyAsInt(g);
            if (stream < 0 || stream >= streams) {
                throw new IllegalArgumentException("group " + g + " maps to stream " + stream + " of " + streams);
            }
            groupStream[g] = stream;
            streamBits[groupStream[g]] |= 1L << g;
        }
        this.streamGroupBits = streamBits;
        for (int i = 0; i < streams; i++) {
            laneGroups[i] = GroupSet.ofBits(streamBits[i]);
        }
        if (streams > 1) {
            laneGroups[streams] = groups;
        }
    }

    /**
     * Builds the streams and the multicast with this broadcast's subscriptions already open, so
     * that no stream's log replay runs ahead of them ({@code StreamMulticast.Builder.initialSubscription}).
     * Called once, by {@link #start} or {@link #startPerWorker}, on the thread that starts the
     * replica.
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

    /** A subscription to open before the streams start: its groups, its position, its listener. */
    public record InitialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener) {
    }

    @Override
    public synchronized void start(DeliveryListener listener) {
        if (started) {
            throw new IllegalStateException("already started");
        }
        if (closed) {
            throw new IllegalStateException("closed");
        }
        started = true;
        this.listener = Objects.requireNonNull(listener, "listener");
        if (fromWorkers != null) {
            throw new IllegalArgumentException("the snapshot installed holds per-worker positions (taken with p-smr "
                    + "execution): start per worker");
        }
        current = from;
        multicast = multicastFactory.open(List.of(new InitialSubscription(subscribed, from, this::onDelivery)));
        Subscription initial = multicast.initialSubscription();
        subscription = initial != null ? initial : multicast.subscribe(subscribed, from, this::onDelivery);
        LOG.info("replica {}: multicast ordering over {} streams starts at sequence {}, merge position {}", self,
                laneGroups.length, next, from);
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
        if (started) {
            throw new IllegalStateException("already started");
        }
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (workers < 1 || workers > GroupSet.MAX_GROUP + 1) {
            throw new IllegalArgumentException("workers must be 1.." + (GroupSet.MAX_GROUP + 1) + ", got " + workers);
        }
        long[] bits = new long[workers];
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            long mask = workersOf.applyAsLong(GroupSet.of(g));
            if (mask == 0 || (workers < 64 && (mask >>> workers) != 0)) {
                throw new IllegalArgumentException("group " + g + " maps to workers " + Long.toBinaryString(mask) + " of "
                        + workers);
            }
            for (long rest = mask; rest != 0; rest &= rest - 1) {
                bits[Long.numberOfTrailingZeros(rest)] |= 1L << g;
            }
        }
        GroupSet[] of = new GroupSet[workers];
        for (int i = 0; i < workers; i++) {
            if (bits[i] == 0) {
                throw new IllegalArgumentException("worker " + i + " of " + workers + " has none of the groups " + groups
                        + ": p-smr needs at least as many groups as workers");
            }
            of[i] = GroupSet.ofBits(bits[i]);
        }
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
        workerGroups = of;
        workerListener = listener;
        WorkerStream[] streams = new WorkerStream[workers];
        List<InitialSubscription> initial = new java.util.ArrayList<>();
        for (int i = 0; i < workers; i++) {
            streams[i] = fromWorkers == null ? new WorkerStream(i, 0, MulticastPosition.START)
                    : new WorkerStream(i, fromWorkers.nexts()[i], fromWorkers.positions()[i]);
            initial.add(new InitialSubscription(of[i], streams[i].current, streams[i]));
        }
        multicast = multicastFactory.open(initial);
        List<Subscription> opened = multicast.initialSubscriptions();
        for (int i = 0; i < workers; i++) {
            streams[i].subscription = opened.size() == workers ? opened.get(i)
                    : multicast.subscribe(of[i], streams[i].current, streams[i]);
        }
        workerStreams = streams;
        LOG.info("replica {}: multicast ordering over {} streams delivers per worker to {} workers (groups {}), at sequence {}",
                self, laneGroups.length, workers, java.util.Arrays.toString(of), nextSequence());
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
        return laneGroups.length;
    }

    /**
     * Groups all ordered by stream i: lane i; anything else (groups of several streams, a group
     * not offered, no group): the global lane k (lane 0 with one stream).
     */
    @Override
    public int laneOf(GroupSet target) {
        long bits = target.bits();
        if (bits == 0 || (bits & ~groups.bits()) != 0) {
            return laneGroups.length - 1;
        }
        int stream = groupStream[target.first()];
        return (bits & ~streamGroupBits[stream]) == 0 ? stream : laneGroups.length - 1;
    }

    @Override
    public boolean propose(int lane, ByteBuffer value) {
        if (lane < 0 || lane >= laneGroups.length) {
            throw new IllegalArgumentException("lane must be 0.." + (laneGroups.length - 1) + ", got " + lane);
        }
        ConfiguredMulticast m = multicast;
        if (m == null || closed) {
            throw new IllegalStateException(closed ? "closed" : "not started");
        }
        return m.multicast(laneGroups[lane], value);
    }

    /** Every replica proposes into its own streams. */
    @Override
    public int redirectHint() {
        return ANY_REPLICA;
    }

    /** No single leader: every stream has a leader (or coordinator) of its own. */
    @Override
    public int leaderHint() {
        return -1;
    }

    /**
     * The merge position after the last delivery, with the multicast's duplicate record
     * ({@link Subscription#resumePosition}: without it a replica resuming here could deliver a
     * late copy the others drop, and number its deliveries differently): a version byte, then the
     * position.
     */
    @Override
    public byte[] deliveryState() {
        WorkerStream[] streams = workerStreams;
        if (streams != null) {
            return perWorkerState(streams);
        }
        Subscription s = subscription;
        MulticastPosition p = s == null ? current : s.resumePosition(current);
        ByteBuffer b = ByteBuffer.allocate(1 + p.encodedSize());
        b.put(STATE_VERSION);
        p.writeTo(b);
        capture(next, new MulticastPosition[] {p});
        return b.array();
    }

    /**
     * Per worker (every worker waiting inside one barrier, so every stream stands at a consistent
     * cut): {@link #PER_WORKER_VERSION}, k, then per worker its next sequence and its resume position.
     */
    private byte[] perWorkerState(WorkerStream[] streams) {
        MulticastPosition[] positions = new MulticastPosition[streams.length];
        int size = 1 + 4;
        long sum = 0;
        for (int i = 0; i < streams.length; i++) {
            Subscription sub = streams[i].subscription;
            positions[i] = sub == null ? streams[i].current : sub.resumePosition(streams[i].current);
            size += 8 + positions[i].encodedSize();
            sum += streams[i].next;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(PER_WORKER_VERSION).putInt(streams.length);
        for (int i = 0; i < streams.length; i++) {
            b.putLong(streams[i].next);
            positions[i].writeTo(b);
        }
        capture(sum, positions);
        return b.array();
    }

    private void capture(long at, MulticastPosition[] positions) {
        synchronized (captured) {
            if (captured.size() == CAPTURED) {
                captured.removeFirst();
            }
            captured.addLast(new Captured(at, positions));
        }
    }

    /**
     * Decodes a delivery state of one merge ({@link #STATE_VERSION}).
     *
     * @throws IllegalArgumentException if it is empty (a snapshot of another ordering protocol, or
     *                                  one written before delivery states), per worker, or malformed
     */
    static MulticastPosition position(byte[] state) {
        DeliveryState d = decode(state);
        if (d.nexts() != null) {
            throw new IllegalArgumentException("the snapshot holds per-worker positions (taken with p-smr execution): "
                    + "this replica delivers one merge");
        }
        return d.positions()[0];
    }

    /**
     * Decodes a delivery state, of one merge or per worker.
     *
     * @throws IllegalArgumentException if it is empty (a snapshot of another ordering protocol, or
     *                                  one written before delivery states) or malformed
     */
    static DeliveryState decode(byte[] state) {
        if (state.length == 0) {
            throw new IllegalArgumentException("the snapshot carries no multicast merge position (written by another "
                    + "ordering protocol?): the multicast cannot resume its streams from it");
        }
        ByteBuffer b = ByteBuffer.wrap(state);
        byte version = b.get();
        DeliveryState d;
        if (version == STATE_VERSION) {
            d = new DeliveryState(null, new MulticastPosition[] {MulticastPosition.readFrom(b)});
        } else if (version == PER_WORKER_VERSION) {
            int k = b.getInt();
            if (k < 1 || k > GroupSet.MAX_GROUP + 1) {
                throw new IllegalArgumentException("a per-worker multicast delivery state of " + k + " workers");
            }
            long[] nexts = new long[k];
            MulticastPosition[] positions = new MulticastPosition[k];
            for (int i = 0; i < k; i++) {
                nexts[i] = b.getLong();
                if (nexts[i] < 0) {
                    throw new IllegalArgumentException("worker " + i + " resumes at a negative sequence " + nexts[i]);
                }
                positions[i] = MulticastPosition.readFrom(b);
            }
            d = new DeliveryState(nexts, positions);
        } else {
            throw new IllegalArgumentException("unknown multicast delivery state version " + version + " (this build "
                    + "reads " + STATE_VERSION + " and " + PER_WORKER_VERSION + "; 1 was a development version without the "
                    + "duplicate record)");
        }
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the multicast merge position");
        }
        return d;
    }

    @Override
    public void snapshotTaken(long nextSequence) {
        MulticastPosition[] at = null;
        synchronized (captured) {
            while (!captured.isEmpty() && captured.peekFirst().next <= nextSequence) {
                Captured c = captured.removeFirst();
                if (c.next == nextSequence) {
                    at = c.positions;
                }
            }
        }
        if (at == null) {
            return;
        }
        WorkerStream[] streams = workerStreams;
        if (streams != null) {
            for (int i = 0; i < streams.length && i < at.length; i++) {
                Subscription s = streams[i].subscription;
                if (s != null) {
                    s.snapshotTaken(at[i]);
                }
            }
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
        DeliveryState d = decode(deliveryState);
        if (closed) {
            return;
        }
        if (!started) {
            if (d.nexts() != null) {
                fromWorkers = d;
                return;
            }
            fromWorkers = null;
            from = d.positions()[0];
            next = nextSequence;
            current = from;
            return;
        }
        WorkerStream[] streams = workerStreams;
        if (streams != null) {
            moveWorkers(streams, d);
            return;
        }
        if (d.nexts() != null) {
            throw new IllegalArgumentException("the snapshot holds per-worker positions (taken with p-smr execution): "
                    + "this replica delivers one merge");
        }
        MulticastPosition p = d.positions()[0];
        pending.set(new Install(nextSequence, p));
        subscription.snapshotInstalled(p);
    }

    /**
     * Moves every worker's stream to an installed snapshot's position: closes the old
     * subscriptions (a delivery blocked in the listener is interrupted, and no message it held is
     * delivered), then opens the new ones there. The order matters: a stream skips ahead to where
     * its lowest open subscription stands, so the old subscriptions must be gone for the streams to
     * move to the snapshot's instances (a stream whose peers compacted below them would otherwise
     * wait for ever). If a new subscription cannot be opened (the history it needs is gone), every
     * stream stays closed: this replica stops delivering rather than resume its workers at
     * positions that do not match the installed state.
     */
    private void moveWorkers(WorkerStream[] old, DeliveryState d) {
        if (d.nexts() == null || d.positions().length != old.length) {
            throw new IllegalArgumentException("the snapshot holds " + (d.nexts() == null ? "one merge position (taken "
                    + "without p-smr execution)" : "the positions of " + d.positions().length + " workers") + "; this "
                    + "replica runs " + old.length + " workers");
        }
        synchronized (captured) {
            captured.clear();
        }
        closeStreams(old);
        WorkerStream[] fresh = new WorkerStream[old.length];
        try {
            for (int i = 0; i < old.length; i++) {
                fresh[i] = new WorkerStream(i, d.nexts()[i], d.positions()[i]);
                fresh[i].subscription = multicast.subscribe(workerGroups[i], d.positions()[i], fresh[i]);
            }
        } catch (RuntimeException e) {
            LOG.error("replica {}: cannot move the workers' streams to the installed snapshot; every stream stops", self, e);
            for (WorkerStream w : fresh) {
                if (w != null && w.subscription != null) {
                    w.subscription.close();
                }
            }
            throw e;
        }
        workerStreams = fresh;
    }

    private static void closeStreams(WorkerStream[] streams) {
        for (WorkerStream w : streams) {
            Subscription s = w.subscription;
            if (s != null) {
                s.close();
            }
        }
    }

    /**
     * The sequence number the next delivery takes (for snapshot requests); per worker, the sum of
     * the workers' next sequence numbers. Read from any thread.
     */
    public long nextSequence() {
        WorkerStream[] streams = workerStreams;
        if (streams == null) {
            return next;
        }
        long sum = 0;
        for (WorkerStream w : streams) {
            sum += w.next;
        }
        return sum;
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
