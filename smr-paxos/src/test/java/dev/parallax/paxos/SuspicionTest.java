package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The suspicion rule (seed 000 §V-C3, staggered by rank) and the core's suspicion input, used when
 * the runtime's failure detector thread suspects instead of the core's ticks.
 */
class SuspicionTest {
    private static final long MS = 1_000_000L;
    private static final PaxosConfig CONFIG = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(50))
            .suspect(Duration.ofMillis(500)).build();

    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private static MultiPaxosCore externallyDetected(int id, List<PaxosRecord> recovered) {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, id, recovered, 0);
        core.detectFailuresExternally();
        return core;
    }

    @Test
    void theNextInLineSuspectsFirstAndTheOthersHalfATimeoutLaterPerRank() {
        SuspicionRule one = new SuspicionRule(CONFIG, 1);
        SuspicionRule two = new SuspicionRule(CONFIG, 2);
        assertThat(one.timeoutNanos(0)).isEqualTo(500 * MS);
        assertThat(two.timeoutNanos(0)).isEqualTo(750 * MS);
        assertThat(two.timeoutNanos(1)).isEqualTo(500 * MS);
        assertThat(one.suspects(0, 10 * MS, 509 * MS)).isFalse();
        assertThat(one.suspects(0, 10 * MS, 510 * MS)).isTrue();
        assertThat(one.leaderOf(33)).as("view v is led by v mod 32").isEqualTo(1);
    }

    @Test
    void withAnExternalDetectorTicksNeverSuspect() {
        MultiPaxosCore one = externallyDetected(1, List.of());
        one.onTick(1, out);
        one.onTick(10_000 * MS, out);
        assertThat(one.view()).isZero();
        assertThat(out.sends()).isEmpty();
    }

    @Test
    void aSuspicionOfTheCurrentViewAsksForAPreVoteAndAQuorumOfGrantsStartsTheNextViewThisReplicaLeads() {
        MultiPaxosCore two = externallyDetected(2, List.of());
        two.onTick(1, out);
        long t = 500 * MS;
        two.onSuspect(0, t, out);
        assertThat(two.view()).as("nothing starts before a quorum granted").isZero();
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.PreVote(0, 0));
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::to).containsExactlyInAnyOrder(0, 1);
        out.clear();
        two.onMessage(0, new PaxosMessage.PreVoteReply(0, 0, false), t + 1, out);
        assertThat(two.view()).as("a refusal changes nothing").isZero();
        two.onMessage(1, new PaxosMessage.PreVoteReply(0, 0, true), t + 2, out);
        assertThat(two.view()).isEqualTo(2);
        assertThat(out.records()).containsExactly(new PaxosRecord.Promise(2));
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.Prepare(2, 0));
    }

    @Test
    void staleSuspicionsAreIgnored() {
        MultiPaxosCore one = externallyDetected(1, List.of());
        one.onSuspect(0, 1, out); // before the first tick: the core has not started
        assertThat(one.view()).isZero();
        one.onTick(2, out);
        one.onMessage(2, new PaxosMessage.Heartbeat(2, 0), 3, out); // moved on to view 2
        one.onSuspect(0, 4, out); // about a view it already left
        one.onSuspect(7, 4, out); // about a view it never was in
        assertThat(one.view()).isEqualTo(2);
        assertThat(out.records()).isEmpty();
        long t = 3 + 500 * MS;
        one.onSuspect(2, t, out);
        assertThat(one.view()).as("asks first").isEqualTo(2);
        one.onMessage(0, new PaxosMessage.PreVoteReply(2, 2, true), t + 1, out);
        assertThat(one.view()).as("the next view replica 1 leads").isEqualTo(33);
        out.clear();
        one.onSuspect(33, t + 2, out); // it leads (is starting) view 33: nothing to suspect
        assertThat(one.view()).isEqualTo(33);
        assertThat(out.records()).isEmpty();
    }

    @Test
    void aRestartedReplicaStillGivesUpItsOwnOldViewWhenTheDetectorSaysSo() {
        MultiPaxosCore restarted = externallyDetected(0, List.of(new PaxosRecord.Promise(32)));
        restarted.onTick(1, out);
        restarted.onTick(5_000 * MS, out);
        assertThat(restarted.view()).isEqualTo(32);
        restarted.onSuspect(32, 5_000 * MS, out);
        restarted.onMessage(1, new PaxosMessage.PreVoteReply(32, 32, true), 5_001 * MS, out);
        assertThat(restarted.view()).isEqualTo(64);
        assertThat(out.records()).contains(new PaxosRecord.Promise(64));
    }
}
