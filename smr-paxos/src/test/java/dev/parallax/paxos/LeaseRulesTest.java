package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.parallax.paxos.CoreFixtures.MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leader leases for queries, rule by rule ({@code ReadIndexRounds} L1–L3; {@code paxos.read.lease.ms}
 * 400 ms, drift bound 10%: the leader's lease is 400 × 0.9 / 1.1 = 327 ms after each confirmation
 * round): three replicas, replica 0 leads view 0.
 */
class LeaseRulesTest {
    private static final PaxosConfig LEASED = PaxosConfig.builder(3).window(3)
            .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
            .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100))
            .readLease(Duration.ofMillis(400)).readLeaseDriftPpm(100_000).build();
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private MultiPaxosCore leaderOfView0() {
        MultiPaxosCore leader = new MultiPaxosCore(LEASED, 0, List.of(), 0);
        leader.onTick(1, out);
        leader.onMessage(0, new PaxosMessage.PrepareOk(0, 0, List.of()), 1, out);
        leader.onMessage(1, new PaxosMessage.PrepareOk(0, 0, List.of()), 1, out);
        assertThat(leader.isLeader()).isTrue();
        out.clear();
        return leader;
    }

    @Test
    @DisplayName("L2: the drift margin: the lease is the window times (1 - drift) / (1 + drift); leases off by default")
    void theLeaseIsTheWindowLessTheDriftMargin() {
        assertThat(LEASED.readLeaseNanos()).isEqualTo(327_272_727L);
        assertThat(CoreFixtures.CONFIG.readLeaseNanos()).isZero();
        assertThatThrownBy(() -> PaxosConfig.builder(3).suspect(Duration.ofMillis(300)).readLease(Duration.ofMillis(301)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("paxos.read.lease.ms");
    }

    @Test
    @DisplayName("L2: after a confirmation round begun at t, reads until t + lease are answered at once, without a round; then a round again")
    void readsWithinTheLeaseNeedNoRound() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onReadIndex(1, 10 * MS, out);
        leader.onMessage(1, new PaxosMessage.ReadConfirmAck(0, 1), 12 * MS, out);
        assertThat(out.reads()).containsExactly(new EffectBuffer.ReadAnswer(1, 0, -1));
        out.clear();
        leader.onReadIndex(2, 300 * MS, out);
        assertThat(out.sends()).as("no round").isEmpty();
        assertThat(out.reads()).containsExactly(new EffectBuffer.ReadAnswer(2, 0, -1));
        out.clear();
        leader.onReadIndex(3, 338 * MS, out);
        assertThat(out.reads()).as("the lease (10 ms + 327 ms) is over: a round first").isEmpty();
        assertThat(out.sends()).anyMatch(o -> o.message() instanceof PaxosMessage.ReadConfirm);
    }

    @Test
    @DisplayName("L3: a leader that answered from its lease starts a round once half of it is gone, and the lease goes on")
    void aUsedLeaseIsRenewed() {
        MultiPaxosCore leader = leaderOfView0();
        leader.onReadIndex(1, 10 * MS, out);
        leader.onMessage(1, new PaxosMessage.ReadConfirmAck(0, 1), 12 * MS, out);
        leader.onReadIndex(2, 20 * MS, out);
        out.clear();
        leader.onTick(180 * MS, out);
        assertThat(out.sends()).as("renewal at 10 + 327 / 2 ms").anyMatch(o -> o.message() instanceof PaxosMessage.ReadConfirm);
        leader.onMessage(2, new PaxosMessage.ReadConfirmAck(0, 2), 181 * MS, out);
        out.clear();
        leader.onReadIndex(3, 400 * MS, out);
        assertThat(out.reads()).as("renewed until 180 + 327 ms").containsExactly(new EffectBuffer.ReadAnswer(3, 0, -1));
    }

    @Test
    @DisplayName("L1: a voter that confirmed the leader adopts no newer view from another replica for the window; after it, it does")
    void aConfirmingVoterRefusesNewerViewsForTheWindow() {
        MultiPaxosCore voter = new MultiPaxosCore(LEASED, 1, List.of(), 0);
        voter.onMessage(2, new PaxosMessage.Prepare(2, 0), 100 * MS, out);
        assertThat(voter.view()).as("L1 after a (re)start: it forgot whom it promised").isZero();
        voter.onMessage(0, new PaxosMessage.ReadConfirm(0, 1), 500 * MS, out);
        assertThat(out.sends()).contains(new EffectBuffer.Outgoing<>(0, new PaxosMessage.ReadConfirmAck(0, 1)));
        out.clear();
        voter.onMessage(2, new PaxosMessage.Prepare(2, 0), 899 * MS, out);
        assertThat(voter.view()).as("within 500 + 400 ms").isZero();
        assertThat(out.sends()).isEmpty();
        voter.onMessage(2, new PaxosMessage.Prepare(2, 0), 900 * MS, out);
        assertThat(voter.view()).as("the window is over").isEqualTo(2);
    }
}
