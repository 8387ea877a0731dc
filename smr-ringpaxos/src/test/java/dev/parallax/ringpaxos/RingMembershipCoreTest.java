package dev.parallax.ringpaxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ring's member set as decided state, one rule each ({@link RingGroup}, rules G1–G8; Lamport,
 * Malkhi and Zhou, "Reconfiguring a State Machine", §3; seed 003 (Ring Paxos) §3.2–§3.3), on
 * hand-driven cores: three initial members 0..2, ids up to 4 ({@code ring.member.ids = 5}), α = the
 * window = 4, and processes 3 and 4 that may join.
 */
class RingMembershipCoreTest {
    private static final int ALPHA = 4;

    /** What the cores did: the ring of each round led, the round each instance was opened in. */
    private static final class Watch implements RingPaxosCore.Observer {
        final Map<Long, Ring> rings = new HashMap<>();
        final List<long[]> opened = new ArrayList<>();

        @Override
        public void roundLed(long round, Ring ring) {
            rings.put(round, ring);
        }

        @Override
        public void opened(long instance, long round, ValueId vid, ByteBuffer value) {
            opened.add(new long[] {instance, round});
        }
    }

    private final Watch watch = new Watch();

    private static RingConfig config(Ring.Kind kind) {
        return RingConfig.builder(3, kind).memberIds(5).window(ALPHA).build();
    }

    private RingCluster cluster(Ring.Kind kind) {
        RingCluster c = new RingCluster(config(kind), 5, id -> watch);
        c.autoDelivered(true);
        c.start();
        c.settle(10, 5);
        return c;
    }

    /** Asks member {@code id} to propose {@code change}; its refusal, or null. */
    private static String change(RingCluster c, int id, MembershipChange change) {
        String[] refusal = new String[1];
        c.act(id, "membership " + change, (core, now, out) -> refusal[0] = core.proposeMembership(change, now, out));
        return refusal[0];
    }

    private static MembershipHistory history(RingCluster c, int id) {
        return c.core(id).membershipHistory();
    }

    /** The instances member {@code id} delivered a configuration command at. */
    private static List<Long> configInstances(RingCluster c, int id) {
        List<Long> at = new ArrayList<>();
        List<RingValue> d = c.delivered(id);
        for (int i = 0; i < d.size(); i++) {
            if (((RingValue.Chosen) d.get(i)).vid().isConfig()) {
                at.add((long) i);
            }
        }
        return at;
    }

