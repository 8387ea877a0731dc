package dev.parallax.ringpaxos;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Skips at rate λ in the ring core (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1 l.13-20; plan decisions 1-3), over the scripted cluster on virtual time (the
 * cluster's {@code now} is the epoch clock here: target = λ·⌊now / 1 ms⌋ / 1000).
 */
class RingSkipsTest {
    private static final long LAMBDA = 1000;       // one logical instance per millisecond
    private static final long DELTA_MS = 5;        // Δ; the cap allows λ·Δ = 5 instances ahead

    private static RingConfig config(Ring.Kind kind, long lambda) {
        return RingConfig.builder(3, kind).lambda(lambda).skipInterval(Duration.ofMillis(DELTA_MS)).build();
    }

    private static long target(long now) {
        return LAMBDA * (now / MS) / 1000;
    }

    private static Map<String, Long> events(RingPaxosCore core) {
        Map<String, Long> events = new HashMap<>();
        core.reportEvents(events::put);
        return events;
    }

    /** The skips member {@code id} handed out, in order. */
    private static List<Long> skips(RingCluster c, int id) {
        List<Long> out = new ArrayList<>();
        for (RingValue v : c.delivered(id)) {
            ValueId vid = ((RingValue.Chosen) v).vid();
            if (vid.isSkip()) {
                out.add(vid.upTo());
            }
        }
        return out;
    }

    /** Rule 1 over member {@code id}'s handed-out sequence (the check does not trust the core's count). */
    private static long replay(RingCluster c, int id) {
        long next = 0;
        for (RingValue v : c.delivered(id)) {
            ValueId vid = ((RingValue.Chosen) v).vid();
            next = vid.isSkip() ? Math.max(next, vid.upTo()) : vid.isNoop() ? next : next + 1;
        }
        return next;
    }

    private static void assertSameLogicalNextEverywhere(RingCluster c, int... members) {
        long expected = c.core(members[0]).logicalNext();
        for (int m : members) {
            assertThat(c.core(m).logicalNext()).as("member %d", m).isEqualTo(expected).isEqualTo(replay(c, m));
            assertThat(c.delivered(m)).as("member %d's decided sequence", m).isEqualTo(c.delivered(members[0]));
        }
    }

    @Test
    @DisplayName("the target is λ·⌊now / 1 ms⌋ / 1000 (λ per second, the errata of Alg. 1 l.44), overflow-safe; the cap allows max(1, ⌊λΔ⌋)")
    void targetArithmetic() {
        assertThat(SkipPacer.target(1000, 1_700_000_000_123_456_789L)).isEqualTo(1_700_000_000_123L);
        assertThat(SkipPacer.target(3, 1_999_999L)).isZero();            // 1 ms: 3/1000 → 0
        assertThat(SkipPacer.target(3, 334_000_000L)).isEqualTo(1);      // 334 ms: 1002/1000 → 1
        assertThat(SkipPacer.target(0, Long.MAX_VALUE)).isZero();
        assertThat(SkipPacer.target(5, -1)).isZero();
        // λ at its maximum in 2027 (1.8·10^18 ns): 1.8·10^18, in range; past 2116 the target saturates at the wire's bound.
        assertThat(SkipPacer.target(RingConfig.MAX_LAMBDA, 1_800_000_000_000_000_000L)).isEqualTo(1_800_000_000_000_000_000L);
        assertThat(SkipPacer.target(RingConfig.MAX_LAMBDA, Long.MAX_VALUE)).isEqualTo(RingWireBounds.MAX_NUMBER);
        assertThat(SkipPacer.target(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(RingWireBounds.MAX_NUMBER);
        assertThat(SkipPacer.allowance(1000, 5 * MS)).isEqualTo(5);
        assertThat(SkipPacer.allowance(RingConfig.MAX_LAMBDA, Duration.ofSeconds(60).toNanos())).isEqualTo(60_000_000_000L);
        assertThat(SkipPacer.allowance(100, 5 * MS)).isZero();   // the pacer then allows one
    }

    @Test
    @DisplayName("rule 1: a client value +1, a NOOP +0, a skip next = max(next, upTo) — a stale or repeated skip is harmless")
    void ruleOne() {
        LogicalNumbering l = new LogicalNumbering();
        l.emitted(new ValueId(0, 1, 1));
        l.emitted(ValueId.NOOP);
        assertThat(l.next()).isEqualTo(1);
        l.emitted(ValueId.skip(10));
        l.emitted(ValueId.skip(10));
        l.emitted(ValueId.skip(4));
        assertThat(l.next()).isEqualTo(10);
        l.emitted(new ValueId(1, 1, 1));
        assertThat(l.next()).isEqualTo(11);
        assertThat(l.skipsDecided()).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("Alg. 1 l.13-20: an idle ring with λ > 0 decides ONE skip per Δ, to the target; logicalNext is the same at every member")
    void idleRingSkipsToTheTarget(Ring.Kind kind) {
        RingCluster c = new RingCluster(config(kind, LAMBDA));
        c.start();
        assertThat(c.core(0).isCoordinator()).isTrue();
        for (int i = 0; i < 20; i++) {
            c.tick(DELTA_MS * MS);
            c.deliverAll(10_000);
            long t = target(c.now());
            assertThat(c.core(0).logicalNext()).as("after tick %d", i).isEqualTo(t);
            assertSameLogicalNextEverywhere(c, 0, 1, 2);
        }
        List<Long> skips = skips(c, 1);
        // One skip per Δ (the first on the first tick after Phase 1, then one per tick), each to the target of its tick.
        assertThat(skips).hasSize(20);
        assertThat(skips.get(skips.size() - 1)).isEqualTo(target(c.now()));
        for (int i = 1; i < skips.size(); i++) {
            assertThat(skips.get(i) - skips.get(i - 1)).isEqualTo(LAMBDA * DELTA_MS / 1000);
        }
        assertThat(events(c.core(0))).containsEntry("skips.proposed", 20L).containsEntry("skips.decided", 20L)
                .containsEntry("proposals.capped", 0L);
        assertThat(events(c.core(2))).containsEntry("skips.proposed", 0L).containsEntry("skips.decided", 20L);
        assertThat(c.texts(2)).isEmpty();    // skips carry no body: nothing for the client path
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("skips on demand (ring.skip.demand=on; off does nothing): the idle ring's coordinator skips at once to min(the frontier asked for, its target + lead), "
            + "so no lead is raised; nothing when the ring is not behind, nothing at a member that does not coordinate")
    void skipOnDemand(Ring.Kind kind) {
        RingCluster off = new RingCluster(config(kind, LAMBDA));
        off.start();
        off.tick(DELTA_MS * MS);
        off.deliverAll(10_000);
        long paced = off.core(0).logicalNext();
        off.tick(2 * MS);
        off.act(0, "demand with ring.skip.demand=off (the default)", (core, now, out) -> core.onSkipDemand(paced + 1, now, out));
        off.deliverAll(10_000);
        assertThat(off.core(0).logicalNext()).as("off: a demand does nothing").isEqualTo(paced);
        RingCluster c = new RingCluster(config(kind, LAMBDA).toBuilder().set(RingKeys.SKIP_DEMAND, "on").build());
        c.start();
        c.tick(DELTA_MS * MS);
        c.deliverAll(10_000);
        long next = c.core(0).logicalNext();
        assertThat(next).isEqualTo(target(c.now()));
        c.tick(2 * MS);                      // less than Δ: no paced skip is due; the target moved 2 on
        c.deliverAll(10_000);
        assertThat(c.core(0).logicalNext()).isEqualTo(next);
        c.act(0, "demand", (core, now, out) -> core.onSkipDemand(next + 1, now, out));
        c.deliverAll(10_000);
        assertThat(c.core(0).logicalNext()).as("skipped to the frontier asked for").isEqualTo(next + 1);
        assertSameLogicalNextEverywhere(c, 0, 1, 2);
        c.act(0, "demand past the target", (core, now, out) -> core.onSkipDemand(next + 1_000, now, out));
        c.deliverAll(10_000);
        assertThat(c.core(0).logicalNext()).as("no further than this coordinator's clock").isEqualTo(target(c.now()));
        assertThat(c.core(0).paceLead()).as("a demand skip raises no lead").isZero();
        assertThat(c.core(1).paceLead()).isZero();
        c.act(0, "demand behind", (core, now, out) -> core.onSkipDemand(next, now, out));
        c.deliverAll(10_000);
        assertThat(events(c.core(0))).containsEntry("skips.demanded", 2L);
        c.tick(MS);                          // the target moves 1 on, still no paced skip due
        c.deliverAll(10_000);
        long before = c.core(0).logicalNext();
        c.act(1, "demand at a member that does not coordinate: sent to the coordinator (SkipDemand)",
                (core, now, out) -> core.onSkipDemand(before + 1, now, out));
        c.deliverAll(10_000);
        assertThat(c.core(0).logicalNext()).as("the coordinator skipped on the forwarded demand").isEqualTo(before + 1);
        assertThat(events(c.core(0))).containsEntry("skips.demanded", 3L);
        assertThat(events(c.core(1))).containsEntry("skips.demanded", 0L);
        assertSameLogicalNextEverywhere(c, 0, 1, 2);
        c.act(2, "a stale round's demand is ignored", (core, now, out) -> { });
        RingPaxosCore coordinator = c.core(0);
        c.act(0, "stale", (core, now, out) -> core.onMessage(2, new RingMessage.SkipDemand(core.round() - 1, before + 9), now, out));
        c.deliverAll(10_000);
        assertThat(events(coordinator)).containsEntry("skips.demanded", 3L);
    }

    @org.junit.jupiter.api.Test
    @DisplayName("the process' rings share their client-value frontiers: a ring behind a grown frontier is asked once for "
            + "it if it is coordinated here, or if the frontier is this process' coordinator's; a ring not behind is not")
    void theRingsOfAProcessDemandSkipsOfEachOther() {
        RingPaxosBroadcast.PaceShare share = new RingPaxosBroadcast.PaceShare();
        List<String> pokes = new ArrayList<>();
        RingPaxosBroadcast.DemandSlot a = share.join(upTo -> pokes.add("a" + upTo));
        RingPaxosBroadcast.DemandSlot b = share.join(upTo -> pokes.add("b" + upTo));
        RingPaxosBroadcast.DemandSlot g = share.join(upTo -> pokes.add("g" + upTo));
        share.published(b, 10, 0, true);
        share.published(g, 5, 0, false);
        share.published(a, 21, 20, false);
        assertThat(pokes).as("b is coordinated here and behind; g is not coordinated here").containsExactly("b20");
        share.published(a, 21, 20, false);
        assertThat(pokes).as("no growth, no demand").containsExactly("b20");
        share.published(a, 26, 25, false);
        assertThat(pokes).containsExactly("b20", "b25");
        share.published(b, 30, 0, true);
        share.published(a, 28, 27, false);
        assertThat(pokes).as("b passed the frontier").containsExactly("b20", "b25");
        share.published(b, 31, 31, true);
        assertThat(pokes).as("b's own coordinator opened past a and g: they are poked to send the demand on")
                .containsExactly("b20", "b25", "a31", "g31");
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("Alg. 1 l.16 (k < skip only): a ring busy at more than λ proposes no skip; the cap holds it at target + λΔ")
    void busyRingProposesNoSkip(Ring.Kind kind) {
        RingCluster c = new RingCluster(config(kind, LAMBDA));
        c.start();
        int sent = 0;
        for (int i = 0; i < 4; i++) {     // warm up: the first checks may skip
            c.tick(DELTA_MS * MS);
            for (int b = 0; b < 10; b++) {
                c.propose(1 + b % 2, batch("w" + sent++));
            }
            c.deliverAll(10_000);
        }
        long skipsBefore = events(c.core(0)).get("skips.proposed");
        for (int i = 0; i < 20; i++) {
            c.tick(DELTA_MS * MS);
            for (int b = 0; b < 10; b++) {        // 10 per Δ = 2000/s > λ
                c.propose(1 + b % 2, batch("v" + sent++));
            }
            c.deliverAll(10_000);
            assertThat(c.core(0).logicalNext()).as("tick %d", i).isEqualTo(target(c.now()) + LAMBDA * DELTA_MS / 1000);
            assertSameLogicalNextEverywhere(c, 0, 1, 2);
        }
        assertThat(events(c.core(0)).get("skips.proposed")).isEqualTo(skipsBefore);
        assertThat(events(c.core(0)).get("proposals.capped")).isPositive();
        assertThat(c.texts(0).size()).isLessThan(sent);   // the rest waits (proposers keep them pending)
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("plan decision 3: the cap refuses client instances beyond target + λΔ and resumes as time passes")
    void capHoldsAndResumes(Ring.Kind kind) {
        RingCluster c = new RingCluster(config(kind, LAMBDA));
        c.start();
        c.tick(DELTA_MS * MS);
        c.deliverAll(10_000);
        long t0 = target(c.now());
        assertThat(c.core(0).logicalNext()).isEqualTo(t0);     // the skip to the target
        for (int b = 0; b < 30; b++) {
            assertThat(c.propose(0, batch("c" + b))).isTrue();  // the coordinator's own: queued behind the cap
        }
        c.deliverAll(10_000);
        assertThat(c.texts(1)).hasSize(5);                      // λΔ = 5 ahead of the target, no more
        assertThat(c.core(0).logicalNext()).isEqualTo(t0 + 5);
        assertThat(c.core(0).capped()).isTrue();
        assertThat(c.core(0).canPropose()).isFalse();           // no eager partial batch while capped
        assertThat(events(c.core(0))).containsEntry("proposals.capped", 1L);
        c.tick(2 * MS);                                         // between two checks: the cap follows the clock
        c.deliverAll(10_000);
        assertThat(c.texts(1)).hasSize(7);
        for (int i = 0; i < 4; i++) {
            c.tick(DELTA_MS * MS);
            c.deliverAll(10_000);
        }
        assertThat(c.texts(1)).hasSize(27);
        assertThat(c.core(0).logicalNext()).isEqualTo(target(c.now()) + 5);
        c.tick(DELTA_MS * MS);
        c.deliverAll(10_000);
        assertThat(c.texts(1)).hasSize(30);                     // all in; no skip was due while ahead
        assertThat(c.core(0).capped()).isFalse();
        assertSameLogicalNextEverywhere(c, 0, 1, 2);
        assertThat(skips(c, 0)).containsExactly(t0);            // the first tick's; none while ahead of the target
    }

    @Test
    @DisplayName("λ = 0: no skips, no cap (plain U-Ring/M-Ring); logicalNext counts the client values")
    void lambdaZeroChangesNothing() {
        RingCluster c = new RingCluster(config(Ring.Kind.U_RING, 0));
        c.start();
        for (int b = 0; b < 40; b++) {
            c.propose(0, batch("z" + b));
        }
        c.settle(DELTA_MS, 40);
        assertThat(c.texts(2)).hasSize(40);
        assertThat(skips(c, 2)).isEmpty();
        assertThat(c.core(0).logicalNext()).isEqualTo(40);
        assertThat(c.core(0).capped()).isFalse();
        assertThat(events(c.core(0))).containsEntry("skips.proposed", 0L).containsEntry("skips.decided", 0L)
                .containsEntry("proposals.capped", 0L);
        assertSameLogicalNextEverywhere(c, 0, 1, 2);
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("plan decision 2: a new coordinator uses its own logicalNext of the decided prefix and catches up in ONE skip after a stall")
    void newCoordinatorCatchesUpInOneSkip(Ring.Kind kind) {
        List<String> opened = new ArrayList<>();
        RingCluster c = new RingCluster(config(kind, LAMBDA), id -> new RingPaxosCore.Observer() {
            @Override
            public void opened(long instance, long round, ValueId vid, ByteBuffer value) {
                if (id != 0) {    // the isolated coordinator goes on alone until it loses its quorum
                    opened.add(id + " " + vid);
                }
            }
        });
        c.start();
        for (int i = 0; i < 4; i++) {
            c.tick(DELTA_MS * MS);
            c.deliverAll(10_000);
        }
        c.propose(1, batch("before"));
        c.deliverAll(10_000);
        long before = c.core(1).logicalNext();
        assertThat(before).isEqualTo(target(c.now()) + 1);
        c.isolate(0);                     // the coordinator is gone: nobody skips while 1 suspects it
        opened.clear();
        long[] caughtUpAt = {-1};
        for (int i = 0; i < 200 && caughtUpAt[0] < 0; i++) {
            c.tick(DELTA_MS * MS);
            c.deliverAll(10_000);
            if (c.core(1).isCoordinator() && !skips(c, 2).isEmpty() && c.core(2).logicalNext() > before) {
                caughtUpAt[0] = c.now();
            }
        }
        assertThat(caughtUpAt[0]).as("member 1 took over and skipped").isPositive();
        assertThat(c.core(1).round()).isPositive();
        long stalled = target(caughtUpAt[0]) - before;
        assertThat(stalled).as("the stall, in logical instances").isGreaterThan(100);
        // One skip instance covered the whole stall: its target is the target of its tick.
        assertThat(opened).containsExactly("1 SKIP(" + target(caughtUpAt[0]) + ")");
        assertThat(c.core(1).logicalNext()).isEqualTo(target(caughtUpAt[0]));
        assertSameLogicalNextEverywhere(c, 1, 2);
        assertThat(events(c.core(1))).containsEntry("skips.proposed", 1L);
        c.propose(2, batch("after"));
        c.deliverAll(10_000);
        assertThat(c.texts(2)).containsExactly("before", "after");
        assertThat(c.core(2).logicalNext()).isEqualTo(target(caughtUpAt[0]) + 1);
    }

    @Test
    @DisplayName("after a restart logicalNext starts at 0 and counts the re-emitted prefix: equal to the others' here (nothing compacted)")
    void restartRecountsTheReplayedPrefix() {
        RingCluster c = new RingCluster(config(Ring.Kind.U_RING, LAMBDA));
        c.start();
        for (int i = 0; i < 6; i++) {
            c.tick(DELTA_MS * MS);
            c.propose(1, batch("r" + i));
            c.deliverAll(10_000);
        }
        long expected = c.core(1).logicalNext();
        c.crashAndRestart(2);
        assertThat(c.core(2).logicalNext()).isZero();   // nothing emitted yet: a lower bound
        c.settle(50, 20);       // its unsynced decisions were lost with the crash: catch-up (C6) brings them
        assertThat(c.core(2).logicalNext()).isGreaterThanOrEqualTo(expected).isEqualTo(c.core(1).logicalNext());
        assertSameLogicalNextEverywhere(c, 0, 1, 2);
    }
}
