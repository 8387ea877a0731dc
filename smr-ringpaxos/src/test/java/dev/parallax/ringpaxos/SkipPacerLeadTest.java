package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pace lead of {@link SkipPacer} (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1 l.13-20): a skip target ahead of this member's clock raises the target by what it
 * ran ahead, never lowers it, and catches up at once; targets seen after they were set (the clocks
 * agree) change nothing; λ = 0 ignores all of it.
 */
class SkipPacerLeadTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long LAMBDA = 1000;

    private final long[] now = {10 * SECOND};

    private SkipPacer pacer(long lambda) {
        RingConfig config = RingConfig.builder(3, Ring.Kind.U_RING).lambda(lambda).skipInterval(Duration.ofMillis(5)).build();
        return new SkipPacer(config, () -> now[0]);
    }

    @Test
    @DisplayName("Targets seen after they were set (synchronised clocks): no lead, the target is λ·now")
    void agreeingClocksLeaveNoLead() {
        SkipPacer p = pacer(LAMBDA);
        p.skipDecided(SkipPacer.target(LAMBDA, now[0] - 3 * MS));
        p.skipDecided(SkipPacer.target(LAMBDA, now[0]));
        assertThat(p.lead()).isZero();
        assertThat(p.target(now[0])).isEqualTo(10_000);
        assertThat(p.skipDue(now[0], 9_000)).isEqualTo(10_000);
    }

    @Test
    @DisplayName("A skip from a clock 60 s ahead: the lead is 60 s·λ, the target follows at λ, the next check is at once, and the cap moves with it")
    void fastSkipRaisesTheTarget() {
        SkipPacer p = pacer(LAMBDA);
        assertThat(p.skipDue(now[0], 0)).isEqualTo(10_000);   // the first check: λ·now
        assertThat(p.skipDue(now[0] + MS, 10_000)).isEqualTo(-1);   // not due before Δ
        p.skipDecided(70_000);   // the fast coordinator's reading, seen at 10 s
        assertThat(p.lead()).isEqualTo(60_000);
        assertThat(p.skipDue(now[0] + MS, 10_000)).as("a jump of an interval or more: checked at once").isEqualTo(70_001);
        now[0] += SECOND;
        assertThat(p.target(now[0])).isEqualTo(71_000);
        assertThat(p.capped(now[0], 71_004)).isFalse();
        assertThat(p.capped(now[0], 71_005)).isTrue();   // one interval (λΔ = 5) ahead
    }

    @Test
    @DisplayName("The lead is never lowered: a later, slower reading or a smaller lead from another ring changes nothing")
    void leadNeverGoesBack() {
        SkipPacer p = pacer(LAMBDA);
        p.adoptLead(60_000);
        p.skipDecided(10_500);
        p.adoptLead(5);
        assertThat(p.lead()).isEqualTo(60_000);
        p.skipDecided(80_000);
        assertThat(p.lead()).isEqualTo(70_000);
    }

    @Test
    @DisplayName("Saturation: a lead near the largest logical number keeps the target at RingWireBounds.MAX_NUMBER")
    void saturates() {
        SkipPacer p = pacer(LAMBDA);
        p.adoptLead(Long.MAX_VALUE);
        assertThat(p.lead()).isEqualTo(RingWireBounds.MAX_NUMBER);
        assertThat(p.target(now[0])).isEqualTo(RingWireBounds.MAX_NUMBER);
    }

    @Test
    @DisplayName("λ = 0: skips and other rings' leads are ignored")
    void offWithoutLambda() {
        SkipPacer p = pacer(0);
        p.skipDecided(70_000);
        p.adoptLead(60_000);
        assertThat(p.lead()).isZero();
        assertThat(p.skipDue(now[0], 0)).isEqualTo(-1);
    }
}
