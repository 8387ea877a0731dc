package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart hold, in the deterministic core: a replica restarted from a non-empty log starts no
 * view until it has heard from a peer or its restart hold ran out (the peers' connections to it
 * come back with back-off, and it cannot know their view before). A suspicion raised by the
 * runtime's detector during the hold is kept, and acted on only if the replica still follows that
 * view when the hold ends. Acting on a suspicion means asking for a pre-vote; the view starts once
 * a quorum granted.
 */
class RestartHoldTest {
    private static final long MS = 1_000_000L;
    private static final PaxosConfig CONFIG = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(50))
            .suspect(Duration.ofMillis(500)).restartHold(Duration.ofSeconds(2)).build();
    /** Replica 0 led view 3 before it stopped. */
    private static final List<PaxosRecord> LED_VIEW_32 = List.of(new PaxosRecord.Promise(32)); // view 32 is led by 0 (32 mod 32)

    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private static MultiPaxosCore restarted(int id, List<PaxosRecord> log) {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, id, log, 0);
        core.detectFailuresExternally();
        return core;
    }

    @Test
    void theDefaultHoldIsTwoSecondsAndTheConfigSaysSo() {
        PaxosConfig defaults = PaxosConfig.builder(3).build();
        assertThat(defaults.restartHoldNanos()).isEqualTo(2_000 * MS);
        assertThat(defaults.toString()).contains("paxos.restart.hold.ms=2000");
    }

    @Test
    void aSuspicionDuringTheHoldStartsNoViewAndAPeersHigherViewMakesItFollow() {
        MultiPaxosCore old = restarted(0, LED_VIEW_32);
        old.onTick(1, out);
        // Its detector gives up on view 32 (which it leads but does not lead any more) while its peers are silent.
        old.onSuspect(32, 1_000 * MS, out);
        old.onTick(1_100 * MS, out);
        assertThat(old.view()).isEqualTo(32);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).isEmpty();
        // The working leader of view 33 reaches it: it follows, and the kept suspicion of view 32 is stale.
        old.onMessage(1, new PaxosMessage.Heartbeat(33, 0), 1_200 * MS, out);
        assertThat(old.view()).isEqualTo(33);
        assertThat(old.leaderHint()).isEqualTo(1);
        old.onTick(2_500 * MS, out);
        old.onTick(10_000 * MS, out);
        assertThat(old.view()).isEqualTo(33);
        assertThat(old.isFollowing()).isTrue();
        assertThat(out.sends()).as("it only acknowledged the leader's heartbeat: no pre-vote, no Prepare")
                .extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.HeartbeatAck(33, 0));
    }

    @Test
    void aKeptSuspicionIsActedOnWhenTheHoldRunsOutInSilence() {
        MultiPaxosCore old = restarted(0, LED_VIEW_32);
        old.onTick(1, out);
        old.onSuspect(32, 1_000 * MS, out);
        old.onTick(1_999 * MS, out);
        assertThat(old.view()).isEqualTo(32);
        assertThat(out.sends()).isEmpty();
        // Nobody spoke for the whole hold (say the whole cluster restarted): liveness wins.
        old.onTick(2_000 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.PreVote(32, 0));
        old.onMessage(2, new PaxosMessage.PreVoteReply(32, 32, true), 2_001 * MS, out);
        assertThat(old.view()).isEqualTo(64);
        assertThat(out.records()).contains(new PaxosRecord.Promise(64));
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(new PaxosMessage.Prepare(64, 0));
    }

    @Test
    void onceAPeerWasHeardSuspicionsActAtOnce() {
        // A restarted follower of view 1 (leader 1) hears replica 2, then its detector suspects leader 1.
        MultiPaxosCore two = restarted(2, List.of(new PaxosRecord.Promise(1)));
        two.onTick(1, out);
        two.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 10 * MS, out);
        two.onSuspect(1, 600 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.PreVote(1, 0));
        two.onMessage(0, new PaxosMessage.PreVoteReply(1, 1, true), 601 * MS, out);
        assertThat(two.view()).isEqualTo(2);
        assertThat(out.records()).contains(new PaxosRecord.Promise(2));
    }

    @Test
    void aReplicaWithAnEmptyLogIsNotHeld() {
        MultiPaxosCore fresh = restarted(2, List.of());
        fresh.onTick(1, out);
        fresh.onSuspect(0, 600 * MS, out);
        fresh.onMessage(1, new PaxosMessage.PreVoteReply(0, 0, true), 601 * MS, out);
        assertThat(fresh.view()).isEqualTo(2);
    }
}
