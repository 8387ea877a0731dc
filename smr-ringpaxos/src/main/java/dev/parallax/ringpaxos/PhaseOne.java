package dev.parallax.ringpaxos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The coordinator's Phase 1 of one round (rule C1; seed 003 (Ring Paxos) Alg. 2/3 Tasks 1–3, Alg. 3
 * l.9–19; §3.3.2 ¶4 "for all instances"): collects {@code Phase1B} pages from the acceptors (paged as
 * Multi-Paxos' Phase 1: a page with {@code continueFrom ≥ 0} is followed by a {@code Phase1A} for the
 * rest, to that acceptor only) and completes on a quorum of complete answers ({@link RingConfig#quorum()}, a majority: every
 * Phase 1 quorum meets every ring's majority of acceptors). Each instance in {@code [max(from, highest trimmedBelow),
 * highest reported]} then gets the highest-round vote's value, else NOOP (l.13–16); never below a
 * trim point, since trimmed instances are decided.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class PhaseOne {
    private final long round;
    private final long from;
    private final java.util.function.IntPredicate covered;
    private final TreeSet<Integer> complete = new TreeSet<>();
    private final TreeMap<Long, Vote> highest = new TreeMap<>();
    private long trimmedBelow;
    private long decidedBelow;
    private long sentAt;
    private final long startedAt;

    /** Completes on {@code quorum} complete answers of others (a fixed set of n = 2·quorum − 1 or 2·quorum − 2). */
    PhaseOne(long round, long from, int quorum, long now) {
        this(round, from, answered -> Integer.bitCount(answered) >= quorum, now);
    }

    /**
     * Completes when {@code covered} accepts the mask of the members that answered completely
     * (rule G4 of {@link RingGroup}: a majority of every set governing an instance from {@code from} on).
     */
    PhaseOne(long round, long from, java.util.function.IntPredicate covered, long now) {
        this.round = round;
        this.from = from;
        this.covered = covered;
        this.trimmedBelow = 0;
        this.sentAt = now;
        this.startedAt = now;
    }

    /** When this Phase 1 started. */
    long startedAt() {
        return startedAt;
    }

    long round() {
        return round;
    }

    long from() {
        return from;
    }

    long sentAt() {
        return sentAt;
    }

    void resent(long now) {
        sentAt = now;
    }

    /** Whether {@code member} has answered completely. */
    boolean answered(int member) {
        return complete.contains(member);
    }

    /**
     * One page of {@code member}'s answer for this round. Returns true if the page is the last.
     */
    boolean onPage(int member, RingMessage.Phase1B b) {
        trimmedBelow = Math.max(trimmedBelow, b.trimmedBelow());
        decidedBelow = Math.max(decidedBelow, b.decidedBelow());
        for (Vote v : b.votes()) {
            if (v.instance() < from) {
                continue;
            }
            Vote old = highest.get(v.instance());
            if (old == null || v.round() > old.round()) {
                highest.put(v.instance(), v);
            }
        }
        if (b.isComplete()) {
            complete.add(member);
            return true;
        }
        return false;
    }

    /** A quorum of acceptors answered completely. */
    boolean done() {
        int mask = 0;
        for (int m : complete) {
            mask |= m < 32 ? 1 << m : 0;
        }
        return covered.test(mask);
    }

    /** The members that answered completely, in id order. */
    List<Integer> responders() {
        return new ArrayList<>(complete);
    }

    /** The highest trim point reported: instances below it are decided and not re-proposed. */
    long trimmedBelow() {
        return trimmedBelow;
    }

    /** The highest {@code decidedBelow} reported. */
    long decidedBelow() {
        return decidedBelow;
    }

    /** The first instance Phase 2 of this round may open: above every trim point and the {@code from}. */
    long start() {
        return Math.max(from, trimmedBelow);
    }

    /**
     * The values to re-propose: for every instance in {@code [start(), highest reported]} the
     * highest-round vote, a NOOP vote for a gap (l.13–16). Empty if nothing was reported.
     */
    TreeMap<Long, Phase2Entry> reproposals() {
        TreeMap<Long, Phase2Entry> out = new TreeMap<>();
        if (highest.isEmpty()) {
            return out;
        }
        long lo = start();
        long hi = highest.lastKey();
        for (long i = lo; i <= hi; i++) {
            Vote v = highest.get(i);
            out.put(i, v == null ? new Phase2Entry(i, ValueId.NOOP, ByteBufferUtil.EMPTY)
                    : new Phase2Entry(i, v.vid(), v.value()));
        }
        return out;
    }

    /** Highest-round votes reported per instance (tests). */
    Map<Long, Vote> highestVotes() {
        return highest;
    }
}
