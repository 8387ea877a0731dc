package dev.parallax.paxos.spaxos;

import dev.parallax.core.membership.Membership;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Dissemination's recovery from amnesia (docs/protocols/s-paxos.md "Recovery from amnesia"): after
 * an unclean stop whose log may have lost bodies this replica had acked (or, as origin, forwarded),
 * its peers still count it as a holder (they keep the highest watermark it ever acked). Before it
 * counts as recovered it must hold again everything it may have been counted for:
 * <ol>
 *   <li>it hears an ack vector ({@code Forward} or {@code Ack}) from {@code n - f} distinct peers
 *       after its restart ({@code f+1} the stable holders; for odd {@code n} that is
 *       {@code n - q + 1}, {@code q} the Paxos quorum, as the ordering layer's recovery); the
 *       <em>target</em> is, per origin
 *       stream, the highest watermark those vectors carried (every vector from a peer counts until
 *       the last needed peer is heard; then the target is fixed);</li>
 *   <li>its own watermark reaches the target in every stream: each id up to it is held, or was
 *       executed (dropped after execution, or covered by an installed snapshot).</li>
 * </ol>
 * Why that is enough: an id that became stable had {@code f+1} holders, so at least {@code f}
 * besides this replica; at most {@code (n - 1) - (n - f) = f - 1} peers are unheard (for
 * {@code n = 2f+1}: {@code q - 2}), so a heard peer holds it and acked it in the vector heard.
 * Seed 002 (S-Paxos) §IV-B a needs one correct holder per stable id; this restores the count that
 * rule 7 (peers keep the max watermark) relies on before the next crash. A single replica has
 * nobody to ask and is recovered at once.
 *
 * <p><b>Membership.</b> {@code n} and {@code f} are those of the voters of the membership in effect
 * ({@link DisseminationGroup} rule M4), evaluated whenever a vector arrives or completion is tried:
 * only voters' vectors count as heard (only voters are counted as holders), and a voter removed
 * meanwhile no longer counts nor is waited for.
 *
 * <p>Not thread-safe: owned by {@link DisseminationCore}'s driver thread. Deterministic.
 */
final class DisseminationRecovery {
    private final int self;
    private int heard;
    private final TreeMap<OriginStream, Long> target = new TreeMap<>();
    private boolean recovering;
    private boolean fixed;

    /**
     * @param self     this replica's id (never counts as heard)
     * @param amnesiac whether the log may have lost records: recovering until complete; else never
     */
    DisseminationRecovery(int self, boolean amnesiac) {
        this.self = self;
        this.recovering = amnesiac;
    }

    /**
     * The voters of {@code m} other than this replica that must be heard: {@code n - f}, at most
     * every other voter ({@code n = 2}: {@code f = 0}, the one peer).
     */
    private int needed(Membership m) {
        int v = m.voterCount();
        int others = v - (m.isVoter(self) ? 1 : 0);
        return Math.max(0, Math.min(others, v - (v - 1) / 2));
    }

    private int heardVoters(Membership m) {
        return Integer.bitCount(heard & m.voters() & ~(1 << self));
    }

    /** Whether recovery has not completed yet (always false for a replica that was not amnesiac). */
    boolean recovering() {
        return recovering;
    }

    /** Whether {@code n - f} voters of {@code m} were heard: the target is fixed (and stays so). */
    boolean targetFixed(Membership m) {
        if (!fixed && heardVoters(m) >= needed(m)) {
            fixed = true;
        }
        return fixed;
    }

    /** The target watermark of {@code s} (0: none, or not recovering). */
    long target(OriginStream s) {
        Long t = recovering ? target.get(s) : null;
        return t == null ? 0 : t;
    }

    /** Whether the target names {@code id}: it is needed for the recovery to complete. */
    boolean needs(BatchId id) {
        return recovering && id.sn() <= target(OriginStream.of(id));
    }

    /** Voter {@code from} of {@code m} sent its ack vector: raises the target while it is not fixed. */
    void heard(int from, AckVector vector, Membership m) {
        if (!recovering || targetFixed(m) || from == self || !m.isVoter(from)) {
            return;
        }
        for (AckVector.Entry e : vector.entries()) {
            target.merge(new OriginStream(e.origin(), e.incarnation()), e.watermark(), Math::max);
        }
        heard |= 1 << from;
    }

    /**
     * Completes the recovery if the target is fixed and {@code watermark} reaches it in every
     * stream.
     *
     * @return whether the recovery completed in this call
     */
    boolean tryComplete(ToLongFunction<OriginStream> watermark, Membership m) {
        if (!recovering || !targetFixed(m)) {
            return false;
        }
        for (Map.Entry<OriginStream, Long> e : target.entrySet()) {
            if (watermark.applyAsLong(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        recovering = false;
        target.clear();
        return true;
    }
}
