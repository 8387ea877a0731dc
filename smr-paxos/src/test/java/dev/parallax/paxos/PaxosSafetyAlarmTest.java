package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.protocol.SafetyViolation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.v;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-Paxos' learner keeps a decision for ever (Paxos agreement, PMS §2): a catch-up reply that
 * names another value for an instance it decided is a safety violation, reported as an effect
 * naming both origins (the kept value's quorum or log, the reply's sender and view) instead of
 * being ignored silently; the same decision again is harmless. (A Propose of an older view may
 * carry another value legitimately: only decisions are compared.)
 */
class PaxosSafetyAlarmTest {
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private static ScriptedCluster decidedA() {
        ScriptedCluster c = new ScriptedCluster(CoreFixtures.CONFIG);
        c.tick(MS);
        c.deliverAll(1000);
        assertThat(c.propose(0, v("a"))).isTrue();
        c.deliverAll(1000);
        assertThat(c.core(1).firstUndecided()).isEqualTo(1);
        return c;
    }

    @Test
    @DisplayName("PMS §2: a catch-up reply deciding another value for a decided instance raises a safety violation; the kept value stays")
    void conflictingCatchUpReplyIsASafetyViolation() {
        ScriptedCluster c = decidedA();
        MultiPaxosCore follower = c.core(1);
        long view = follower.view();
        follower.onMessage(2, new PaxosMessage.CatchUpReply(view, 0, List.of(new PaxosMessage.Decided(0, v("forged")))),
                c.now(), out);

        assertThat(out.safetyViolations()).singleElement().satisfies(s -> {
            assertThat(s.instance()).isZero();
            assertThat(s.kept()).isEqualTo(new SafetyViolation.Origin(SafetyViolation.LOCAL, "a quorum of Accepts", view,
                    v("a").toString()));
            assertThat(s.conflicting()).isEqualTo(new SafetyViolation.Origin(2, "CatchUpReply", view, v("forged").toString()));
        });
        assertThat(out.decisions()).isEmpty();
        assertThat(follower.firstUndecided()).isEqualTo(1);
    }

    @Test
    @DisplayName("The same decision again in a catch-up reply is harmless: no violation")
    void sameDecisionAgainIsHarmless() {
        ScriptedCluster c = decidedA();
        MultiPaxosCore follower = c.core(1);
        follower.onMessage(2, new PaxosMessage.CatchUpReply(follower.view(), 0,
                List.of(new PaxosMessage.Decided(0, v("a")))), c.now(), out);
        assertThat(out.safetyViolations()).isEmpty();
    }

    @Test
    @DisplayName("A decision recovered from the log is compared too, and named as such")
    void recoveredDecisionIsCompared() {
        MultiPaxosCore r = new MultiPaxosCore(CoreFixtures.CONFIG, 1, List.of(new PaxosRecord.Decision(0, v("a"))), 0);
        r.onMessage(0, new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(0, v("b")))), MS, out);
        assertThat(out.safetyViolations()).singleElement()
                .satisfies(s -> assertThat(s.kept().via()).isEqualTo("recovered from the log"));
    }
}
