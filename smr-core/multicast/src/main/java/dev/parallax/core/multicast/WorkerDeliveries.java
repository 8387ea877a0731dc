package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.spi.WorkerDeliveryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * A {@link MulticastBroadcast}'s per-worker delivery (P-SMR, seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 6 §6.2: worker t_i subscribes to {g_i, g_all}): one subscription per worker, worker
 * i's to its groups with the global stream merged in, each numbering its deliveries and tracking its
 * position; moved as a whole to an installed snapshot's positions.
 *
 * <p>Threads: each worker's fields are written by its subscription's thread; read by a worker at a
 * barrier (every stream then waits inside the barrier's delivery, after writing them) and by
 * snapshot requests. {@link #open}, {@link #move} and {@link #close} by the broadcast, under its
 * lock. Nothing blocks but the listener.
 */
final class WorkerDeliveries {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerDeliveries.class);

    private final int self;
    private final GroupSet[] workerGroups;
    private final WorkerDeliveryListener listener;
    /** The workers' streams, replaced as a whole by an install. */
    private volatile WorkerStream[] streams;

    /** Worker i's stream: its subscription, its delivery numbers and its position. */
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
            listener.deliver(worker, sequence, to, message);
        }
    }

    /**
     * The workers' streams over {@code workerGroups}, starting at {@code from}'s per-worker
     * positions, or at the start if null.
     */
    WorkerDeliveries(int self, GroupSet[] workerGroups, WorkerDeliveryListener listener, DeliveryState from) {
        this.self = self;
        this.workerGroups = workerGroups;
        this.listener = listener;
        WorkerStream[] s = new WorkerStream[workerGroups.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = from == null ? new WorkerStream(i, 0, MulticastPosition.START)
                    : new WorkerStream(i, from.nexts()[i], from.positions()[i]);
        }
        this.streams = s;
    }

    /**
     * Worker i's groups: the offered groups g with bit i in {@code workersOf({g})}.
     *
     * @throws IllegalArgumentException if {@code workers} is out of range, a group maps outside the
     *                                  workers, or a worker has no group
     */
    static GroupSet[] workerGroups(GroupSet groups, int workers, ToLongFunction<GroupSet> workersOf) {
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
        return of;
    }

    /** The subscriptions to open before the streams start, one per worker, in worker order. */
    List<MulticastBroadcast.InitialSubscription> initial(java.util.Map<Integer, byte[]> streamStates) {
        List<MulticastBroadcast.InitialSubscription> initial = new ArrayList<>();
        for (WorkerStream w : streams) {
            initial.add(new MulticastBroadcast.InitialSubscription(workerGroups[w.worker], w.current, w, streamStates));
        }
        return initial;
    }

    /** Takes the subscriptions {@code multicast} opened before its start, or opens them now. */
    void open(ConfiguredMulticast multicast) {
        WorkerStream[] s = streams;
        List<Subscription> opened = multicast.initialSubscriptions();
        for (int i = 0; i < s.length; i++) {
            s[i].subscription = opened.size() == s.length ? opened.get(i)
                    : multicast.subscribe(workerGroups[i], s[i].current, s[i]);
        }
    }

    /** The workers' groups, for logs. */
    String describe() {
        return Arrays.toString(workerGroups);
    }

    /** How many workers. */
    int workers() {
        return workerGroups.length;
    }

    /**
     * The delivery state (every worker waiting inside one barrier, so every stream stands at a
     * consistent cut), its positions captured in {@code captured} at the sum of the workers' next
     * sequences.
     */
    byte[] state(CapturedPositions captured, ConfiguredMulticast multicast) {
        WorkerStream[] s = streams;
        MulticastPosition[] positions = new MulticastPosition[s.length];
        long[] nexts = new long[s.length];
        long sum = 0;
        for (int i = 0; i < s.length; i++) {
            Subscription sub = s[i].subscription;
            positions[i] = sub == null ? s[i].current : sub.resumePosition(s[i].current);
            nexts[i] = s[i].next;
            sum += nexts[i];
        }
        byte[] state = DeliveryState.encode(nexts, positions, multicast == null ? java.util.Map.of() : multicast.streamStates());
        captured.capture(sum, positions);
        return state;
    }

    /** Lets each worker's streams compact below its position of a durable snapshot. */
    void snapshotTaken(MulticastPosition[] at) {
        WorkerStream[] s = streams;
        for (int i = 0; i < s.length && i < at.length; i++) {
            Subscription sub = s[i].subscription;
            if (sub != null) {
                sub.snapshotTaken(at[i]);
            }
        }
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
     *
     * @throws IllegalArgumentException if {@code d} is not of as many workers
     */
    void move(ConfiguredMulticast multicast, DeliveryState d, CapturedPositions captured) {
        WorkerStream[] old = streams;
        if (!d.perWorker() || d.positions().length != old.length) {
            throw new IllegalArgumentException("the snapshot holds " + (!d.perWorker() ? "one merge position (taken "
                    + "without p-smr execution)" : "the positions of " + d.positions().length + " workers") + "; this "
                    + "replica runs " + old.length + " workers");
        }
        captured.clear();
        close();
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
        streams = fresh;
    }

    /** The sum of the workers' next sequence numbers. Any thread. */
    long nextSequence() {
        long sum = 0;
        for (WorkerStream w : streams) {
            sum += w.next;
        }
        return sum;
    }

    /** Closes the workers' subscriptions. */
    void close() {
        for (WorkerStream w : streams) {
            Subscription s = w.subscription;
            if (s != null) {
                s.close();
            }
        }
    }
}
