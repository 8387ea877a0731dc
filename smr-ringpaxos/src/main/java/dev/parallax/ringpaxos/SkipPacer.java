package dev.parallax.ringpaxos;

import java.util.Map;
import java.util.TreeMap;

/**
 * The coordinator's skip rate λ (Multi-Ring Paxos plan, decisions 2-3; seed 003 (Ring Paxos /
 * Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20), as a pure function of the core's {@code now} —
 * nanoseconds since the Unix epoch when λ &gt; 0 — and of the ring's logical numbering:
 * <ul>
 *   <li>the target {@code λ · ⌊now / 1 ms⌋ / 1000} (λ per second: the errata of l.44, which says
 *       "per Δ", after §5.4.6's measurements), the same function of wall time at every ring;</li>
 *   <li>the estimate {@code k}: the logical next of the emitted prefix, carried over the instances
 *       this coordinator opened and that are not emitted yet, in instance order (rule 1);</li>
 *   <li>every Δ ({@code ring.delta.ms}), if {@code k < target}, ONE skip to the target is due
 *       (Alg. 1 l.17-18 loops {@code for k ← k to skip}, proposing {@code skip − k + 1} instances;
 *       one instance reaching the absolute target does the same work);</li>
 *   <li>the cap: while {@code k ≥ target + max(1, ⌊λ·Δ / 1 s⌋)} (one interval ahead), no client
 *       instance opens — back-pressure where Alg. 1 would let the ring run ahead of the others.</li>
 * </ul>
 * λ = 0 turns all of it off. A new coordinator has nothing to recover: its own logical next of the
 * decided prefix is its {@code k}, and one skip to the absolute target catches the ring up.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class SkipPacer {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final long lambda;
    private final long deltaNanos;
    private final long allowance;
    /** Instances this coordinator opened and that are not emitted yet, with what it opened them with. */
    private final TreeMap<Long, ValueId> inFlight = new TreeMap<>();
    private boolean checked;
    private long nextCheck;
    private ValueId lastCapped;
    private long capped;

    SkipPacer(RingConfig config) {
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
        long target = target(lambda, now);
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

    /** The cap: λ &gt; 0 and the estimate {@code k} ({@link #estimate}) is one interval (λ·Δ) or more ahead of the target. */
    boolean capped(long now, long k) {
        return lambda > 0 && k >= target(lambda, now) + allowance;
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
