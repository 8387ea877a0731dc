package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Multi-Ring Paxos as a replica's total-order broadcast (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5 §5.2, Alg. 1): a {@link RingMulticast} of k group rings and the global ring, every replica a
 * member of every ring and subscribed to every group with one subscription, whose merged sequence
 * is delivered to the replica with consecutive sequence numbers. Since every replica merges the
 * same rings deterministically, every replica delivers the same sequence: a total order, ordered by
 * k + 1 rings in parallel.
 *
 * <p><b>Lanes.</b> k + 1 lanes (one with k = 1): lane i &lt; k proposes into ring i (a batch of
 * commands to groups ordered by ring i alone: group i by default, or the groups the topology's
 * {@code multiring.group.<g>} maps to it), lane k into the global ring (commands to groups of
 * several rings, or to a group not offered). The replica's batcher keeps a batch per lane
 * ({@link #laneOf}), so the rings are fed independently; one client's commands to one group set
 * stay in one lane and keep their order.
 *
 * <p><b>Positions in snapshots.</b> The merge position after the last delivered message is the
 * broadcast's {@link #deliveryState()} (a version byte and the {@link MulticastPosition}), stored in
 * the replica's snapshot; {@link #snapshotInstalled(long, byte[])} resumes the subscription from it:
 * before {@link #start} (a restart from the local snapshot) the subscription starts there; after
 * (a snapshot from a peer) the subscription jumps there, and the messages still delivered before
 * the jump (their position not beyond the installed one) are dropped. The positions captured for
 * snapshots are kept (at most {@value #CAPTURED}) until {@link #snapshotTaken} names their
 * sequence, which lets the rings compact below them.
 *
 * <p><b>Threads.</b> {@link #propose}, {@link #readyForProposal}, {@link #laneOf},
 * {@link #redirectHint}, {@link #snapshotTaken} and {@link #snapshotInstalled} from any thread,
 * non-blocking; deliveries (and {@link #deliveryState}, called within one) on the subscription's
 * thread; {@link #start} and {@link #close} once each by the owner.
 */
public final class MultiRingBroadcast implements AtomicBroadcast {
    private static final Logger LOG = LoggerFactory.getLogger(MultiRingBroadcast.class);
    /** The positions captured for snapshots and not yet reported durable that are kept. */
    static final int CAPTURED = 16;
    /** The version byte of the delivery state. */
    static final byte STATE_VERSION = 2;

    private final int self;
    private final int rings;
    private final GroupSet groups;
    private final GroupSet[] laneGroups;
    /** Group g's ring (for offered groups), and each ring's groups as bits. */
    private final int[] groupRing;
    private final long[] ringGroupBits;
    private final MulticastFactory multicastFactory;
    private final Runnable closeUnstarted;
    private final ArrayDeque<Captured> captured = new ArrayDeque<>();
    private volatile RingMulticast multicast;
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

    private record Captured(long next, MulticastPosition position) {
    }

    /**
     * The broadcast over k rings, group g ordered by ring g (groups 0..k-1).
     *
     * @param self             this replica's id
     * @param rings            k, the group rings (groups 0..k-1)
     * @param multicastFactory builds and starts the rings and the multicast, called once, by {@link #start}
     * @param closeUnstarted   releases what the factory would have owned (transports, logs) when
     *                         the broadcast is closed without having been started
     */
    public MultiRingBroadcast(int self, int rings, Supplier<RingMulticast> multicastFactory, Runnable closeUnstarted) {
        this(self, identity(rings), opening(multicastFactory), closeUnstarted);
    }

    /**
     * The broadcast over the rings of {@code topology}: its groups (all subscribed), its group →
     * ring mapping for the lanes (lane i proposes to the groups of ring i).
     *
     * @param self             this replica's id
     * @param topology         the rings and the group → ring mapping (every replica runs every ring)
     * @param multicastFactory builds and starts the rings and the multicast, called once, by {@link #start}
     * @param closeUnstarted   releases what the factory would have owned (transports, logs) when
     *                         the broadcast is closed without having been started
     */
    public MultiRingBroadcast(int self, MultiRingTopology topology, Supplier<RingMulticast> multicastFactory,
                              Runnable closeUnstarted) {
        this(self, topology, opening(multicastFactory), closeUnstarted);
    }

    /**
     * Builds the rings and the multicast with this broadcast's subscription already open, so that
     * no ring's log replay runs ahead of it ({@code RingMulticast.Builder.initialSubscription}).
     * Called once, by {@link #start}, on the thread that starts the replica.
     */
    @FunctionalInterface
    public interface MulticastFactory {
        /**
         * @return a started multicast whose {@link RingMulticast#initialSubscription()} delivers
         *         {@code groups} from {@code from} to {@code listener} (or null: then the broadcast
         *         subscribes itself, after the start)
         */
        RingMulticast open(GroupSet groups, MulticastPosition from, MulticastListener listener);
    }

    /** A factory that builds the multicast without an initial subscription (the broadcast subscribes after). */
    private static MulticastFactory opening(Supplier<RingMulticast> factory) {
        Objects.requireNonNull(factory, "multicastFactory");
        return (groups, from, listener) -> factory.get();
    }

    /**
     * As {@link #MultiRingBroadcast(int, MultiRingTopology, Supplier, Runnable)}, with the
     * subscription opened by the factory before the rings start.
     */
    public MultiRingBroadcast(int self, MultiRingTopology topology, MulticastFactory multicastFactory,
                              Runnable closeUnstarted) {
        this.self = self;
        this.rings = topology.rings();
        this.multicastFactory = Objects.requireNonNull(multicastFactory, "multicastFactory");
        this.closeUnstarted = Objects.requireNonNull(closeUnstarted, "closeUnstarted");
        this.groups = topology.groups();
        this.groupRing = new int[GroupSet.MAX_GROUP + 1];
        this.laneGroups = new GroupSet[rings > 1 ? rings + 1 : 1];
        long[] ringBits = new long[rings];
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            groupRing[g] = topology.ringOf(g);
            ringBits[groupRing[g]] |= 1L << g;
        }
        this.ringGroupBits = ringBits;
        for (int i = 0; i < rings; i++) {
            laneGroups[i] = GroupSet.ofBits(ringBits[i]);
        }
        if (rings > 1) {
            laneGroups[rings] = groups;
        }
    }

    private static MultiRingTopology identity(int rings) {
        if (rings < 1 || rings > MultiRingConfig.MAX_RINGS) {
            throw new IllegalArgumentException("rings must be 1.." + MultiRingConfig.MAX_RINGS + ", got " + rings);
        }
        return MultiRingTopology.builder(1).rings(rings).build();
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
        current = from;
        multicast = multicastFactory.open(groups, from, this::onDelivery);
        Subscription initial = multicast.initialSubscription();
        subscription = initial != null ? initial : multicast.subscribe(groups, from, this::onDelivery);
        LOG.info("replica {}: multi-ring ordering over {} rings starts at sequence {}, merge position {}", self,
                laneGroups.length, next, from);
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
     * Groups all ordered by ring i: lane i; anything else (groups of several rings, a group not
     * offered, no group): the global lane k (lane 0 with one ring).
     */
    @Override
    public int laneOf(GroupSet target) {
        long bits = target.bits();
        if (bits == 0 || (bits & ~groups.bits()) != 0) {
            return laneGroups.length - 1;
        }
        int ring = groupRing[target.first()];
        return (bits & ~ringGroupBits[ring]) == 0 ? ring : laneGroups.length - 1;
    }

    @Override
    public boolean propose(int lane, ByteBuffer value) {
        if (lane < 0 || lane >= laneGroups.length) {
            throw new IllegalArgumentException("lane must be 0.." + (laneGroups.length - 1) + ", got " + lane);
        }
        RingMulticast m = multicast;
        if (m == null || closed) {
            throw new IllegalStateException(closed ? "closed" : "not started");
        }
        return m.multicast(laneGroups[lane], value);
    }

    /** Every replica proposes into its own rings. */
    @Override
    public int redirectHint() {
        return ANY_REPLICA;
    }

    /** No single leader: every ring has a coordinator of its own. */
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
        Subscription s = subscription;
        MulticastPosition p = s == null ? current : s.resumePosition(current);
        ByteBuffer b = ByteBuffer.allocate(1 + p.encodedSize());
        b.put(STATE_VERSION);
        p.writeTo(b);
        synchronized (captured) {
            if (captured.size() == CAPTURED) {
                captured.removeFirst();
            }
            captured.addLast(new Captured(next, p));
        }
        return b.array();
    }

    /**
     * Decodes a delivery state.
     *
     * @throws IllegalArgumentException if it is empty (a snapshot of another ordering protocol, or
     *                                  one written before delivery states) or malformed
     */
    static MulticastPosition position(byte[] state) {
        if (state.length == 0) {
            throw new IllegalArgumentException("the snapshot carries no multi-ring merge position (written by another "
                    + "ordering protocol?): multi-ring cannot resume its rings from it");
        }
        ByteBuffer b = ByteBuffer.wrap(state);
        byte version = b.get();
        if (version != STATE_VERSION) {
            throw new IllegalArgumentException("unknown multi-ring delivery state version " + version + " (this build "
                    + "reads " + STATE_VERSION + "; 1 was a development version without the duplicate record)");
        }
        MulticastPosition p = MulticastPosition.readFrom(b);
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the multi-ring merge position");
        }
        return p;
    }

    @Override
    public void snapshotTaken(long nextSequence) {
        MulticastPosition at = null;
        synchronized (captured) {
            while (!captured.isEmpty() && captured.peekFirst().next <= nextSequence) {
                Captured c = captured.removeFirst();
                if (c.next == nextSequence) {
                    at = c.position;
                }
            }
        }
        Subscription s = subscription;
        if (at != null && s != null) {
            s.snapshotTaken(at);
        }
    }

    /** Without the position a multi-ring broadcast cannot resume: logged and ignored. */
    @Override
    public void snapshotInstalled(long nextSequence) {
        LOG.warn("replica {}: snapshot at {} installed without a merge position; multi-ring ignores it", self, nextSequence);
    }

    /**
     * Resumes the merge at the snapshot's position.
     *
     * @throws IllegalArgumentException if {@code deliveryState} is not a multi-ring position
     */
    @Override
    public synchronized void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        MulticastPosition p = position(deliveryState);
        if (closed) {
            return;
        }
        if (!started) {
            from = p;
            next = nextSequence;
            current = p;
            return;
        }
        pending.set(new Install(nextSequence, p));
        subscription.snapshotInstalled(p);
    }

    /** The sequence number the next delivery takes (for snapshot requests); read from any thread. */
    public long nextSequence() {
        return next;
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

    /** Closes {@code resource} after the rings (e.g. the rings' own stage threads); before {@link #start}. */
    void closeAfter(AutoCloseable resource) {
        closeAfter.add(Objects.requireNonNull(resource, "resource"));
    }
}
