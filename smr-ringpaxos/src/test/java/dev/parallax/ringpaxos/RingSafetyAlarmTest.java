package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.protocol.SafetyViolation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A member that hears a second, different decision for an instance it decided raises a safety
 * alarm ({@link SafetyViolation} effect) instead of keeping the first silently, whichever message
 * carries it (an M-Ring decision datagram, a U-Ring packet, a catch-up reply, or the coordinator's
 * quorum of Phase 2B votes for an instance it learned otherwise); the same decision
 * again is harmless. Each message is fed straight to a working member's core.
 */
class RingSafetyAlarmTest {
    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();

    private static RingCluster started(RingConfig config) {
        RingCluster c = new RingCluster(config);
        c.start();
        c.propose(0, batch("before"));
        c.deliverAll(1000);
        assertThat(c.texts(1)).containsExactly("before");
        return c;
    }

    private static long event(RingPaxosCore core, String name) {
        long[] n = {-1};
        core.reportEvents((k, v) -> {
            if (k.equals(name)) {
                n[0] = v;
            }
        });
        return n[0];
    }

    @Test
    @DisplayName("M-Ring: a decision datagram naming a NOOP for a decided instance raises the alarm, naming both origins; nothing of it is applied")
    void forgedNoopDecisionDatagramRaisesTheAlarm() {
        RingCluster c = started(RingConfig.builder(3, Ring.Kind.M_RING).build());
        RingPaxosCore member = c.core(1);
        ValueId real = ((RingValue.Chosen) c.delivered(1).get(0)).vid();
        long round = member.round();
        MPacket forged = new MPacket(round, member.ring(), List.of(new InstanceVid(0, ValueId.NOOP)), List.of());

        member.onMessage(0, forged, c.now(), out);

        assertThat(out.safetyViolations()).singleElement().satisfies(v -> {
            assertThat(v.instance()).isZero();
            assertThat(v.kept().value()).isEqualTo(real.toString());
            assertThat(v.conflicting()).isEqualTo(new SafetyViolation.Origin(0, "MPacket", round, ValueId.NOOP.toString()));
        });
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).isEmpty();
        assertThat(out.decisions()).isEmpty();
        assertThat(event(member, "decision.conflicts")).isEqualTo(1);
    }

    @Test
    @DisplayName("M-Ring: the same decision again (a duplicate datagram) is harmless: no alarm")
    void duplicateDecisionDatagramIsHarmless() {
        RingCluster c = started(RingConfig.builder(3, Ring.Kind.M_RING).build());
        RingPaxosCore member = c.core(1);
        ValueId real = ((RingValue.Chosen) c.delivered(1).get(0)).vid();
        member.onMessage(0, new MPacket(member.round(), member.ring(), List.of(new InstanceVid(0, real)), List.of()),
                c.now(), out);
        assertThat(out.safetyViolations()).isEmpty();
        assertThat(event(member, "decision.conflicts")).isZero();
        c.propose(2, batch("after"));
        c.deliverAll(1000);
        assertThat(c.texts(1)).containsExactly("before", "after");
    }

    @Test
    @DisplayName("U-Ring: a catch-up reply with a different decision for a delivered instance raises the alarm")
    void conflictingCatchUpReplyRaisesTheAlarm() {
        RingCluster c = started(RingCluster.uRing(3));
        RingPaxosCore member = c.core(1);
        ValueId other = new ValueId(2, 0, 99);
        ByteBuffer body = ByteBuffer.wrap(new byte[]{9}).asReadOnlyBuffer();
        member.onMessage(2, new RingMessage.CatchUpReply(member.round(), 0, List.of(new DecisionEntry(0, other, body)),
                List.of()), c.now(), out);
        assertThat(out.safetyViolations()).singleElement().satisfies(v -> {
            assertThat(v.conflicting().sender()).isEqualTo(2);
            assertThat(v.conflicting().via()).isEqualTo("CatchUpReply");
            assertThat(v.conflicting().value()).isEqualTo(other.toString());
        });
        assertThat(out.decisions()).isEmpty();
    }

    @Test
    @DisplayName("U-Ring: the same decisions again in a catch-up reply are harmless")
    void overlappingCatchUpReplyIsHarmless() {
        RingCluster c = started(RingCluster.uRing(3));
        RingPaxosCore member = c.core(1);
        RingValue.Chosen real = (RingValue.Chosen) c.delivered(1).get(0);
        member.onMessage(2, new RingMessage.CatchUpReply(member.round(), 0,
                List.of(new DecisionEntry(0, real.vid(), real.bytes())), List.of()), c.now(), out);
        assertThat(out.safetyViolations()).isEmpty();
    }

    @Test
    @DisplayName("M-Ring coordinator: a quorum of Phase 2B votes for a value other than the decision it learned for that instance raises the alarm")
    void coordinatorQuorumForAnotherValueThanItsLearnedDecisionRaisesTheAlarm() {
        RingCluster c = started(RingConfig.builder(3, Ring.Kind.M_RING).build());
        int coordinator = c.core(1).ring().coordinator();
        int other = (coordinator + 1) % 3;
        RingPaxosCore core = c.core(coordinator);
        c.propose(coordinator, batch("x")); // the coordinator opens instance 1 for "x" and sends its Phase 2A
        // Before the votes come back, a catch-up reply (forged, or from a faulty member) says instance 1 decided a NOOP.
        core.onMessage(other, new RingMessage.CatchUpReply(core.round(), 1,
                List.of(new DecisionEntry(1, ValueId.NOOP, ByteBuffer.allocate(0))), List.of()), c.now(), out);
        assertThat(core.firstUndecided()).as("the coordinator learned the NOOP for instance 1").isEqualTo(2);
        assertThat(event(core, "decision.conflicts")).as("no conflict yet: instance 1 was undecided").isZero();

        // The acceptors' votes for "x" reach the coordinator: a quorum for another value. The scripted
        // cluster's effect applier stops on the alarm, as a replica does.
        assertThatThrownBy(() -> c.deliverAll(1000)).hasMessageContaining("two different decisions for instance 1")
                .hasMessageContaining("kept value NOOP").hasMessageContaining("(Phase2B, round");
        assertThat(event(core, "decision.conflicts")).as("the quorum for \"x\" contradicts the NOOP it kept").isEqualTo(1);
    }
}
