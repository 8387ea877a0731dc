package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * This member's own undecided proposals (rule C7): each batch gets a {@link ValueId} {@code (self,
 * incarnation, seq)} assigned here, by the proposer (seed 003 (Ring Paxos) Alg. 2 l.17 assigns it
 * at the coordinator; U-Ring forwarders must match id-only decisions before the coordinator sees
 * the value, §3.3.3 ¶4), and stays pending — at most {@code ring.max.pending}, else refused
 * (back-pressure) — until decided. The incarnation is {@code max(recovered + 1, floor)}, persisted
 * with sync before the first proposal leaves, so that one id never names two bodies.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class OwnProposals {
    private final int self;
    private final int maxPending;
    private final long incarnation;
    private boolean incarnationPersisted;
    private long seq;
    private final LinkedHashMap<ValueId, Pending> pending = new LinkedHashMap<>();
    private long retries;

    /** One pending proposal and when it was last sent. */
    static final class Pending {
        final ProposalEntry entry;
        long sentAt;

        Pending(ProposalEntry entry, long sentAt) {
            this.entry = entry;
            this.sentAt = sentAt;
        }
    }

    OwnProposals(int self, int maxPending, List<RingRecord> recovered, long incarnationFloor) {
        this.self = self;
        this.maxPending = maxPending;
        long last = -1;
        for (RingRecord r : recovered) {
            if (r instanceof RingRecord.Incarnation i) {
                last = Math.max(last, i.incarnation());
            }
        }
        this.incarnation = Math.max(last + 1, Math.max(0, incarnationFloor));
    }

    long incarnation() {
        return incarnation;
    }

    boolean full() {
        return pending.size() >= maxPending;
    }

    int size() {
        return pending.size();
    }

    /**
     * Assigns the next id to {@code value} and keeps it pending; null if full. The caller persists
     * {@link #incarnationRecord()} (sync) first when it is non-null.
     */
    ProposalEntry add(ByteBuffer value, long now) {
        if (full()) {
            return null;
        }
        ProposalEntry e = new ProposalEntry(new ValueId(self, incarnation, ++seq), value.asReadOnlyBuffer());
        pending.put(e.vid(), new Pending(e, now));
        return e;
    }

    /** The incarnation record to persist (sync) before the first proposal leaves, once; else null. */
    RingRecord.Incarnation incarnationRecord() {
        if (incarnationPersisted) {
            return null;
        }
        incarnationPersisted = true;
        return new RingRecord.Incarnation(incarnation);
    }

    /** Whether the incarnation record was written in this incarnation (re-persisted on compaction). */
    boolean incarnationPersisted() {
        return incarnationPersisted;
    }

    boolean isPending(ValueId vid) {
        return pending.containsKey(vid);
    }

    ByteBuffer body(ValueId vid) {
        Pending p = pending.get(vid);
        return p == null ? null : p.entry.value();
    }

    /** {@code vid} was decided: no longer pending. */
    void decided(ValueId vid) {
        pending.remove(vid);
    }

    /** Every pending proposal (to re-forward on a round change), marked sent at {@code now}. */
    List<ProposalEntry> all(long now) {
        List<ProposalEntry> all = new ArrayList<>();
        for (Pending p : pending.values()) {
            p.sentAt = now;
            all.add(p.entry);
        }
        return all;
    }

    /** Pending proposals last sent at least {@code retry} ago, marked sent at {@code now} (counted). */
    List<ProposalEntry> due(long now, long retry) {
        List<ProposalEntry> due = new ArrayList<>();
        for (Map.Entry<ValueId, Pending> e : pending.entrySet()) {
            Pending p = e.getValue();
            if (now - p.sentAt >= retry) {
                p.sentAt = now;
                due.add(p.entry);
                retries++;
            }
        }
        return due;
    }

    long retries() {
        return retries;
    }
}
