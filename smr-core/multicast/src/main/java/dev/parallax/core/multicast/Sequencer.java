package dev.parallax.core.multicast;

import dev.parallax.core.exec.Joins;

import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.Counter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread of one {@link StreamMulticast} process that feeds the streams' broadcasts:
 * <ul>
 *   <li>moves the messages waiting for a stream (multicast here, or forwarded by other processes)
 *       into the stream's broadcast while this process leads it, and forwards them to the leader
 *       it knows otherwise (Multi-Paxos orders proposals at the leader only); with
 *       {@link Routing#LOCAL} this process counts as every stream's leader;</li>
 *   <li>with {@link SkipPolicy#DEMAND}, keeps every stream it leads level with the busiest stream by deciding skip values: when
 *       the highest next instance decided in any stream, rounded up to a multiple of M, is above
 *       this stream's (counting the skips it has in flight), it proposes the difference as skips.
 *       A subscriber waiting on an idle stream therefore delivers within about one consensus
 *       round of the stream's leader learning of traffic elsewhere. Skips are demand-driven, not
 *       a rate λ per Δ as in seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1: an idle
 *       system decides nothing. The cost is up to one skip instance per stream for every instance
 *       of the busiest stream;</li>
 *   <li>resends this process's messages not seen decided in time to the stream's leader it knows
 *       ({@link OriginOutbox#due}: a forward the transport dropped, or a proposal lost with a
 *       leader that stepped down, is ordered after all; copies decided twice are dropped by
 *       {@link OriginSequences});</li>
 *   <li>gives up the messages {@link OriginOutbox#expire} says are lost, and the skip counts whose
 *       skips were presumed lost on a leader change.</li>
 * </ul>
 *
 * <p><b>Streams this process does not run</b> ({@code broadcasts[i] == null}): their messages go
 * over the forward transport to a member of the stream, its <em>proxy</em>, which proposes them
 * (or, with {@link Routing#LEADER}, forwards them on to its leader). The first proxy is member
 * {@code self mod size} of the stream's member list (origins spread over the members); every time
 * messages of the stream are due for a resend the proxy moves to the next member, so a crashed or
 * unreachable proxy is left behind after one resend interval.
 *
 * <p>Woken ({@link #wake}) by decisions, forwarded and local messages; otherwise parks for
 * {@code periodNanos}. {@link #offer} and {@link #wake} are thread-safe and never block.
 */
final class Sequencer {
    private final int self;
    private final int[] ids;
    private final AtomicBroadcast[] broadcasts;
    /** Per stream this process does not run, its members (process ids); null for the streams it runs. */
    private final int[][] proxies;
    /** Per stream this process does not run, the index in {@link #proxies} of the member it forwards to. */
    private final AtomicIntegerArray proxy;
    private final DecidedStreams streams;
    private final Transport<MulticastForward> transport;
    private final OriginOutbox outbox;
    private final boolean local;
    private final boolean demandSkips;
    private final List<ByteBuffer> due = new ArrayList<>();
    private final ArrayBlockingQueue<ByteBuffer>[] pending;
    private final AtomicIntegerArray skipsInFlight;
    private final AtomicLongArray skipProgress;
    private final int roundLength;
    private final int maxSkipsInFlight;
    private final long periodNanos;
    private final long forgetNanos;
    private final Clock clock;
    private final Counter skipsProposed;
    private final Counter forgotten;
    private final Counter forwardsLost;
    private final Counter resends;
    private final Thread thread;
    private volatile boolean stopped;

    /**
     * @param broadcasts per stream, this process's broadcast of it; null for a stream it does not run
     * @param proxies    per stream it does not run, the stream's members (process ids); null for the others
     * @param transport  where forwards go; may be null with {@link Routing#LOCAL} when this process
     *                   runs every stream (nothing is forwarded)
     */
    @SuppressWarnings("unchecked")
    Sequencer(int self, int[] ids, AtomicBroadcast[] broadcasts, int[][] proxies, DecidedStreams streams,
              Transport<MulticastForward> transport, OriginOutbox outbox, Routing routing, SkipPolicy skips,
              int pendingCapacity, int roundLength,
              int maxSkipsInFlight, long periodNanos, long forgetNanos, Clock clock,
              Counter skipsProposed, Counter forgotten, Counter forwardsLost, Counter resends) {
        this.self = self;
        this.ids = ids;
        this.broadcasts = broadcasts;
        this.proxies = proxies;
        this.proxy = new AtomicIntegerArray(ids.length);
        for (int i = 0; i < ids.length; i++) {
            if (broadcasts[i] == null) {
                proxy.set(i, Math.floorMod(self, proxies[i].length));
            }
        }
        this.streams = streams;
        this.transport = transport;
        this.outbox = outbox;
        this.local = routing == Routing.LOCAL;
        this.demandSkips = skips == SkipPolicy.DEMAND;
        this.pending = new ArrayBlockingQueue[ids.length];
        for (int i = 0; i < ids.length; i++) {
            pending[i] = new ArrayBlockingQueue<>(pendingCapacity);
        }
        this.skipsInFlight = new AtomicIntegerArray(ids.length);
        this.skipProgress = new AtomicLongArray(ids.length);
        this.roundLength = roundLength;
        this.maxSkipsInFlight = maxSkipsInFlight;
        this.periodNanos = periodNanos;
        this.forgetNanos = forgetNanos;
        this.clock = clock;
        this.skipsProposed = skipsProposed;
        this.forgotten = forgotten;
        this.forwardsLost = forwardsLost;
        this.resends = resends;
        this.thread = StageThreads.newThread("multicast-sequencer-" + self, true, this::run);
    }

    void start() {
        thread.start();
    }

    /** Queues an envelope for stream {@code index}; false when its queue is full. */
    boolean offer(int index, ByteBuffer envelope) {
        boolean taken = pending[index].offer(envelope);
        if (taken) {
            wake();
        }
        return taken;
    }

    void wake() {
        LockSupport.unpark(thread);
    }

    /** A skip this process proposed to stream {@code index} was decided. */
    void skipDecided(int index) {
        skipsInFlight.updateAndGet(index, n -> Math.max(0, n - 1));
        skipProgress.set(index, clock.nanoTime());
    }

    /** Stops the thread and waits for it. */
    void stop() {
        stopped = true;
        wake();
        Joins.joinUninterruptibly(thread);
    }

    private void run() {
        while (!stopped) {
            int work = 0;
            long now = clock.nanoTime();
            for (int i = 0; i < ids.length && !stopped; i++) {
                int leader = leader(i);
                work += drainPending(i, leader);
                if (leader == self && demandSkips) {
                    work += proposeSkips(i, now);
                }
                work += resend(i, leader, now);
                int lost = outbox.expire(i, now);
                if (lost > 0) {
                    forgotten.increment(lost);
                }
            }
            for (int i = 0; i < ids.length; i++) {
                if (skipsInFlight.get(i) > 0 && now - skipProgress.get(i) > forgetNanos) {
                    skipsInFlight.set(i, 0);
                    skipProgress.set(i, now);
                }
            }
            if (work == 0 && !stopped) {
                LockSupport.parkNanos(this, periodNanos);
            }
        }
    }

    /**
     * Where stream {@code i}'s proposals go now: its proxy if this process does not run it; else
     * this process with {@link Routing#LOCAL}, its leader otherwise (-1: none known).
     */
    int leader(int i) {
        if (broadcasts[i] == null) {
            int[] members = proxies[i];
            return members[Math.floorMod(proxy.get(i), members.length)];
        }
        return local ? self : broadcasts[i].leaderHint();
    }

    private int drainPending(int i, int leader) {
        int moved = 0;
        ByteBuffer head;
        while ((head = pending[i].peek()) != null) {
            if (leader == self) {
                if (!broadcasts[i].propose(head.duplicate())) {
                    break;
                }
            } else if (leader >= 0) {
                if (!transport.send(leader, new MulticastForward(ids[i], head))) {
                    forwardsLost.increment();
                }
            } else {
                break;
            }
            pending[i].poll();
            moved++;
        }
        return moved;
    }

    /** Resends this process's messages of stream {@code i} that are due, to {@code leader}. */
    private int resend(int i, int leader, long now) {
        if (leader < 0) {
            return 0; // no leader known: wait, the messages stay due
        }
        due.clear();
        int n = outbox.due(i, now, due);
        if (n > 0 && broadcasts[i] == null) {
            proxy.incrementAndGet(i); // not seen decided in time: try the stream's next member
            leader = leader(i);
        }
        for (ByteBuffer envelope : due) {
            if (leader == self) {
                pending[i].offer(envelope); // full: resent again after the back-off
            } else if (!transport.send(leader, new MulticastForward(ids[i], envelope.duplicate()))) {
                forwardsLost.increment();
            }
        }
        due.clear();
        if (n > 0) {
            resends.increment(n);
        }
        return n;
    }

    private int proposeSkips(int i, long now) {
        // In-flight first, then the decided counts: a skip decided in between is then counted at
        // most once (the delivery thread counts it decided before it leaves the in-flight count).
        int inFlight = skipsInFlight.get(i);
        long[] observed = streams.observed(i);
        long target = (observed[0] + roundLength - 1) / roundLength * roundLength;
        long deficit = target - observed[1] - inFlight;
        int proposed = 0;
        while (deficit > 0 && inFlight < maxSkipsInFlight && broadcasts[i].propose(Envelope.encodeSkip(self))) {
            if (inFlight == 0) {
                skipProgress.set(i, now);
            }
            inFlight = skipsInFlight.incrementAndGet(i);
            deficit--;
            proposed++;
        }
        if (proposed > 0) {
            skipsProposed.increment(proposed);
        }
        return proposed;
    }
}