    /** G3/G5: every instance opened was opened on a ring of acceptors that are a majority of its set's voters. */
    private void assertEveryInstanceOpenedOnItsSet(MembershipHistory h) {
        assertThat(watch.opened).isNotEmpty();
        for (long[] o : watch.opened) {
            Ring ring = watch.rings.get(o[1]);
            Membership m = h.at(o[0]);
            assertThat(ring).as("round %d led", o[1]).isNotNull();
            assertThat(ring.acceptors()).as("instance %d on %s under %s", o[0], ring, m).isEqualTo(m.quorum());
            for (int p = 0; p < ring.acceptors(); p++) {
                assertThat(m.isVoter(ring.member(p))).as("instance %d: acceptor %d of %s votes in %s", o[0], ring.member(p),
                        ring, m).isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("G1, G2 (R1): a change is a ring value of its own kind, decided in the ring, delivered to no state machine, "
            + "and in effect at its instance + α at every member")
    void aChangeIsDecidedAndTakesEffectAlphaLater(Ring.Kind kind) {
        RingCluster c = cluster(kind);
        assertThat(change(c, 0, MembershipChange.addLearner(3, "h3:1", ALPHA))).isNull();
        c.settle(10, 20);
        List<Long> at = configInstances(c, 1);
        assertThat(at).hasSize(1);
        long decided = at.get(0);
        RingValue.Chosen chosen = (RingValue.Chosen) c.delivered(1).get((int) decided);
        assertThat(MembershipChange.decode(chosen.bytes())).isEqualTo(MembershipChange.addLearner(3, "h3:1", ALPHA));
        assertThat(RingPaxosBroadcast.delivery(chosen, null)).as("no state machine sees it").isNull();
        for (int id = 0; id < 3; id++) {
            MembershipHistory h = history(c, id);
            assertThat(h.entries().keySet()).as("member %d", id).containsExactly(0L, decided + ALPHA);
            assertThat(h.at(decided + ALPHA - 1).isMember(3)).isFalse();
            assertThat(h.at(decided + ALPHA).isLearner(3)).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("G3, G4, G5: at a replacement's effective instance the coordinator re-forms, Phase 1 over the new set, "
            + "and every instance is opened on a ring drawn from its own set's voters")
    void reformsOnTheNewSetAtTheEffectiveInstance(Ring.Kind kind) {
        RingCluster c = cluster(kind);
        assertThat(change(c, 0, MembershipChange.addLearner(3, "h3:1", ALPHA))).isNull();
        c.settle(10, 30);
        for (int k = 0; k < 3; k++) {
            c.propose(k, batch("before" + k));
        }
        c.settle(10, 30);
        assertThat(change(c, 0, MembershipChange.replace(2, 3, "", ALPHA))).isNull();
        for (int k = 0; k < 12; k++) {
            c.propose(k % 2, batch("after" + k));
            c.settle(10, 2);
        }
        c.settle(10, 40);
        MembershipHistory h = history(c, 0);
        assertThat(h.latest().voters()).isEqualTo(0b1011);
        assertEveryInstanceOpenedOnItsSet(h);
        long effective = h.entries().keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(watch.opened.stream().anyMatch(o -> o[0] >= effective)).as("instances opened in the new set").isTrue();
        Ring ring = c.core(0).ring();
        assertThat(ring.isAcceptor(2)).as("the replaced voter is no acceptor: %s", ring).isFalse();
        assertThat(c.texts(3)).as("the new voter has everything").isEqualTo(c.texts(0));
        assertThat(c.texts(0)).contains("after11");
    }

    @Test
    @DisplayName("G4 (P2): Phase 1 needs a majority of the voters of every set that governs an instance from its start")
    void phaseOneCoversEverySet() {
        RingConfig config = config(Ring.Kind.U_RING);
        RingGroup g = new RingGroup(config, 1, List.of());
        assertThat(g.phaseOneCovers(0b011, 0)).isTrue();
        g.delivered(0, ValueId.configuration(0, 0), ByteBuffer.wrap(MembershipChange.addLearner(3, "h:1", ALPHA).encode()));
        g.delivered(1, ValueId.configuration(0, 1), ByteBuffer.wrap(MembershipChange.replace(0, 3, "", ALPHA).encode()));
        long effective = 1 + ALPHA;
        assertThat(g.at(effective).voters()).isEqualTo(0b1110);
        assertThat(g.phaseOneCovers(0b0011, 2)).as("{0,1}: a majority of {0,1,2} only").isFalse();
        assertThat(g.phaseOneCovers(0b0110, 2)).as("{1,2}: a majority of both").isTrue();
        assertThat(g.phaseOneCovers(0b1001, effective)).as("from the effective instance only {1,2,3} counts").isFalse();
        assertThat(g.phaseOneCovers(0b1010, effective)).isTrue();
        assertThat(g.boundaryAfter(2)).as("the learner's addition").isEqualTo(ALPHA);
        assertThat(g.boundaryAfter(ALPHA)).isEqualTo(effective);
        assertThat(g.boundaryAfter(effective)).isEqualTo(Long.MAX_VALUE);
        assertThat(g.mayOpen(ALPHA - 1, 2, g.at(2))).isTrue();
        assertThat(g.mayOpen(ALPHA, 2, g.at(2))).as("another set governs it").isFalse();
        assertThat(g.mayOpen(effective, 2, g.at(ALPHA))).isFalse();
        assertThat(g.mayOpen(effective, 2, g.at(effective))).isTrue();
        assertThat(g.mayOpen(2 + ALPHA, 2, g.at(effective))).as("R2: not known at first undecided 2").isFalse();
        assertThat(g.delivered(2, ValueId.configuration(0, 2), ByteBuffer.wrap(MembershipChange.remove(3, 1).encode())))
                .as("a change whose α is below the window is reported").contains("below this replica's window");
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("G6 (P3): an idle ring opens NOOPs up to a decided change's effective instance")
    void anIdleRingReachesTheEffectiveInstance(Ring.Kind kind) {
        RingCluster c = cluster(kind);
        assertThat(change(c, 0, MembershipChange.addLearner(3, "h3:1", ALPHA))).isNull();
        c.settle(10, 20);
        long decided = configInstances(c, 0).get(0);
        for (int id = 0; id < 3; id++) {
            assertThat(c.core(id).firstUndecided()).as("member %d", id).isGreaterThanOrEqualTo(decided + ALPHA);
            assertThat(history(c, id).pending(c.core(id).firstUndecided())).isEqualTo(-1);
            assertThat(c.core(id).membership().isLearner(3)).isTrue();
        }
    }

    @Test
    @DisplayName("G7 (R3): one change at a time, only at the coordinator, ids in range and never reused, learners first; "
            + "a fixed ring refuses every change")
    void refusals() {
        RingCluster fixed = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).build());
        fixed.start();
        assertThat(change(fixed, 0, MembershipChange.remove(2, 32))).contains("members are fixed");

        RingCluster c = cluster(Ring.Kind.U_RING);
        assertThat(change(c, 1, MembershipChange.remove(2, ALPHA))).contains("does not lead");
        assertThat(change(c, 0, MembershipChange.addLearner(7, "h:1", ALPHA))).contains("outside this ring's ids 0..4");
        assertThat(change(c, 0, MembershipChange.promote(2, ALPHA))).contains("not a learner");
        assertThat(change(c, 0, MembershipChange.replace(2, 3, "h:1", ALPHA))).contains("must join as a learner");
        assertThat(change(c, 0, MembershipChange.remove(2, ALPHA))).isNull();
        assertThat(change(c, 0, MembershipChange.addLearner(3, "h:1", ALPHA))).contains("one change at a time");
        c.settle(10, 30);
        assertThat(c.core(0).membership().isMember(2)).isFalse();
        assertThat(change(c, 0, MembershipChange.addLearner(2, "h:1", ALPHA))).contains("was removed before");
        assertThat(change(c, 0, MembershipChange.remove(1, ALPHA))).as("{0} alone is no majority of {0,1}")
                .isNull();
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("G8: a learner receives every decision (U-Ring: on the ring after the acceptors; M-Ring: off it, as a "
            + "datagram learner) and catches up on what came before it")
    void aLearnerReceivesDecisions(Ring.Kind kind) {
        RingCluster c = cluster(kind);
        c.propose(1, batch("early"));
        c.settle(10, 10);
        assertThat(change(c, 0, MembershipChange.addLearner(3, "h3:1", ALPHA))).isNull();
        c.settle(10, 40);
        for (int k = 0; k < 6; k++) {
            c.propose(k % 3, batch("v" + k));
            c.settle(10, 3);
        }
        c.settle(10, 30);
        assertThat(c.texts(3)).isEqualTo(c.texts(0)).contains("early", "v5");
        Ring ring = c.core(0).ring();
        if (kind == Ring.Kind.U_RING) {
            assertThat(c.texts(4)).as("a process never added hears nothing").isEmpty();
            assertThat(ring.position(3)).as("%s", ring).isGreaterThanOrEqualTo(ring.acceptors());
        } else {
            // Any process in the datagram group may overhear decisions; only members are asked.
            assertThat(ring.contains(3)).as("%s", ring).isFalse();
        }
        assertEveryInstanceOpenedOnItsSet(history(c, 0));
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("G5: a coordinator removed by a change steps down at its effective instance; a voter of the new set leads")
    void aRemovedCoordinatorStepsDown(Ring.Kind kind) {
        RingCluster c = cluster(kind);
        assertThat(change(c, 0, MembershipChange.remove(0, ALPHA))).isNull();
        c.settle(10, 20);
        c.settle(100, 30);
        for (int k = 0; k < 4; k++) {
            c.propose(1 + k % 2, batch("w" + k));
            c.settle(10, 5);
        }
        c.settle(10, 30);
        assertThat(c.core(0).isCoordinator()).isFalse();
        int leader = c.core(1).isCoordinator() ? 1 : 2;
        assertThat(c.core(leader).isCoordinator()).isTrue();
        assertThat(c.core(leader).ring().contains(0)).isFalse();
        assertThat(c.texts(1)).contains("w3").isEqualTo(c.texts(2));
        assertEveryInstanceOpenedOnItsSet(history(c, 1));
    }

    @Test
    @DisplayName("durability: a compaction logs the history (Members record); a restart recovers it although the command "
            + "was trimmed, and an installed snapshot's history is taken only if it applied further")
    void theHistorySurvivesCompactionRestartAndSnapshots() {
        RingCluster c = cluster(Ring.Kind.U_RING);
        assertThat(change(c, 0, MembershipChange.addLearner(3, "h3:1", ALPHA))).isNull();
        c.settle(10, 30);
        MembershipHistory before = history(c, 1);
        byte[] encoded = before.encode();
        long first = c.core(1).firstUndecided();
        c.compact(1, first);
        assertThat(c.trace()).anyMatch(l -> l.contains(" 1 persist Members("));
        c.crashAndRestart(1);
        assertThat(history(c, 1).latest()).isEqualTo(before.latest());
        assertThat(history(c, 1).appliedThrough()).isEqualTo(before.appliedThrough());

        RingPaxosCore fresh = new RingPaxosCore(config(Ring.Kind.U_RING), 4, List.of(), false, 0, 0, RingPaxosCore.Observer.NONE);
        assertThat(fresh.membershipHistory().latest().isMember(3)).isFalse();
        assertThat(fresh.restoreMembership(ByteBuffer.wrap(encoded))).isTrue();
        assertThat(fresh.membershipHistory().latest().isLearner(3)).isTrue();
        assertThat(fresh.restoreMembership(ByteBuffer.wrap(new MembershipHistory(Membership.initial(3), ALPHA).encode())))
                .as("an older history").isFalse();
    }

    @Test
    @DisplayName("G5 liveness: suspect time-outs are ranked among the voters of the set in effect (a non-voter last), "
            + "so two voters never share a rank and duel; a fixed ring ranks over its n ids as before")
    void suspicionRanksAmongTheVoters() {
        RingConfig config = config(Ring.Kind.U_RING);
        long suspect = config.suspectNanos();
        Membership set = Membership.initial(3).apply(MembershipChange.addLearner(4, "h:1", ALPHA))
                .apply(MembershipChange.replace(2, 4, "", ALPHA));     // voters {0, 1, 4}
        long roundOf4 = 4;                                              // coordinator(4) = 4 mod 5
        RingSuspicion one = new RingSuspicion(config, 1, () -> set);
        RingSuspicion zero = new RingSuspicion(config, 0, () -> set);
        RingSuspicion three = new RingSuspicion(config, 3, () -> set);
        assertThat(zero.timeoutNanos(roundOf4, 4)).as("0 is the first voter after 4").isEqualTo(suspect);
        assertThat(one.timeoutNanos(roundOf4, 4)).as("1 the second").isEqualTo(suspect + suspect / 2);
        assertThat(three.timeoutNanos(roundOf4, 4)).as("a non-voter last").isEqualTo(suspect + 2 * (suspect / 2));
        assertThat(new RingSuspicion(config, 4, () -> set).timeoutNanos(1, 1)).as("4 right after 1")
                .isEqualTo(suspect);
        RingConfig fixed = RingConfig.builder(3, Ring.Kind.U_RING).build();
        assertThat(new RingSuspicion(fixed, 2, () -> set).timeoutNanos(0, 0)).as("ranks over 0..n-1")
                .isEqualTo(fixed.suspectNanos() + fixed.suspectNanos() / 2);
    }
}
