package dev.parallax.ringpaxos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * The coordinator's side of Phase 2 (rule C3; seed 003 (Ring Paxos) Alg. 2 l.14–18, Alg. 3
 * l.14–21): what it re-proposes after Phase 1 (first, in instance order, a gap as NOOP), the
 * proposals queued FIFO behind them (at most n × {@code ring.max.pending}), the instances it has
 * open and since when (the window, U6/M5 retransmission and the stall trigger of ring re-formation read
 * them), and the next instance to open. With {@code ring.lambda} &gt; 0 it also holds at most one skip
 * to open ({@link #offerSkip}), before the queued proposals and outside their cap (Multi-Ring Paxos;
 * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20). It ignores an id it has queued, open, re-proposes in the
 * round, or decided lately (a bounded memory): a proposer's retry is not opened twice. Opening
 * itself — the own vote, the window, the variant's 2A — is {@link RingEngine#openMore}'s.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class Coordinator {
    private final int maxQueue;
    private final int idMemory;
    private final ArrayDeque<ProposalEntry> queue = new ArrayDeque<>();
    private final Set<ValueId> queued = new HashSet<>();
    private TreeMap<Long, Phase2Entry> reproposals = new TreeMap<>();
    private final Set<ValueId> reproposed = new HashSet<>();
    private final LinkedHashSet<ValueId> recentlyDecided = new LinkedHashSet<>();
    private final TreeMap<Long, Long> openedAt = new TreeMap<>();
    private final Set<ValueId> openVids = new HashSet<>();
    private long nextInstance;
    private long dropped;
    /** The skip to open next (after re-proposals, before the queue), or null. */
    private ValueId pendingSkip;
    private long skipsOpened;

    Coordinator(int maxQueue, int idMemory) {
        this.maxQueue = maxQueue;
        this.idMemory = idMemory;
    }

    /** Queues {@code p} unless its id is known here; false if refused (known, or the queue is full: counted). */
    boolean offer(ProposalEntry p) {
        ValueId vid = p.vid();
        if (queued.contains(vid) || openVids.contains(vid) || reproposed.contains(vid) || recentlyDecided.contains(vid)) {
            return false;
        }
        if (queue.size() >= maxQueue) {
            dropped++;
            return false;
        }
        queue.add(p);
        queued.add(vid);
        return true;
    }

    /**
     * Phase 1 of a round completed: re-propose {@code re} (instance → entry), open new instances
     * from {@code next}, queue {@code own} proposals not already known.
     */
    void begin(TreeMap<Long, Phase2Entry> re, long next, List<ProposalEntry> own) {
        reproposals = re;
        reproposed.clear();
        for (Phase2Entry e : re.values()) {
            reproposed.add(e.vid());
        }
        nextInstance = next;
        openedAt.clear();
        openVids.clear();
        queue.removeIf(p -> reproposed.contains(p.vid()) || recentlyDecided.contains(p.vid()));
        queued.removeIf(v -> reproposed.contains(v) || recentlyDecided.contains(v));
        for (ProposalEntry p : own) {
            offer(p);
        }
    }

    /**
     * A skip is due: open {@code skip} before the queued proposals (a pending one with a lower
     * target is replaced: targets are absolute, the higher one does the work of both).
     */
    void offerSkip(ValueId skip) {
        if (pendingSkip == null || skip.upTo() > pendingSkip.upTo()) {
            pendingSkip = skip;
        }
    }

    /** The next entry to open at {@link #nextInstance()}, taken (a re-proposal, a gap's NOOP, the skip, the oldest queued), or null. */
    Phase2Entry take() {
        return take(true);
    }

    /**
     * The next entry to open at {@link #nextInstance()}, taken: a re-proposal or a gap's NOOP, then
     * the pending skip, then — if {@code clients} (the cap allows them) — the oldest queued; or null.
     */
    Phase2Entry take(boolean clients) {
        long i = nextInstance;
        Phase2Entry e;
        if (!reproposals.isEmpty() && i <= reproposals.lastKey()) {
            e = reproposals.remove(i);
            if (e == null) {
                e = new Phase2Entry(i, ValueId.NOOP, ByteBufferUtil.EMPTY);
            }
        } else if (pendingSkip != null) {
            e = new Phase2Entry(i, pendingSkip, ByteBufferUtil.EMPTY);
            pendingSkip = null;
            skipsOpened++;
        } else {
            ProposalEntry p = clients ? queue.poll() : null;
            if (p == null) {
                return null;
            }
            queued.remove(p.vid());
            e = new Phase2Entry(i, p.vid(), p.value());
        }
        nextInstance++;
        return e;
    }

    /**
     * The coordinator's own value ({@link RingGroup}: a configuration command, or a NOOP towards an
     * effective instance) at {@link #nextInstance()}, taken; null while a re-proposal is due there.
     */
    Phase2Entry takeOwn(ValueId vid, java.nio.ByteBuffer value) {
        long i = nextInstance;
        if (!reproposals.isEmpty() && i <= reproposals.lastKey()) {
            return null;
        }
        nextInstance++;
        return new Phase2Entry(i, vid, value);
    }

    /** {@code instance} was opened with {@code vid} at {@code now}. */
    void opened(long instance, ValueId vid, long now) {
        openedAt.put(instance, now);
        openVids.add(vid);
    }

    /** {@code instance} was decided as {@code vid}; true if it was open here. */
    boolean decided(long instance, ValueId vid) {
        openVids.remove(vid);
        if (!vid.isBodiless()) {
            recentlyDecided.add(vid);
            if (recentlyDecided.size() > idMemory) {
                var it = recentlyDecided.iterator();
                it.next();
                it.remove();
            }
        }
        return openedAt.remove(instance) != null;
    }

    /** The oldest queued proposal's id, or null. */
    ValueId queuedHead() {
        ProposalEntry p = queue.peek();
        return p == null ? null : p.vid();
    }

    /** Skips taken to open (event {@code skips.proposed}). */
    long skipsOpened() {
        return skipsOpened;
    }

    /** The round ended for this coordinator: nothing open, nothing re-proposed, no skip; the queue stays. */
    void endRound() {
        pendingSkip = null;
        reproposals = new TreeMap<>();
        reproposed.clear();
        openedAt.clear();
        openVids.clear();
    }

    /** Forgets everything of the round, the queue included. */
    void clear() {
        endRound();
        queue.clear();
        queued.clear();
    }

    /** Takes the whole queue (to hand it to another coordinator). */
    List<ProposalEntry> drain() {
        List<ProposalEntry> all = new ArrayList<>(queue);
        queue.clear();
        queued.clear();
        return all;
    }

    long nextInstance() {
        return nextInstance;
    }

    /** Read-index Q1 ({@link RingReads}): above every instance opened and every re-proposal still to open. */
    long readPoint() {
        return reproposals.isEmpty() ? nextInstance : Math.max(nextInstance, reproposals.lastKey() + 1);
    }

    /** A snapshot moved the learner to {@code instance}: never open below it. */
    void skipTo(long instance) {
        nextInstance = Math.max(nextInstance, instance);
    }

    int open() {
        return openedAt.size();
    }

    /** The oldest open instance, or -1. */
    long oldestOpen() {
        return openedAt.isEmpty() ? -1 : openedAt.firstKey();
    }

    /** When {@code instance} was opened (it must be open). */
    long openedAt(long instance) {
        return openedAt.get(instance);
    }

    long dropped() {
        return dropped;
    }
}
