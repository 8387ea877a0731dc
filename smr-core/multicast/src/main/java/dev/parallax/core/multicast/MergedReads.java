package dev.parallax.core.multicast;

import dev.parallax.core.spi.ReadIndex;
import dev.parallax.core.spi.ReadListener;
import dev.parallax.core.spi.Subscription;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Read-index over a merge of streams ({@link MulticastBroadcast}; Multi-Ring Paxos, seed 003 (Ring
 * Paxos / Multi-Ring / P-SMR) ch. 5, is silent on reads): a read asks every stream its subscription
 * merges for a read point, each stream's own read-index (a ring's coordinator confirms its round),
 * and is answered once the merge passed every point ({@link DecidedStreams#whenPassed}), with the
 * merged sequence number at that moment.
 *
 * <p><b>Why it is linearizable.</b> A command that completed before the read arrived was decided
 * in one of the merged streams below that stream's point (each stream's read-index guarantees it),
 * so the merge delivered it before it passed the point, and before the answer: the query runs on a
 * state that holds it. Every stream the subscription merges is asked, the global one included, so
 * a command ordered by any of them is covered; asking only a key's stream would miss the commands
 * that reached the key through the global stream.
 *
 * <p>Unsupported (every read fails {@link ReadListener#UNSUPPORTED}, the client orders it) when a
 * merged stream serves no reads, or the broadcast delivers per worker (P-SMR): no single merge
 * position then says what a worker's state holds.
 *
 * <p>Threads: {@link #request} from any thread, never blocking; the streams' answers on their
 * protocol threads; the answer to the replica on the subscription's thread, between two
 * deliveries. {@link #open} once, on the thread that starts the broadcast.
 */
final class MergedReads implements ReadIndex {
    /** The streams merged, their read-indexes, the subscription, and the merged sequence delivered so far. */
    private record Opened(int[] streams, ReadIndex[] reads, SubscriptionWorker subscription, LongSupplier delivered) {
    }

    /** One read across the streams: the points known so far. Guarded by itself. */
    private static final class Pending {
        final long read;
        final Map<Integer, Long> points = new HashMap<>();
        int missing;
        boolean done;

        Pending(long read, int streams) {
            this.read = read;
            this.missing = streams;
        }
    }

    private record Part(Pending read, int stream) {
    }

    private volatile ReadListener listener;
    private volatile Opened opened;
    private volatile boolean unsupported;
    private volatile Runnable progress = () -> { };
    private final Map<Long, Part> parts = new ConcurrentHashMap<>();
    /** Part numbers start at random, so a restarted replica never takes a late answer meant for its previous run. */
    private final AtomicLong nextPart = new AtomicLong(ThreadLocalRandom.current().nextLong() >>> 2);

    @Override
    public void answers(ReadListener l) {
        this.listener = Objects.requireNonNull(l, "listener");
    }

    /**
     * The broadcast started with one subscription over {@code multicast}'s streams: reads may flow,
     * answered once {@code subscription} passed their points, at position {@code delivered}.
     */
    void open(ConfiguredMulticast multicast, Subscription subscription, LongSupplier delivered) {
        if (!(subscription instanceof SubscriptionWorker worker)) {
            unsupported = true;
            return;
        }
        int[] ids = worker.mergedStreams();
        ReadIndex[] reads = new ReadIndex[ids.length];
        for (int i = 0; i < ids.length; i++) {
            java.util.Optional<ReadIndex> r = multicast.streamReads(ids[i]);
            if (r.isEmpty()) {
                unsupported = true;
                return;
            }
            reads[i] = r.get();
        }
        for (int i = 0; i < ids.length; i++) {
            reads[i].answers(streamAnswers(ids[i]));
        }
        opened = new Opened(ids, reads, worker, delivered);
    }

    /** The broadcast delivers per worker: reads are not served. */
    void perWorker() {
        unsupported = true;
    }

    /** The merge delivered another message (subscription thread). */
    void progressed() {
        progress.run();
    }

    @Override
    public boolean request(long read) {
        ReadListener l = listener;
        if (l == null) {
            return false;
        }
        if (unsupported) {
            l.failed(read, ReadListener.UNSUPPORTED);
            return true;
        }
        Opened o = opened;
        if (o == null) {
            return false;
        }
        Pending p = new Pending(read, o.streams().length);
        for (int i = 0; i < o.streams().length; i++) {
            long part = nextPart.getAndIncrement();
            parts.put(part, new Part(p, o.streams()[i]));
            if (!o.reads()[i].request(part)) {
                parts.remove(part);
                synchronized (p) {
                    p.done = true; // the parts asked already are dropped when they answer
                }
                return false;
            }
        }
        return true;
    }

    @Override
    public long deliveredBelow() {
        Opened o = opened;
        return o == null ? 0 : o.delivered().getAsLong();
    }

    @Override
    public void onDelivered(Runnable p) {
        this.progress = Objects.requireNonNull(p, "progress");
    }

    /** The read part {@code part} belongs to, taken out of the parts asked; null if not asked (or answered). */
    private Pending taken(long part) {
        Part pt = parts.remove(part);
        return pt == null ? null : pt.read();
    }

    private ReadListener streamAnswers(int stream) {
        return new ReadListener() {
            @Override
            public void ready(long part, long position) {
                Pending p = taken(part);
                if (p == null) {
                    return;
                }
                synchronized (p) {
                    if (p.done) {
                        return;
                    }
                    p.points.put(stream, position);
                    if (--p.missing > 0) {
                        return;
                    }
                    p.done = true;
                }
                Opened o = opened;
                o.subscription().whenPassed(p.points, () -> listener.ready(p.read, o.delivered().getAsLong()));
            }

            @Override
            public void failed(long part, int leaderHint) {
                Pending p = taken(part);
                if (p == null) {
                    return;
                }
                synchronized (p) {
                    if (p.done) {
                        return;
                    }
                    p.done = true;
                }
                // A stream's leader hint names one of its members, not a replica the client can use.
                listener.failed(p.read, leaderHint == UNSUPPORTED ? UNSUPPORTED : NO_LEADER);
            }
        };
    }
}
