package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.membership.Membership;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The acceptor role: keeps the promised view and the latest vote per instance, and answers Phase 1
 * and Phase 2 only after the promise or vote it implies is durable (the persist effect carries
 * {@code sync}; the driver syncs before sending — Lamport, "Paxos Made Simple" §2.2, stable storage).
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class Acceptor {
    /** Bytes a reported vote adds besides its value (instance, view, value length). */
    static final int VOTE_OVERHEAD = 21;

    private final int maxReplyVotes;
    private final int maxReplyBytes;
    private long promised;
    private long durablePromise = -1;
    private long trimmedBelow;
    private final TreeMap<Long, PaxosRecord.Vote> votes = new TreeMap<>();

    /**
     * Rebuilds the acceptor from its durable records: the highest promise, the latest vote per
     * instance. A Phase 1 reply carries at most {@code maxReplyVotes} votes and, beyond its first
     * vote, at most {@code maxReplyBytes} bytes of them.
     */
    Acceptor(int maxReplyVotes, int maxReplyBytes, List<PaxosRecord> recovered) {
        this.maxReplyVotes = maxReplyVotes;
        this.maxReplyBytes = maxReplyBytes;
        for (PaxosRecord r : recovered) {
            // Votes below a trim point are covered by a snapshot; the filter below drops them.
            if (r instanceof PaxosRecord.Promise p) {
                promised = Math.max(promised, p.view());
                durablePromise = Math.max(durablePromise, p.view());
            } else if (r instanceof PaxosRecord.Trim t) {
                trimmedBelow = Math.max(trimmedBelow, t.instance());
            } else if (r instanceof PaxosRecord.Vote v) {
                promised = Math.max(promised, v.view());
                durablePromise = Math.max(durablePromise, v.view());
                PaxosRecord.Vote old = votes.get(v.instance());
                if (old == null || old.view() <= v.view()) {
                    votes.put(v.instance(), v);
                }
            }
        }
        votes.headMap(trimmedBelow, false).clear();
    }

    long promised() {
        return promised;
    }

    /**
     * Moves to a higher view seen in any message. Nothing is written: no answer was given on the
     * strength of this view yet, and every answer (PrepareOk, Accept) persists what it promises.
     */
    void adopt(long view) {
        promised = Math.max(promised, view);
    }

    /** Makes the promise of {@code view} durable (sync) unless it already is. */
    void persistPromise(long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        promised = Math.max(promised, view);
        if (view > durablePromise) {
            durablePromise = view;
            out.persist(new PaxosRecord.Promise(view), true);
        }
    }

    /**
     * Phase 1b: promise {@code p.view()} (durably) and report the votes we hold at or above
     * {@code p.fromInstance()}, and below which instance we trimmed votes. The votes come in pages
     * (at most maxReplyVotes, and maxReplyBytes beyond the first vote, which always goes so that
     * paging progresses): a reply that holds every vote would outgrow a frame after a long
     * partition, the connection would close and the view change never complete.
     */
    void onPrepare(int from, PaxosMessage.Prepare p, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (p.view() < promised) {
            return;
        }
        persistPromise(p.view(), out);
        List<PaxosMessage.Accepted> accepted = new ArrayList<>();
        long continueFrom = PaxosMessage.PrepareOk.COMPLETE;
        long bytes = 0;
        for (PaxosRecord.Vote v : votes.tailMap(p.fromInstance(), true).values()) {
            long size = VOTE_OVERHEAD + (long) v.value().size();
            if (!accepted.isEmpty() && (accepted.size() >= maxReplyVotes || bytes + size > maxReplyBytes)) {
                continueFrom = v.instance();
                break;
            }
            accepted.add(new PaxosMessage.Accepted(v.instance(), v.view(), v.value()));
            bytes += size;
        }
        out.send(from, new PaxosMessage.PrepareOk(p.view(), trimmedBelow, accepted, continueFrom));
    }

    /**
     * Phase 2b: vote for the proposal unless we promised a higher view, persist the vote (sync),
     * and tell every replica of {@code recipients} (a mask of ids; JPaxos sends Accept to all so each
     * learns the decision directly).
     */
    void onPropose(PaxosMessage.Propose p, int recipients, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (p.view() < promised) {
            return;
        }
        promised = p.view();
        PaxosRecord.Vote old = votes.get(p.instance());
        if (old == null || old.view() != p.view()) {
            PaxosRecord.Vote vote = new PaxosRecord.Vote(p.instance(), p.view(), p.value());
            votes.put(p.instance(), vote);
            durablePromise = Math.max(durablePromise, p.view());
            out.persist(vote, true);
        } else if (!old.value().equals(p.value())) {
            // One leader proposes one value per instance per view; a different one is a bug upstream.
            return;
        }
        PaxosMessage.Accept accept = new PaxosMessage.Accept(p.view(), p.instance());
        for (int r = 0; r < Membership.ID_SPACE; r++) {
            if ((recipients & (1 << r)) != 0) {
                out.send(r, accept);
            }
        }
    }

    /** Forgets votes below {@code instance} (they are decided and covered by a snapshot). */
    void truncateBelow(long instance) {
        if (instance > trimmedBelow) {
            trimmedBelow = instance;
            votes.headMap(instance, false).clear();
        }
    }

    /** Persists (sync) the trim point, the promise and every vote still held: what a compacted log must keep. */
    void checkpoint(Effects<PaxosMessage, PaxosRecord, Value> out) {
        out.persist(new PaxosRecord.Trim(trimmedBelow), false);
        out.persist(new PaxosRecord.Promise(promised), false);
        durablePromise = Math.max(durablePromise, promised);
        for (PaxosRecord.Vote v : votes.values()) {
            out.persist(v, false);
        }
        out.persist(new PaxosRecord.Promise(promised), true);
    }

    /** The latest vote for {@code instance}, or {@code null} if none is held. */
    PaxosRecord.Vote vote(long instance) {
        return votes.get(instance);
    }

    long trimmedBelow() {
        return trimmedBelow;
    }

    /** The highest instance we hold a vote for, or trimmed below; -1 if none. */
    long highestVoted() {
        return Math.max(trimmedBelow - 1, votes.isEmpty() ? -1 : votes.lastKey());
    }

    /**
     * Ends an amnesia recovery ({@link AmnesiaRecovery}): every instance below
     * {@code decidedBelow} is decided, so report it like a trim point (Phase 1 answers then tell
     * leaders not to re-propose below it: our lost votes there are not reported), and promise at
     * least {@code minView}. Both are persisted, synced, before we vote again.
     */
    void restoreAfterAmnesia(long decidedBelow, long minView, Effects<PaxosMessage, PaxosRecord, Value> out) {
        truncateBelow(decidedBelow);
        promised = Math.max(promised, minView);
        durablePromise = Math.max(durablePromise, promised);
        out.persist(new PaxosRecord.Trim(trimmedBelow), false);
        out.persist(new PaxosRecord.Promise(promised), true);
    }

}
