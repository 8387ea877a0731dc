package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashMap;
import java.util.Map;

import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leadership transfer on a ring, one rule each ({@link RingHandOver}, rules T1–T4; Raft thesis
 * §3.10 adapted to Ring Paxos rounds), on hand-driven cores with the default time-outs (heartbeat
 * 50 ms, suspect 500 ms).
 */
class RingHandOverTest {

    private static RingCluster cluster(Ring.Kind kind, int members) {
        RingCluster c = new RingCluster(RingConfig.builder(members, kind).build());
        c.autoDelivered(true);
        c.start();
        c.settle(10, 5);
        return c;
    }

    /** Asks member {@code id} to hand its coordination to {@code target}; its refusal, or null. */
    private static String transfer(RingCluster c, int id, int target) {
        String[] refusal = new String[1];
        c.act(id, "transfer to " + target, (core, now, out) -> refusal[0] = core.transferLeadership(target, now));
        return refusal[0];
    }

    private static long event(RingCluster c, int id, String name) {
        Map<String, Long> events = new HashMap<>();
        c.core(id).reportEvents(events::put);
        return events.getOrDefault(name, 0L);
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("T1–T3: the coordinator hands over once the target caught up, and the target leads its own round "
            + "well within a suspect time-out, with nothing lost")
    void theTargetTakesOverAtOnce(Ring.Kind kind) {
        RingCluster c = cluster(kind, 3);
        for (int k = 0; k < 5; k++) {
            c.propose(k % 3, batch("before" + k));
        }
        c.settle(10, 10);
        long round = c.core(0).round();
        assertThat(c.core(0).isCoordinator()).isTrue();

        assertThat(transfer(c, 0, 2)).isNull();
        c.propose(1, batch("during"));
        int ticks = 0;
        while (!c.core(2).isCoordinator() && ticks++ < 20) {
            c.settle(10, 1);
        }
        assertThat(c.core(2).isCoordinator()).as("member 2 leads after %d ms", 10 * ticks).isTrue();
        assertThat(10L * ticks).as("ms until member 2 leads: below the suspect time-out").isLessThan(500);
        assertThat(c.core(2).round()).isGreaterThan(round);
        assertThat(c.core(0).isCoordinator()).isFalse();
        assertThat(event(c, 0, "leadership.transfers")).isEqualTo(1);
        assertThat(event(c, 0, "stepdowns")).as("a hand-over is no step-down").isZero();

        c.propose(0, batch("after"));
        c.settle(10, 20);
        for (int id = 0; id < 3; id++) {
            assertThat(c.texts(id)).as("member %d", id).hasSize(7).contains("during", "after");
            assertThat(c.texts(id)).isEqualTo(c.texts(0));
            assertThat(c.core(id).coordinator()).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("T4: members that heard the coordinator lately answer the named successor's Phase 1A; "
            + "without a hand-over, stickiness refuses the same candidate")
    void stickinessYieldsToTheNamedSuccessorOnly(Ring.Kind kind) {
        RingCluster control = cluster(kind, 5);
        control.suspectMember(1, 0, control.core(1).round());
        control.settle(10, 10);
        assertThat(control.core(1).isCoordinator()).as("a candidate the coordinator did not name").isFalse();
        assertThat(event(control, 2, "phase1a.refused.sticky") + event(control, 3, "phase1a.refused.sticky")
                + event(control, 4, "phase1a.refused.sticky")).isPositive();

        RingCluster c = cluster(kind, 5);
        assertThat(transfer(c, 0, 1)).isNull();
        c.settle(10, 15);
        assertThat(c.core(1).isCoordinator()).as("the named successor needs two of 2, 3, 4 besides 0").isTrue();
        for (int id = 2; id < 5; id++) {
            assertThat(event(c, id, "phase1a.refused.sticky")).as("member %d", id).isZero();
        }
        assertThat(event(c, 2, "rounds.started") + event(c, 3, "rounds.started") + event(c, 4, "rounds.started"))
                .as("no other member started a round").isZero();
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    @DisplayName("T1, T2: while the target does not report catching up nothing more is opened; once the transfer "
            + "is given up (its time-out, or the round ends first) the held value is decided")
    void aTargetThatNeverReportsLetsTheTransferEnd(Ring.Kind kind) {
        RingCluster c = cluster(kind, 3);
        c.propose(0, batch("open"));
        assertThat(transfer(c, 0, 1)).isNull();
        c.cutLink(1, 0);
        c.propose(0, batch("held"));
        c.settle(10, 30);
        assertThat(c.texts(0)).as("after 300 ms").doesNotContain("held");
        assertThat(c.core(0).isCoordinator()).isTrue();
        c.settle(10, 30);
        c.heal();
        c.settle(10, 40);
        assertThat(event(c, 0, "leadership.transfers.abandoned")).isEqualTo(1);
        assertThat(event(c, 0, "leadership.transfers")).isZero();
        assertThat(c.core(0).isCoordinator()).as("the coordinator resumed").isTrue();
        assertThat(c.texts(0)).containsExactly("open", "held");
        assertThat(c.texts(1)).containsExactly("open", "held");
    }

    @Test
    @DisplayName("T1: only the leading coordinator starts a transfer, to a voter it heard; to itself it is done")
    void refusals() {
        RingCluster c = cluster(Ring.Kind.U_RING, 3);
        assertThat(transfer(c, 1, 2)).contains("member 1 does not coordinate this ring (member 0 does)");
        assertThat(transfer(c, 0, 7)).contains("member 7 is not a voter");
        assertThat(transfer(c, 0, 0)).isNull();
        c.isolate(2);
        c.settle(10, 60);
        assertThat(transfer(c, 0, 2)).contains("member 2 was not heard within the suspect time-out");
        assertThat(c.core(0).isCoordinator()).isTrue();
    }

    @Test
    @DisplayName("the target when none is named: a live voter caught up with the coordinator; none at a follower")
    void bestTarget() {
        RingCluster c = cluster(Ring.Kind.U_RING, 3);
        c.propose(0, batch("a"));
        c.settle(10, 10);
        assertThat(c.core(0).transferTarget()).isIn(1, 2);
        assertThat(c.core(1).transferTarget()).isEqualTo(-1);
        c.isolate(1);
        c.settle(10, 60);
        assertThat(c.core(0).transferTarget()).as("1 is silent").isEqualTo(2);
    }
}
