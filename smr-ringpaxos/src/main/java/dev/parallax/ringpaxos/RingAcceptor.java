package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The acceptor of one member (rule C4; seed 003 (Ring Paxos) Alg. 1 l.8 and l.20, Alg. 2/3 Tasks 2
 * and 4): its round {@code rnd} (the promise) and its highest-round vote per instance at or above
 * its trim point. Follows Multi-Paxos' acceptor ({@code dev.parallax.paxos.Acceptor}) with rounds
 * for views: a Phase 1A of a higher round is promised durably before the answer leaves; a vote is
 * cast iff its round is at least {@code rnd}, is persisted with sync in the step that casts it
 * (§3.3.5, "the second way": durable before anything reveals it) and raises {@code rnd}; the same
 * (round, vid) again is idempotent; another vid in the same round is refused and counted.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class RingAcceptor {
    private long rnd = -1;
    /** The highest round this acceptor's log holds a promise or vote for. */
    private long durable = -1;
    private long trimmedBelow;
    private final TreeMap<Long, Vote> votes = new TreeMap<>();
    private long refused;

    RingAcceptor(List<RingRecord> recovered) {
        for (RingRecord r : recovered) {
            if (r instanceof RingRecord.Promise p) {
                rnd = Math.max(rnd, p.round());
                durable = Math.max(durable, p.round());
            } else if (r instanceof RingRecord.VoteRecord v) {
                rnd = Math.max(rnd, v.round());
                durable = Math.max(durable, v.round());
                Vote old = votes.get(v.instance());
                if (old == null || old.round() <= v.round()) {
                    votes.put(v.instance(), new Vote(v.instance(), v.round(), v.vid(), v.value()));
                }
            } else if (r instanceof RingRecord.Trim t) {
                trimmedBelow = Math.max(trimmedBelow, t.instance());
            }
        }
        votes.headMap(trimmedBelow, false).clear();
    }

    long rnd() {
        return rnd;
    }

    /** The highest round promised or voted durably (a round adopted in memory only is above it). */
    long durableRound() {
        return durable;
    }

    long trimmedBelow() {
        return trimmedBelow;
    }

    /** Votes refused because another vid was voted in the same round. */
    long refused() {
        return refused;
    }

    /** Raises the round in memory (a message of a newer round; nothing was promised to anybody). */
    void adopt(long round) {
        rnd = Math.max(rnd, round);
    }

    /** Promises {@code round} durably (sync in this step, before any answer leaves). */
    void promise(long round, Effects<RingWire, RingRecord, RingValue> out) {
        rnd = Math.max(rnd, round);
        durable = rnd;
        out.persist(new RingRecord.Promise(rnd), true);
    }

    /**
     * Persists {@code Promise(round)} with sync without raising the round in memory: a coordinator
     * starting Phase 1 reserves its round (never reused after a restart) and promises it only when
     * Phase 1 completes (see {@code RingEngine.startRound}). Recovered, the record counts as a promise,
     * which is only more restrictive.
     */
    void reserve(long round, Effects<RingWire, RingRecord, RingValue> out) {
        durable = Math.max(durable, round);
        out.persist(new RingRecord.Promise(round), true);
    }

    /** The C4 vote; see {@link Engine#vote}. */
    boolean vote(long instance, long round, ValueId vid, ByteBuffer value, Effects<RingWire, RingRecord, RingValue> out) {
        if (round < rnd || instance < trimmedBelow) {
            return false;
        }
        Vote old = votes.get(instance);
        if (old != null && old.round() == round) {
            if (old.vid().equals(vid)) {
                return true;
            }
            refused++;
            return false;
        }
        rnd = round;
        durable = Math.max(durable, round);
        ByteBuffer body = value.asReadOnlyBuffer();
        votes.put(instance, new Vote(instance, round, vid, body));
        out.persist(new RingRecord.VoteRecord(instance, round, vid, body), true);
        return true;
    }

    /** The highest-round vote for {@code instance}, or null. */
    Vote voteAt(long instance) {
        return votes.get(instance);
    }

    /** The vid voted for {@code instance} in exactly {@code round}, or null. */
    ValueId votedVid(long instance, long round) {
        Vote v = votes.get(instance);
        return v != null && v.round() == round ? v.vid() : null;
    }

    /** The votes for instances in {@code [from, to)}, in instance order (a view). */
    java.util.Collection<Vote> votesIn(long from, long to) {
        if (to <= from) {
            return java.util.List.of();
        }
        return votes.subMap(from, true, to, false).values();
    }

    /** The highest instance voted in, or -1. */
    long highestVoted() {
        return votes.isEmpty() ? -1 : votes.lastKey();
    }

    /** The body of {@code vid} if some vote holds it (newest instances first), else null. */
    ByteBuffer bodyOf(ValueId vid, long fromInstance) {
        for (Vote v : votes.tailMap(fromInstance, true).descendingMap().values()) {
            if (v.vid().equals(vid)) {
                return v.value();
            }
        }
        return null;
    }

    /**
     * One page of Phase 1B votes at or above {@code from}: at most {@code maxInstances} votes and
     * {@code maxBytes} value bytes (the first always goes). Returns the votes and, in
     * {@code continueFrom[0]}, the instance the next page starts at, or {@link RingMessage.Phase1B#COMPLETE}.
     */
    List<Vote> page(long from, int maxInstances, int maxBytes, long[] continueFrom) {
        List<Vote> page = new ArrayList<>();
        long bytes = 0;
        continueFrom[0] = RingMessage.Phase1B.COMPLETE;
        for (Map.Entry<Long, Vote> e : votes.tailMap(Math.max(from, trimmedBelow), true).entrySet()) {
            int size = e.getValue().value().remaining();
            if (!page.isEmpty() && (page.size() >= maxInstances || bytes + size > maxBytes)) {
                continueFrom[0] = e.getKey();
                break;
            }
            page.add(e.getValue());
            bytes += size;
        }
        return page;
    }

    /** Forgets votes below {@code instance} (a snapshot covers them). */
    void trimBelow(long instance) {
        if (instance > trimmedBelow) {
            trimmedBelow = instance;
            votes.headMap(instance, false).clear();
        }
    }

    /** Re-persists what the acceptor still needs after the log is cut: trim point, promise, votes (sync). */
    void checkpoint(Effects<RingWire, RingRecord, RingValue> out) {
        out.persist(new RingRecord.Trim(trimmedBelow), true);
        if (rnd >= 0) {
            out.persist(new RingRecord.Promise(rnd), true);
        }
        for (Vote v : votes.values()) {
            out.persist(new RingRecord.VoteRecord(v.instance(), v.round(), v.vid(), v.value()), true);
        }
    }
}
