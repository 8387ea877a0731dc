package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Conservative caching (seed 004 (S-SMR) §IV-C) as deterministic operations on a {@link ReadCache},
 * called by {@link SsmrCore} (its rule 13). Stateless.
 *
 * <h2>Rules</h2>
 * <ol>
 *   <li><b>Opt-in, per command and owner.</b> With {@code ssmr.cache=on} and a machine offering
 *       {@link CachedReads}, every partition computes for a command, before it executes, the
 *       variables it reads at each involved owner ({@link CachedReads#reads}, pure) and the
 *       variables it may write at its own partition ({@link CachedReads#writes}). An owner whose list
 *       is null is exchanged as without caching. The paper leaves open how a server knows which
 *       variables a command reads: here, as for the whole exchange, before execution from the
 *       command (its "if it is possible to determine which variables are accessed by C before C's
 *       execution" case; the late messages "sent during the execution" are not built).</li>
 *   <li><b>Validation message.</b> Instead of its localReads, an owner sends each other involved
 *       partition a {@link PartitionMessage.CachedValues} with, per variable in list order, the
 *       value or ⊥. It is the reader's values for the command, so the reader waits for it anyway
 *       (§IV-C: "before it executes a read(x) operation, it waits for a cache-validation message");
 *       it counts as a signal. A reader waits for it from every owner with a non-empty list, even
 *       one its remoteReads does not name, since it updates its cache from it.</li>
 *   <li><b>Owner's decision.</b> The owner keeps, per reader, a mirror of what that reader holds of
 *       its variables: present and current or not. ⊥ iff the mirror says present and current; then
 *       the mirror records the variable as present and current (used last). A write
 *       ({@link CachedReads#writes}, null = every variable) marks it not current in every mirror,
 *       after the command's reads: the paper's "which destinations of C did not receive C_w", and
 *       its optimisation "a later C_r that reads x ... already received an up-to-date value" is the
 *       re-marking by the next send. A reader that also executed the write is marked stale too:
 *       the cache holds only what owners sent, never a reader's own write (conservative; the
 *       paper's "s updates (or creates) x's local value" is not built).</li>
 *   <li><b>Reader's cache.</b> In delivery order, when the command executes, the reader resolves
 *       each ⊥ from its cache (or an earlier value of the same message) and stores every value it
 *       used as used last. Both maps are bounded (entries and bytes per owner/reader) and evict the
 *       eldest, so the mirror follows the cache exactly: the same commands (those involving both, in
 *       the same multicast order), the same operations, the same sizes.</li>
 *   <li><b>Safety does not rest on that exactness.</b> A reader's entry is either absent or the
 *       value its owner sent at the last command that listed it for this reader, and a reader that
 *       does not apply a command's values (its own reads failed) removes that command's variables.
 *       The owner says ⊥ only if no write followed that last send, so a held ⊥ target is current.
 *       A ⊥ the reader cannot resolve (it evicted the variable, restored an older snapshot, or the
 *       message does not match the list) makes it drop the message, count it, and send a
 *       {@link PartitionMessage.FullRequest}; the owner answers with every value of that command
 *       (kept with its resend cache, rule 8), which the reader applies. This is the paper's "If s
 *       discarded its cached copy, it sends a request for x to P_x", which it does not say how to
 *       answer: the owner has moved on, so it answers from what it sent for that command.</li>
 *   <li><b>Failures.</b> An owner that cannot read its variables sends the failed marker (count
 *       -1): no cache operation anywhere, the reader executes with empty values. An owner whose
 *       message would exceed {@link SsmrConfig#maxMessageBytes} fails the command as rule 10.</li>
 *   <li><b>Replay and snapshots.</b> The remote-values log keeps the resolved values (every value,
 *       no ⊥); a replay executes with them and applies them to the cache as rule 4. Cache and mirror
 *       are in the {@link SsmrStateMachine} snapshot, so every replica of a partition holds the same
 *       contents after a restore too.</li>
 * </ol>
 */
final class CachedExchange {
    private CachedExchange() {
    }

    /**
     * One command's caching plan at one partition: owner → the variables read there (only owners
     * exchanged with caching), this partition's values of its own listed variables (null if
     * reading them failed), and the variables it may write here (null with {@code writesAll}).
     */
    record Plan(TreeMap<Integer, List<byte[]>> reads, List<ByteBuffer> ownValues, List<byte[]> writes, boolean writesAll) {
        /** A plan of writes only (a command to this partition alone). */
        static Plan writesOnly(List<byte[]> writes) {
            return new Plan(new TreeMap<>(), List.of(), writes, writes == null);
        }

        boolean cached(int owner) {
            return reads.containsKey(owner);
        }

        /** Owners among {@code others} with a non-empty list: the reader waits for their values. */
        long expected(long others) {
            long bits = 0;
            for (Map.Entry<Integer, List<byte[]>> e : reads.entrySet()) {
                if (!e.getValue().isEmpty()) {
                    bits |= 1L << e.getKey();
                }
            }
            return bits & others;
        }
    }

    /** What an owner sends: the message with every value, and each reader's. */
    record Outgoing(PartitionMessage.CachedValues full, Map<Integer, PartitionMessage> perReader) {
    }

    /** Rules 2, 3 and 6 at the owner {@code self}: null if the full message exceeds {@code limit} bytes of values. */
    static Outgoing send(CommandId id, int self, long others, Plan plan, ReadCache cache, SsmrCacheConfig config,
                         int limit) {
        if (plan.ownValues() == null) {
            PartitionMessage.CachedValues failed = new PartitionMessage.CachedValues(id, self, CachedValuesFormat.failed());
            return new Outgoing(failed, null);
        }
        List<byte[]> keys = plan.reads().get(self);
        List<ByteBuffer> values = plan.ownValues();
        ByteBuffer fullBytes = CachedValuesFormat.encode(values);
        if (fullBytes.remaining() > limit) {
            return null;
        }
        PartitionMessage.CachedValues full = new PartitionMessage.CachedValues(id, self, fullBytes);
        Map<Integer, PartitionMessage> perReader = new HashMap<>();
        for (int q = 0; q < 64; q++) {
            if ((others & (1L << q)) == 0) {
                continue;
            }
            ReadCache.Lru<ReadCache.Seen> mirror = cache.mirror(q);
            List<ByteBuffer> entries = new ArrayList<>(keys.size());
            boolean anyBottom = false;
            for (int i = 0; i < keys.size(); i++) {
                ReadCache.Key k = new ReadCache.Key(keys.get(i));
                ByteBuffer v = values.get(i);
                ReadCache.Seen seen = mirror.remove(k);
                boolean bottom = config.unsafeAlwaysCurrent() || seen != null && seen.current;
                mirror.put(k, new ReadCache.Seen(true, v.remaining()), config.maxEntries(), config.maxBytes());
                entries.add(bottom ? null : v);
                anyBottom |= bottom;
            }
            perReader.put(q, anyBottom ? new PartitionMessage.CachedValues(id, self, CachedValuesFormat.encode(entries)) : full);
        }
        return new Outgoing(full, perReader);
    }

    /** Rule 3's writes at the owner: mark them not current in every mirror (no change of use order). */
    static void noteWrites(Plan plan, ReadCache cache) {
        if (plan.writesAll()) {
            for (ReadCache.Lru<ReadCache.Seen> m : cache.mirror.values()) {
                m.map.values().forEach(s -> s.current = false);
            }
            return;
        }
        if (plan.writes() == null || plan.writes().isEmpty()) {
            return;
        }
        for (byte[] key : plan.writes()) {
            ReadCache.Key k = new ReadCache.Key(key);
            for (ReadCache.Lru<ReadCache.Seen> m : cache.mirror.values()) {
                ReadCache.Seen s = m.get(k);
                if (s != null) {
                    s.current = false;
                }
            }
        }
    }

    /**
     * Rule 4's first half at the reader: the values of {@code owner}'s message for its listed
     * variables with every ⊥ resolved, as {@link CachedValuesFormat} bytes (the failed marker passes
     * through); null if a ⊥ cannot be resolved or the message does not match the list (rule 5).
     * Changes nothing.
     */
    static ByteBuffer resolve(ByteBuffer message, List<byte[]> keys, ReadCache.Lru<byte[]> held) {
        CachedValuesFormat.Decoded d = CachedValuesFormat.decode(message);
        if (d == null) {
            return null;
        }
        if (d.failed()) {
            return CachedValuesFormat.failed();
        }
        if (d.entries().size() != keys.size()) {
            return null;
        }
        Map<ReadCache.Key, ByteBuffer> overlay = new HashMap<>();
        List<ByteBuffer> resolved = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            ReadCache.Key k = new ReadCache.Key(keys.get(i));
            ByteBuffer v = d.entries().get(i);
            if (v != null) {
                overlay.put(k, v);
            } else {
                v = overlay.get(k);
                if (v == null) {
                    byte[] h = held.get(k);
                    if (h == null) {
                        return null;
                    }
                    v = ByteBuffer.wrap(h).asReadOnlyBuffer();
                }
            }
            resolved.add(v);
        }
        return CachedValuesFormat.encode(resolved);
    }

    /** Rule 4's second half (and rule 7's replay): stores resolved values, each as used last. */
    static void apply(ByteBuffer resolved, List<byte[]> keys, ReadCache.Lru<byte[]> held, SsmrCacheConfig config) {
        CachedValuesFormat.Decoded d = CachedValuesFormat.decode(resolved);
        if (d == null || !d.failed() && d.entries().size() != keys.size()) {
            forget(keys, held); // a log entry that does not match: hold nothing of it
            return;
        }
        if (d.failed()) {
            return;
        }
        for (int i = 0; i < keys.size(); i++) {
            ByteBuffer v = d.entries().get(i);
            byte[] copy = new byte[v.remaining()];
            v.duplicate().get(copy);
            held.put(new ReadCache.Key(keys.get(i)), copy, config.maxEntries(), config.maxBytes());
        }
    }

    /** Rule 5: a reader that does not apply a command's values removes its variables. */
    static void forget(List<byte[]> keys, ReadCache.Lru<byte[]> held) {
        for (byte[] k : keys) {
            held.remove(new ReadCache.Key(k));
        }
    }

    /** The values {@code execute} sees for a cached owner: assembled from resolved bytes (empty if failed). */
    static ByteBuffer assemble(CachedReads spi, ByteBuffer command, int owner, ByteBuffer resolved) {
        CachedValuesFormat.Decoded d = CachedValuesFormat.decode(resolved);
        if (d == null) {
            throw new IllegalStateException("malformed cached values of partition " + owner);
        }
        return d.failed() ? ByteBuffer.allocate(0) : spi.assemble(command, owner, d.entries());
    }
}
