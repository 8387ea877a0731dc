package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link AtomicBroadcast} seen as a one-group {@link AtomicMulticast}: the only group is
 * {@link #GROUP} (0, the default group), the only stream is stream 0, and a position's
 * {@code next(0)} is the broadcast's next undelivered sequence. Code written against the multicast
 * SPI runs over any broadcast through this adapter.
 *
 * <p><b>Start.</b> The broadcast is started by the first {@link #subscribe}; {@link #multicast}
 * before it throws {@link IllegalStateException}, as {@link AtomicBroadcast#propose} does before
 * {@code start}.
 *
 * <p><b>Where to multicast.</b> {@link #multicast} is {@link AtomicBroadcast#propose}, so it keeps
 * the broadcast's rule about where values are ordered: Multi-Paxos orders proposals at its leader
 * only (see {@link #leaderHint()}); a value proposed elsewhere waits until that replica leads.
 *
 * <p><b>History.</b> The adapter keeps none: a subscription starts at the broadcast's next
 * undelivered sequence or later ({@link #subscribe} refuses an older position). A subscription
 * that starts later than the others skips what they still receive. When every open subscription
 * starts beyond what the broadcast delivered, the adapter tells the broadcast
 * ({@link AtomicBroadcast#snapshotInstalled}); {@link Subscription#snapshotTaken} reaches
 * {@link AtomicBroadcast#snapshotTaken} with the lowest snapshot point of the open subscriptions.
 *
 * <p><b>Threads.</b> Every subscription's listener is called on the broadcast's delivery thread,
 * one subscription after the other in subscription order: a listener that blocks holds up the
 * others, and back-pressure reaches the broadcast as if it were its own listener.
 * {@link Subscription#close} from another thread interrupts a listener blocked in {@code deliver}
 * and waits for it to return. Thread-safe otherwise.
 */
public final class BroadcastMulticast implements AtomicMulticast {
    /** The one group this adapter offers. */
    public static final int GROUP = 0;

    private static final GroupSet GROUPS = GroupSet.of(GROUP);

    private final AtomicBroadcast broadcast;
    private final List<Sub> subscriptions = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    /** The next sequence the broadcast has not delivered yet; written by the delivery thread. */
    private volatile long deliveredNext;
    /** The highest point handed to the broadcast by snapshotInstalled or snapshotTaken. */
    private long installedAt;
    private long compactedAt;
    private boolean started;
    private volatile boolean closed;

    /** Adapts {@code broadcast}, which must not be started; the adapter owns and closes it. */
    public BroadcastMulticast(AtomicBroadcast broadcast) {
        this.broadcast = Objects.requireNonNull(broadcast, "broadcast");
    }

    @Override
    public GroupSet groups() {
        return GROUPS;
    }

    /** The broadcast's leader hint: where {@link #multicast} should be called. */
    public int leaderHint() {
        return broadcast.leaderHint();
    }

    @Override
    public Subscription subscribe(GroupSet groups, MulticastPosition from, MulticastListener listener) {
        Objects.requireNonNull(listener, "listener");
        checkGroups(groups);
        long next = startOf(from);
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            if (next < deliveredNext) {
                throw new IllegalArgumentException("position " + from + " is older than the broadcast's next sequence "
                        + deliveredNext + ": the adapter keeps no history");
            }
            Sub s = new Sub(groups, listener, next);
            subscriptions.add(s);
            if (!started) {
                installIfAhead();
                broadcast.start(this::fanOut);
                started = true;
            } else {
                installIfAhead();
            }
            return s;
        }
    }

    @Override
    public boolean multicast(GroupSet groups, ByteBuffer message) {
        checkGroups(groups);
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (!started) {
            throw new IllegalStateException("not started: subscribe first");
        }
        return broadcast.propose(message.duplicate());
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (Sub s : subscriptions) {
            s.close();
        }
        broadcast.close();
    }

    private static void checkGroups(GroupSet groups) {
        if (!GROUPS.equals(groups)) {
            throw new IllegalArgumentException("a broadcast offers group " + GROUP + " only, not " + groups);
        }
    }

    private static long startOf(MulticastPosition from) {
        for (int i = 0; i < from.streamCount(); i++) {
            int stream = from.stream(i);
            if (stream != GROUP && from.next(stream) != 0) {
                throw new IllegalArgumentException("a broadcast has stream " + GROUP + " only, not " + from);
            }
        }
        return from.next(GROUP);
    }

    /** Under {@link #lock}: when every open subscription starts beyond the delivered point, the broadcast may skip there. */
    private void installIfAhead() {
        long min = Long.MAX_VALUE;
        for (Sub s : subscriptions) {
            if (!s.closed) {
                min = Math.min(min, s.next);
            }
        }
        if (min != Long.MAX_VALUE && min > deliveredNext && min > installedAt) {
            installedAt = min;
            broadcast.snapshotInstalled(min);
        }
    }

    /** Under {@link #lock}: the broadcast may forget below every open subscription's snapshot. */
    private void compact() {
        long min = Long.MAX_VALUE;
        for (Sub s : subscriptions) {
            if (!s.closed) {
                min = Math.min(min, s.snapshotAt);
            }
        }
        if (min != Long.MAX_VALUE && min > compactedAt) {
            compactedAt = min;
            broadcast.snapshotTaken(min);
        }
    }

    /** The broadcast's delivery thread. */
    private void fanOut(long sequence, ByteBuffer value) throws InterruptedException {
        deliveredNext = sequence + 1;
        MulticastPosition after = MulticastPosition.START.with(GROUP, sequence + 1);
        for (Sub s : subscriptions) {
            s.deliver(sequence, value, after);
        }
    }

    /** One subscription; its listener runs on the broadcast's delivery thread. */
    private final class Sub implements Subscription {
        private final GroupSet groups;
        private final MulticastListener listener;
        /** Guarded by this: the next sequence to deliver, the delivering thread, closed. */
        private long next;
        private long snapshotAt;
        private Thread delivering;
        private volatile boolean closed;

        Sub(GroupSet groups, MulticastListener listener, long next) {
            this.groups = groups;
            this.listener = listener;
            this.next = next;
            this.snapshotAt = next;
        }

        void deliver(long sequence, ByteBuffer value, MulticastPosition after) throws InterruptedException {
            synchronized (this) {
                if (closed || sequence < next) {
                    return;
                }
                next = sequence + 1;
                delivering = Thread.currentThread();
            }
            try {
                listener.deliver(GROUPS, value.duplicate(), after);
            } catch (InterruptedException e) {
                if (!closed) {
                    throw e; // not ours: the broadcast's thread is being stopped
                }
            } finally {
                synchronized (this) {
                    delivering = null;
                    if (closed) {
                        Thread.interrupted(); // an interrupt meant for this subscription only
                    }
                    notifyAll();
                }
            }
        }

        @Override
        public GroupSet groups() {
            return groups;
        }

        @Override
        public void snapshotTaken(MulticastPosition position) {
            long at = startOf(position);
            synchronized (lock) {
                synchronized (this) {
                    snapshotAt = Math.max(snapshotAt, at);
                }
                compact();
            }
        }

        @Override
        public void snapshotInstalled(MulticastPosition position) {
            long at = startOf(position);
            synchronized (lock) {
                synchronized (this) {
                    if (closed) {
                        throw new IllegalStateException("subscription closed");
                    }
                    long held = delivering == null ? deliveredNext : Math.min(deliveredNext, next);
                    if (at < held) {
                        throw new IllegalArgumentException("position " + position + " is older than the broadcast's next "
                                + "sequence " + held + ": the adapter keeps no history");
                    }
                    next = at;
                }
                installIfAhead();
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                if (delivering != null && delivering != Thread.currentThread()) {
                    delivering.interrupt();
                    boolean interrupted = false;
                    while (delivering != null) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            subscriptions.remove(this);
        }
    }
}
