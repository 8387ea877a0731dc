package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link SsmrCore}'s side of caching (its rule 13): applies {@link CachedExchange}'s rules to the
 * core's commands over the replica's {@link ReadCache}, and counts. Deterministic; not thread-safe
 * (the core's thread).
 */
final class CoreCaching {
    private final SsmrConfig config;
    private final ReadCache cache;
    private long bottomsSent;
    private long valuesSent;
    private long misses;
    private long malformed;
    private long fullAnswered;

    CoreCaching(SsmrConfig config, ReadCache cache) {
        this.config = config;
        this.cache = cache;
    }

    /** Rules 2, 3, 6 at owner {@code p}: what to send each other involved partition; null if too large. */
    ResendCache.Sent send(CommandId id, int p, long others, CachedExchange.Plan plan) {
        CachedExchange.Outgoing o = CachedExchange.send(id, p, others, plan, cache, config.cache(),
                config.maxMessageBytes() - PartitionMessageCodec.MAX_HEADER_BYTES);
        if (o == null) {
            return null;
        }
        if (o.perReader() != null) {
            for (PartitionMessage m : o.perReader().values()) {
                CachedValuesFormat.Decoded d = CachedValuesFormat.decode(((PartitionMessage.CachedValues) m).values());
                for (ByteBuffer e : d.entries()) {
                    if (e == null) {
                        bottomsSent++;
                    } else {
                        valuesSent++;
                    }
                }
            }
        }
        return new ResendCache.Sent(o.full(), o.perReader(), o.full());
    }

    /** Rule 3's writes (nothing without a plan). */
    void noteWrites(CachedExchange.Plan plan) {
        if (plan != null) {
            CachedExchange.noteWrites(plan, cache);
        }
    }

    /** Rule 5 at a partition {@code p} whose reads failed: forget the others' listed variables, note the writes. */
    void failed(CachedExchange.Plan plan, int p) {
        if (plan == null) {
            return;
        }
        plan.reads().forEach((q, keys) -> {
            if (q != p) {
                CachedExchange.forget(keys, cache.held(q));
            }
        });
        CachedExchange.noteWrites(plan, cache);
    }

    /** False (counted) for cached values whose bytes are malformed. */
    boolean wellFormed(PartitionMessage m) {
        if (m instanceof PartitionMessage.CachedValues v && !CachedValuesFormat.valid(v.values())) {
            malformed++;
            return false;
        }
        return true;
    }

    /**
     * The values of the owners in {@code needed} with every cached owner's ⊥ resolved, the cache
     * then updated (rules 4, 5); null if some owner's values were dropped (removed from
     * {@code values}): a values message of the wrong kind for the plan (counted malformed), or a ⊥
     * that cannot be resolved (counted a miss; a {@link PartitionMessage.FullRequest} goes to
     * {@code out} and the owner's bit to {@code wantFull[0]}, for the resends).
     */
    RemoteValues resolve(CommandId id, int p, long needed, TreeMap<Integer, ByteBuffer> values, long cachedBits,
                         CachedExchange.Plan plan, long[] wantFull, List<SsmrEffect> out) {
        Map<Integer, ByteBuffer> m = new TreeMap<>();
        long dropped = 0;
        for (int q = 0; q < 64; q++) {
            if ((needed & (1L << q)) == 0) {
                continue;
            }
            ByteBuffer v = values.get(q);
            boolean cachedMessage = (cachedBits & (1L << q)) != 0;
            if (plan != null && plan.cached(q)) {
                ByteBuffer r = cachedMessage ? CachedExchange.resolve(v, plan.reads().get(q), cache.held(q)) : null;
                if (r == null) {
                    if (cachedMessage) {
                        misses++;
                        wantFull[0] |= 1L << q;
                        out.add(new SsmrEffect.Send(q, new PartitionMessage.FullRequest(id, p)));
                    } else {
                        malformed++; // plain values where the plan expects cached ones: ssmr.cache differs
                    }
                    dropped |= 1L << q;
                    continue;
                }
                m.put(q, r);
            } else if (cachedMessage) {
                CachedValuesFormat.Decoded d = CachedValuesFormat.decode(v);
                if (d == null || !d.failed()) {
                    malformed++; // cached values the plan does not expect: ssmr.cache differs
                    dropped |= 1L << q;
                    continue;
                }
                m.put(q, ByteBuffer.allocate(0));
            } else {
                m.put(q, v);
            }
        }
        if (dropped != 0) {
            for (int q = 0; q < 64; q++) {
                if ((dropped & (1L << q)) != 0) {
                    values.remove(q);
                }
            }
            return null;
        }
        RemoteValues with = RemoteValues.of(m);
        apply(plan, p, needed, with);
        return with;
    }

    /** Rules 4 and 7: stores the resolved (or logged) values of the cached owners in {@code needed}. */
    void apply(CachedExchange.Plan plan, int p, long needed, RemoteValues with) {
        if (plan == null) {
            return;
        }
        plan.reads().forEach((q, keys) -> {
            if (q != p && (needed & (1L << q)) != 0 && with.has(q)) {
                CachedExchange.apply(with.get(q), keys, cache.held(q), config.cache());
            }
        });
    }

    /** Rule 6: what an owner whose reads failed sends every other involved partition. */
    ResendCache.Sent failedMarker(CommandId id, int p) {
        return new ResendCache.Sent(new PartitionMessage.CachedValues(id, p, CachedValuesFormat.failed()), null, null);
    }

    /** A request was answered (a full one or not). */
    void answered(boolean full) {
        fullAnswered += full ? 1 : 0;
    }

    SsmrCacheCounters counters() {
        return new SsmrCacheCounters(valuesSent, bottomsSent, misses, malformed, fullAnswered, cache.heldEntries());
    }
}
