package dev.parallax.ringpaxos;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The coordinator's skip rate λ (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1 l.13-20), as a pure function of the core's {@code now} — nanoseconds since the Unix
 * epoch when λ &gt; 0 — of the ring's logical numbering and of the skip targets seen so far:
 * <ul>
 *   <li>the target {@code λ · ⌊now / 1 ms⌋ / 1000 + lead} (λ per second: the errata of l.44, which
 *       says "per Δ", after §5.4.6's measurements): the same function of wall time at every ring,
 *       plus the lead below;</li>
 *   <li>the lead: how far the highest skip target this member has seen ran ahead of its own clock's
 *       part when it saw it — every decided skip of its ring ({@link #skipDecided}), and what the
 *       other rings of its process saw ({@link #adoptLead}). Never lowered. With synchronised clocks
 *       a target is seen after it was set, so the lead stays 0; a coordinator whose clock runs ahead
 *       puts its ring ahead of the others by λ times the skew, and the lead makes every ring follow
 *       it within about Δ instead of leaving the merge of Alg. 1 task 4 waiting for the slower rings
 *       for the whole skew — and a correct-clock member that takes over that ring carries on from
 *       where it is instead of being capped until its clock catches up (a hybrid logical clock over
 *       skip targets: the logical clock is the highest clock reading seen, advancing at λ);</li>
 *   <li>the estimate {@code k}: the logical next of the emitted prefix, carried over the instances
 *       this coordinator opened and that are not emitted yet, in instance order (rule 1);</li>
 *   <li>every Δ ({@code ring.delta.ms}), if {@code k < target}, ONE skip to the target is due
 *       (Alg. 1 l.17-18 loops {@code for k ← k to skip}, proposing {@code skip − k + 1} instances;
 *       one instance reaching the absolute target does the same work); a lead that grows by λΔ or
 *       more makes the next check due at once;</li>
 *   <li>the cap: while {@code k ≥ target + max(1, ⌊λ·Δ / 1 s⌋)} (one interval ahead), no client
 *       instance opens — back-pressure where Alg. 1 would let the ring run ahead of the others.</li>
 * </ul>
 * λ = 0 turns all of it off. A new coordinator has nothing to recover: its own logical next of the
 * decided prefix is its {@code k}, the decided skips it emitted gave it the lead, and one skip to the
 * target catches the ring up. Client values never raise the lead (the cap bounds them by the
 * target): only skip targets, which are clock readings, do.
 *
 * <p>Not thread-safe: the core's driver thread only. {@code now} is the time of the core's current
 * input (given by the driver), never a clock read here.
 */
final class SkipPacer {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final long lambda;
    private final long deltaNanos;
    private final long allowance;
    /** The time of the core's current input (the driver's {@code now}). */
    private final LongSupplier now;
    /** How far ahead of this member's own clock target the highest skip target seen ran; never lowered. */
    private long lead;
    /** Instances this coordinator opened and that are not emitted yet, with what it opened them with. */
    private final TreeMap<Long, ValueId> inFlight = new TreeMap<>();
    private boolean checked;
    private long nextCheck;
    private ValueId lastCapped;
    private long capped;

    SkipPacer(RingConfig config, LongSupplier now) {
        this.now = now;
        this.lambda = config.lambda();
        this.deltaNanos = config.skipIntervalNanos();
        this.allowance = lambda == 0 ? 0 : Math.max(1, allowance(lambda, deltaNanos));
    }

    /** ⌊λ·Δ / 1 s⌋ without overflow for λ ≤ {@link RingConfig#MAX_LAMBDA} and Δ ≤ 60 s. */
    static long allowance(long lambda, long deltaNanos) {
        return lambda * (deltaNanos / SECOND) + lambda * (deltaNanos % SECOND) / SECOND;
    }

    /**
     * The logical target at {@code now}: {@code ⌊λ · ⌊now / 1 ms⌋ / 1000⌋}, 0 for {@code now <= 0},
     * saturated at {@link RingWireBounds#MAX_NUMBER} (the largest target a skip may carry).
     */
    static long target(long lambda, long now) {
        if (lambda <= 0 || now <= 0) {
            return 0;
        }
        long ms = now / MS;
        long seconds = ms / 1000;
        long whole;
        try {
            whole = Math.multiplyExact(seconds, lambda);
        } catch (ArithmeticException e) {
            return RingWireBounds.MAX_NUMBER;
        }
        long t = whole + (ms % 1000) * lambda / 1000;   // (ms % 1000) · λ ≤ 999 · 10^9: in range
        return t < whole || t > RingWireBounds.MAX_NUMBER ? RingWireBounds.MAX_NUMBER : t;
    }

    /** The target at {@code now} with the lead: {@code target(λ, now) + lead}, saturated at {@link RingWireBounds#MAX_NUMBER}. */
    long target(long now) {
        long t = target(lambda, now);
        return lead > RingWireBounds.MAX_NUMBER - t ? RingWireBounds.MAX_NUMBER : t + lead;
    }

    /**
     * A skip to {@code upTo} was emitted (decided, in instance order) at the core's current time: a
     * clock reading of the coordinator that proposed it. The lead becomes at least what it ran
     * ahead of this member's own clock target.
     */
    void skipDecided(long upTo) {
        if (lambda > 0) {
            raiseLead(upTo - target(lambda, now.getAsLong()));
        }
    }

    /** Another ring of this process saw a lead of {@code other}: this ring's lead is at least that. */
    void adoptLead(long other) {
        if (lambda > 0) {
            raiseLead(other);
        }
    }

    private void raiseLead(long candidate) {
        long raised = Math.min(candidate, RingWireBounds.MAX_NUMBER);
        if (raised > lead) {
            if (raised - lead >= allowance) {
                checked = false;   // a jump of an interval or more: catch up now, not a Δ later
            }
            lead = raised;
        }
    }

    /** The lead: logical instances the highest skip target seen ran ahead of this member's own clock; 0 at first. */
    long lead() {
        return lead;
    }

    /** Whether λ &gt; 0. */
    boolean enabled() {
        return lambda > 0;
    }

    /** Δ in nanoseconds. */
    long intervalNanos() {
        return deltaNanos;
    }

    /** This coordinator opened {@code instance} with {@code vid}. */
    void opened(long instance, ValueId vid) {
        if (lambda > 0) {
            inFlight.put(instance, vid);
        }
    }

    /** Everything below {@code firstUndecided} was emitted (or skipped by a snapshot). */
    void emittedBelow(long firstUndecided) {
        if (!inFlight.isEmpty()) {
            inFlight.headMap(firstUndecided, false).clear();
        }
    }

    /** This member stopped coordinating the round: what it opened is no longer its to count. */
    void roundEnded() {
        inFlight.clear();
    }

    /** k: {@code logicalNext} carried over the open instances in instance order (rule 1). */
    long estimate(long logicalNext) {
        long k = logicalNext;
        for (Map.Entry<Long, ValueId> e : inFlight.entrySet()) {
            k = LogicalNumbering.after(k, e.getValue());
        }
        return k;
    }

    /**
     * Every Δ: the target of the skip due at {@code now} (the estimate is below it), else -1. The
     * first call (this member starts coordinating, or starts again) checks at once.
     */
    long skipDue(long now, long logicalNext) {
        if (lambda == 0 || (checked && now - nextCheck < 0)) {
            return -1;
        }
        checked = true;
        nextCheck = now + deltaNanos;
        long target = target(now);
        return estimate(logicalNext) < target ? target : -1;
    }

    /** The next check is due at once (a new round is led: catch up without waiting for Δ). */
    void checkSoon() {
        checked = false;
    }

    /** When the next check is due, or {@code Long.MIN_VALUE} if at once. */
    long nextCheck() {
        return checked ? nextCheck : Long.MIN_VALUE;
    }

    /** The cap: λ &gt; 0 and the estimate {@code k} ({@link #estimate}) is one interval (λ·Δ) or more ahead of the target (with the lead). */
    boolean capped(long now, long k) {
        return lambda > 0 && k >= target(now) + allowance;
    }

    /** The cap held back {@code head}, the oldest waiting proposal: counted once per proposal. */
    void heldBack(ValueId head) {
        if (!head.equals(lastCapped)) {
            lastCapped = head;
            capped++;
        }
    }

    /** Proposals the cap held back (event {@code proposals.capped}). */
    long capped() {
        return capped;
    }
}
