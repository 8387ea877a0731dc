package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The batch bodies one replica holds, and per origin stream its own ack watermark: the highest sn
 * such that every sn up to it is held, or was executed here and dropped (seed 002 (S-Paxos)
 * §IV-C). Bodies record the instance they executed at, and {@link #dropExecutedBelow} drops those
 * a snapshot covers (garbage collection is local, never waiting for other replicas).
 *
 * <p>Dropped ids are remembered in an {@link ExecutedIds} (exact by its window argument: ids are
 * dropped in execution order), together with the executed ids of the last snapshot installed
 * ({@link #restore}), so a holder can tell "executed and dropped" ({@code BodyGone}) from "never
 * had it".
 *
 * <p>Not thread-safe: owned by {@link DisseminationCore}'s driver thread.
 */
final class BodyStore {
    private static final class Held {
        final ByteBuffer body;
        long executedAt = -1;

        Held(ByteBuffer body) {
            this.body = body;
        }
    }

    private static final class Prefix {
        long watermark;
        /** Held sns above the watermark. */
        final TreeSet<Long> above = new TreeSet<>();
    }

    private final HashMap<BatchId, Held> bodies = new HashMap<>();
    private final TreeMap<OriginStream, Prefix> prefixes = new TreeMap<>();
    private final ExecutedIds dropped = new ExecutedIds();
    /** What the last installed snapshot had executed (empty before any). */
    private ExecutedIds installed = new ExecutedIds();
    private long bytes;

    /** Whether the body of {@code id} is held. */
    boolean holds(BatchId id) {
        return bodies.containsKey(id);
    }

    /** Whether {@code id} was held and executed here and its body dropped (or a snapshot covers it). */
    boolean dropped(BatchId id) {
        return !bodies.containsKey(id) && id.sn() >= 1 && (dropped.executed(id) || installed.executed(id));
    }

    /** Whether the body is held or was dropped after execution: a FORWARD of it brings nothing. */
    boolean known(BatchId id) {
        return holds(id) || dropped(id);
    }

    /** A read-only view of the body of {@code id}, or null. */
    ByteBuffer body(BatchId id) {
        Held h = bodies.get(id);
        return h == null ? null : h.body.duplicate();
    }

    /**
     * Holds {@code body} as the body of {@code id} (not copied; the caller gives up the bytes).
     *
     * @return whether the stream's watermark rose
     */
    boolean add(BatchId id, ByteBuffer body) {
        if (known(id)) {
            return false;
        }
        ByteBuffer view = body.slice().asReadOnlyBuffer();
        bodies.put(id, new Held(view));
        bytes += view.remaining();
        Prefix p = prefixes.computeIfAbsent(OriginStream.of(id), s -> new Prefix());
        if (id.sn() > p.watermark) {
            p.above.add(id.sn());
        }
        return advance(OriginStream.of(id), p);
    }

    /** The stream's watermark (0: nothing). */
    long watermark(OriginStream s) {
        Prefix p = prefixes.get(s);
        return p == null ? 0 : p.watermark;
    }

    /** The lowest held sn above the stream's watermark, or {@code Long.MAX_VALUE}. */
    long nextHeldAbove(OriginStream s) {
        Prefix p = prefixes.get(s);
        return p == null || p.above.isEmpty() ? Long.MAX_VALUE : p.above.first();
    }

    /** Calls {@code sink} for every stream with a positive watermark, in (origin, incarnation) order. */
    void forEachWatermark(ExecutedIds.StreamConsumer sink) {
        for (Map.Entry<OriginStream, Prefix> e : prefixes.entrySet()) {
            if (e.getValue().watermark > 0) {
                sink.accept(e.getKey().origin(), e.getKey().incarnation(), e.getValue().watermark);
            }
        }
    }

    /** Records that {@code id} executed at {@code instance} (no effect when not held). */
    void executed(BatchId id, long instance) {
        Held h = bodies.get(id);
        if (h != null && h.executedAt < 0) {
            h.executedAt = instance;
        }
    }

    /**
     * Drops every body that executed below {@code instance}.
     *
     * @return the dropped ids, in (origin, incarnation, sn) order
     */
    List<BatchId> dropExecutedBelow(long instance) {
        List<BatchId> gone = new ArrayList<>();
        for (Map.Entry<BatchId, Held> e : bodies.entrySet()) {
            if (e.getValue().executedAt >= 0 && e.getValue().executedAt < instance) {
                gone.add(e.getKey());
            }
        }
        gone.sort(null);
        // Mark in execution order so that the dropped record's window opens at the earliest.
        List<BatchId> byExecution = new ArrayList<>(gone);
        byExecution.sort((a, b) -> Long.compare(bodies.get(a).executedAt, bodies.get(b).executedAt));
        for (BatchId id : byExecution) {
            Held h = bodies.remove(id);
            bytes -= h.body.remaining();
            dropped.firstExecution(id);
        }
        return gone;
    }

    /**
     * A snapshot installed here covers {@code executed}: those ids count as executed and dropped,
     * held bodies among them drop at the next compaction, and watermarks rise over them.
     *
     * @return whether a watermark rose
     */
    boolean restore(ExecutedIds executed, long instance) {
        installed = executed.copy();
        boolean rose = false;
        List<OriginStream> streams = new ArrayList<>();
        installed.forEachStream((origin, incarnation, below) -> streams.add(new OriginStream(origin, incarnation)));
        for (OriginStream s : streams) {
            rose |= advance(s, prefixes.computeIfAbsent(s, k -> new Prefix()));
        }
        for (Map.Entry<BatchId, Held> e : bodies.entrySet()) {
            if (e.getValue().executedAt < 0 && installed.executed(e.getKey())) {
                e.getValue().executedAt = instance - 1;
            }
        }
        return rose;
    }

    /** Held ids, in (origin, incarnation, sn) order. */
    List<BatchId> heldIds() {
        List<BatchId> ids = new ArrayList<>(bodies.keySet());
        ids.sort(null);
        return ids;
    }

    int size() {
        return bodies.size();
    }

    long bytes() {
        return bytes;
    }

    private boolean advance(OriginStream s, Prefix p) {
        long before = p.watermark;
        while (true) {
            long next = p.watermark + 1;
            if (p.above.remove(next)) {
                p.watermark = next;
            } else if (dropped(s.id(next))) {
                p.watermark = next;
            } else {
                break;
            }
        }
        p.above.headSet(p.watermark, true).clear();
        return p.watermark != before;
    }
}
