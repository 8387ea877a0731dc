package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.protocol.SafetyViolation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RingLearnerTest {
    private static final ValueId A = new ValueId(1, 0, 1);
    private static final ValueId B = new ValueId(2, 0, 1);
    private static final ByteBuffer VA = ByteBuffer.wrap(new byte[]{1});
    private static final ByteBuffer VB = ByteBuffer.wrap(new byte[]{2});

    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();

    @Test
    @DisplayName("C5: delivery in instance order; a gap holds later decisions back; NOOP delivered as Chosen(NOOP)")
    void deliversInOrder() {
        RingLearner l = new RingLearner(List.of());
        l.learn(1, B, VB);
        assertThat(l.deliverReady((i, v) -> false, out)).isEmpty();
        l.learn(0, ValueId.NOOP, null);
        assertThat(l.deliverReady((i, v) -> false, out)).hasSize(2);
        assertThat(out.decisions()).extracting(d -> ((RingValue.Chosen) d.value()).vid()).containsExactly(ValueId.NOOP, B);
        assertThat(l.firstUndecided()).isEqualTo(2);
        assertThat(out.records()).containsExactly(new RingRecord.Decided(0, ValueId.NOOP), new RingRecord.Decision(1, B, VB));
    }

    @Test
    @DisplayName("C5 (§3.3.4 case (b)): an id-only decision waits for its body, then delivers; only the id is logged when the own vote holds the body")
    void idOnlyDecisionWaitsForBody() {
        RingLearner l = new RingLearner(List.of());
        assertThat(l.learn(0, A, null)).isTrue();
        assertThat(l.firstMissingBody()).isZero();
        assertThat(l.deliverReady((i, v) -> true, out)).isEmpty();
        assertThat(l.learn(0, A, VA)).isTrue();
        assertThat(l.learn(0, A, VA)).isFalse();
        assertThat(l.deliverReady((i, v) -> true, out)).hasSize(1);
        assertThat(out.records()).containsExactly(new RingRecord.Decided(0, A));
        assertThat(l.knownDecidedBelow()).isEqualTo(1);
    }

    @Test
    @DisplayName("C6/C9: catch-up serves decided values above the trim; a restart recovers Decided bodies from votes")
    void servesAndRecovers() {
        RingLearner l = new RingLearner(List.of(new RingRecord.VoteRecord(0, 1, A, VA), new RingRecord.Decided(0, A),
                new RingRecord.Decision(1, B, VB)));
        assertThat(l.knownDecidedBelow()).isEqualTo(2);
        l.deliverReady((i, v) -> true, out);
        assertThat(l.range(0, 5, 10, 100)).extracting(DecisionEntry::instance).containsExactly(0L, 1L);
        l.trimBelow(1);
        assertThat(l.trimmedBelow()).isEqualTo(1);
        assertThat(l.range(0, 5, 10, 100)).extracting(DecisionEntry::instance).containsExactly(1L);
        l.skipTo(7);
        assertThat(l.firstUndecided()).isEqualTo(7);
        assertThat(l.isDecided(6)).isTrue();
        assertThat(l.learn(6, A, VA)).isFalse();
    }

    @Test
    @DisplayName("C6 (B1): a catch-up range entirely below the trim is an empty page, not a crash; the asker sees firstAvailable")
    void rangeBelowTheTrimIsEmpty() {
        RingLearner l = new RingLearner(List.of());
        for (int i = 0; i < 40; i++) {
            l.learn(i, new ValueId(i + 1, 0, 1), VA);
        }
        l.deliverReady((i, v) -> false, out);
        l.trimBelow(35);
        assertThat(l.range(13, 29, 10, 100)).isEmpty();
        assertThat(l.range(13, 35, 10, 100)).isEmpty();
        assertThat(l.range(13, 37, 10, 100)).extracting(DecisionEntry::instance).containsExactly(35L, 36L);
    }

    @Test
    @DisplayName("C10/C9 (B3): a recovered Trim is an acceptor fence, not a snapshot: the learner still learns below it; skipTo sets its trim")
    void recoveredTrimIsNotALearnerTrim() {
        RingLearner l = new RingLearner(List.of(new RingRecord.Trim(30), new RingRecord.Decision(31, B, VB)));
        assertThat(l.trimmedBelow()).isZero();
        assertThat(l.learn(0, A, VA)).isTrue();
        assertThat(l.deliverReady((i, v) -> false, out)).hasSize(1);
        assertThat(l.isDecided(31)).isTrue();
        l.skipTo(30);
        assertThat(l.trimmedBelow()).isEqualTo(30);
        assertThat(l.firstUndecided()).isEqualTo(30);
        assertThat(l.learn(5, A, VA)).isFalse();
    }

    @Test
    @DisplayName("B4: an M-Ring learner holds bodies for at most mring.learner.buffer instances and .bytes ahead of its "
            + "decided prefix; beyond, the body is dropped and counted, the decision kept")
    void decidedAheadIsBounded() {
        RingLearner l = new RingLearner(List.of(), 4, 3);
        for (int i = 1; i <= 6; i++) {
            l.learn(i, new ValueId(i, 0, 1), i == 3 ? null : VA);
        }
        // bodies of 1 and 2 held; 3 id-only; 4, 5, 6 beyond 4 instances: ids only
        assertThat(l.buffered()).isEqualTo(2);
        assertThat(l.bufferedBytes()).isEqualTo(2);
        assertThat(l.beyondBuffer()).isEqualTo(3);
        assertThat(l.isDecided(6)).isTrue();
        assertThat(l.knownDecidedBelow()).isEqualTo(7);
        assertThat(l.learn(0, A, VA)).isTrue();            // the first undecided instance always goes
        assertThat(l.learn(3, new ValueId(3, 0, 1), VB)).isFalse();  // its body would pass .bytes
        assertThat(l.isDecided(3)).isTrue();
        assertThat(l.deliverReady((i, v) -> false, out)).hasSize(3);
        assertThat(l.bufferedBytes()).isZero();
        assertThat(l.missingBodies()).containsExactly(3L, 4L, 5L, 6L);
        assertThat(l.learn(3, new ValueId(3, 0, 1), VB)).isTrue();
        assertThat(l.learn(4, new ValueId(4, 0, 1), VA)).isTrue();   // within the bound now
    }

    @Test
    @DisplayName("B4: bodies of decisions recovered from the log beyond the decided-ahead bound are not held either")
    void recoveredDecisionsAreBounded() {
        RingLearner l = new RingLearner(List.of(new RingRecord.Decision(1, A, VA), new RingRecord.Decision(2, B, VB),
                new RingRecord.Decision(9, B, VB)), 4, 100);
        assertThat(l.buffered()).isEqualTo(2);
        assertThat(l.isDecided(9)).isTrue();
        assertThat(l.decidedBody(9)).isNull();
        assertThat(l.knownDecidedBelow()).isEqualTo(10);
    }

    @Test
    @DisplayName("Agreement (PMS §2): a second, different decision for a decided instance keeps the first and is a safety violation naming both origins")
    void aSecondDifferentDecisionIsASafetyViolation() {
        RingLearner l = new RingLearner(List.of());
        l.hearing(new RingLearner.Source(0, "MPacket", 4));
        assertThat(l.learn(0, A, VA)).isTrue();
        l.hearing(new RingLearner.Source(2, "CatchUpReply", 9));
        assertThat(l.learn(0, ValueId.NOOP, null)).isFalse();
        l.reportConflicts(out);

        assertThat(out.safetyViolations()).containsExactly(new SafetyViolation(0,
                new SafetyViolation.Origin(0, "MPacket", 4, A.toString()),
                new SafetyViolation.Origin(2, "CatchUpReply", 9, ValueId.NOOP.toString())));
        assertThat(out.safetyViolations().get(0).describe()).contains("instance 0").contains("member 0")
                .contains("member 2").contains("round 4").contains("round 9");
        assertThat(l.decidedVid(0)).isEqualTo(A);
        assertThat(l.conflictsSeen()).isEqualTo(1);
        out.clear();
        l.reportConflicts(out);
        assertThat(out.safetyViolations()).as("reported once").isEmpty();
    }

    @Test
    @DisplayName("Agreement: a delivered instance still kept (above the trim) is checked too; one recovered from the log names the log")
    void deliveredAndRecoveredDecisionsAreChecked() {
        RingLearner l = new RingLearner(List.of(new RingRecord.Decision(0, A, VA)));
        l.deliverReady((i, v) -> false, out);
        assertThat(l.firstUndecided()).isEqualTo(1);
        out.clear();
        l.hearing(new RingLearner.Source(1, "UPacket", 3));
        assertThat(l.learn(0, B, VB)).isFalse();
        l.reportConflicts(out);
        assertThat(out.safetyViolations()).singleElement().satisfies(v -> {
            assertThat(v.kept().sender()).isEqualTo(SafetyViolation.LOCAL);
            assertThat(v.kept().via()).isEqualTo("recovered from the log");
            assertThat(v.conflicting().sender()).isEqualTo(1);
            assertThat(v.conflicting().value()).isEqualTo(B.toString());
        });
        assertThat(out.records()).isEmpty();
        assertThat(out.decisions()).isEmpty();
    }

    @Test
    @DisplayName("The same decision again (a duplicate datagram, a catch-up overlap) is harmless: no violation")
    void theSameDecisionAgainIsHarmless() {
        RingLearner l = new RingLearner(List.of());
        l.hearing(new RingLearner.Source(0, "MPacket", 0));
        l.learn(0, A, VA);
        l.learn(1, ValueId.NOOP, null);
        l.deliverReady((i, v) -> false, out);
        l.hearing(new RingLearner.Source(2, "CatchUpReply", 0));
        assertThat(l.learn(0, A, VA)).isFalse();
        assertThat(l.learn(0, A, null)).isFalse();
        assertThat(l.learn(1, ValueId.NOOP, null)).isFalse();
        assertThat(l.conflicts(0, A)).isFalse();
        assertThat(l.conflicts(7, B)).as("an instance not decided here").isFalse();
        l.reportConflicts(out);
        assertThat(out.safetyViolations()).isEmpty();
        assertThat(l.conflictsSeen()).isZero();
    }

    @Test
    @DisplayName("Below the trim nothing is kept, so nothing can be compared (a snapshot covers it)")
    void decisionsBelowTheTrimAreNotCompared() {
        RingLearner l = new RingLearner(List.of());
        l.learn(0, A, VA);
        l.deliverReady((i, v) -> false, out);
        l.trimBelow(1);
        assertThat(l.learn(0, B, VB)).isFalse();
        l.reportConflicts(out);
        assertThat(out.safetyViolations()).isEmpty();
    }
}
