package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One test per protocol rule, each naming the rule it checks. "PMS" is Lamport's "Paxos Made
 * Simple"; "seed 000" is the JPaxos paper.
 */
class MultiPaxosCoreTest {
    private static final long MS = 1_000_000L;
    private static final PaxosConfig CONFIG = PaxosConfig.builder(3).window(3)
            .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
            .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build();

    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private static Value v(String s) {
        return Value.of(s.getBytes(StandardCharsets.UTF_8));
    }

    private static MultiPaxosCore fresh(int id) {
        return new MultiPaxosCore(CONFIG, id, List.of(), 0);
    }

    /** A cluster where replica 0 finished Phase 1 of view 0. */
    private static ScriptedCluster stableCluster() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.deliverAll(1000);
        assertThat(c.core(0).isLeader()).isTrue();
        return c;
    }

    @Test
    void leaderOfTheInitialViewStartsPhase1OnItsFirstTick() {
        MultiPaxosCore leader = fresh(0);
        leader.onTick(1, out);
        // seed 000 / JPaxos: leader of view v is v mod n; our own promise is durable before Prepare leaves.
        assertThat(out.records()).containsExactly(new PaxosRecord.Promise(0));
        assertThat(out.syncRequested()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsOnly(new PaxosMessage.Prepare(0, 0)).hasSize(3);
        out.clear();
        MultiPaxosCore follower = fresh(1);
        follower.onTick(1, out);
        assertThat(out.sends()).isEmpty();
        assertThat(follower.leaderHint()).isZero();
    }

    @Test
    void acceptorAnswersPrepareOnlyWithADurablePromise() {
        MultiPaxosCore a = fresh(1);
        a.onMessage(0, new PaxosMessage.Prepare(3, 0), 0, out);
        // PMS §2.2 + stable storage: the promise is persisted (sync) in the step that answers.
        assertThat(out.records()).contains(new PaxosRecord.Promise(3));
        assertThat(out.syncRequested()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.PrepareOk(3, 0, List.of()));
        assertThat(a.view()).isEqualTo(3);
    }

    @Test
    void acceptorIgnoresPrepareAndProposeFromLowerViews() {
        MultiPaxosCore a = fresh(1);
        a.onMessage(2, new PaxosMessage.Prepare(5, 0), 0, out);
        out.clear();
        // PMS P1a: an acceptor accepts a proposal numbered n iff it has not promised a higher one.
        a.onMessage(0, new PaxosMessage.Prepare(3, 0), 0, out);
        a.onMessage(0, new PaxosMessage.Propose(3, 0, v("x")), 0, out);
        assertThat(out.sends()).isEmpty();
        assertThat(out.records()).isEmpty();
    }

    @Test
    void acceptorVotesDurablyAndTellsEveryReplica() {
        MultiPaxosCore a = fresh(1);
        a.onMessage(0, new PaxosMessage.Propose(0, 4, v("x")), 0, out);
        assertThat(out.records()).containsExactly(new PaxosRecord.Vote(4, 0, v("x")));
        assertThat(out.syncRequested()).isTrue();
        // seed 000 (JPaxos): Accept goes to every replica so each learns the decision directly.
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::to).containsExactly(0, 1, 2);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.Accept(0, 4));
        out.clear();
        // A retransmitted Propose is answered again without writing the vote twice.
        a.onMessage(0, new PaxosMessage.Propose(0, 4, v("x")), 0, out);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).hasSize(3);
    }

    @Test
    void prepareOkReportsEveryVoteFromTheRequestedInstanceWithItsView() {
        MultiPaxosCore a = fresh(2);
        a.onMessage(0, new PaxosMessage.Propose(0, 1, v("old")), 0, out);
        a.onMessage(0, new PaxosMessage.Propose(0, 2, v("b")), 0, out);
        a.onMessage(0, new PaxosMessage.Propose(0, 0, v("a")), 0, out);
        out.clear();
        a.onMessage(1, new PaxosMessage.Prepare(1, 1), 0, out);
        PaxosMessage.PrepareOk ok = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(ok.accepted()).containsExactly(new PaxosMessage.Accepted(1, 0, v("old")),
                new PaxosMessage.Accepted(2, 0, v("b")));
    }

    @Test
    void learnerDecidesOnAMajorityOfOneViewsAccepts() {
        MultiPaxosCore l = fresh(2);
        l.onMessage(0, new PaxosMessage.Propose(0, 0, v("x")), 0, out);
        out.clear();
        l.onMessage(0, new PaxosMessage.Accept(0, 0), 0, out);
        assertThat(out.decisions()).isEmpty();
        l.onMessage(1, new PaxosMessage.Accept(0, 0), 0, out);
        // PMS §2.3: a value is chosen once a majority of acceptors accepted it (same proposal number).
        assertThat(out.decisions()).containsExactly(new EffectBuffer.Decision<>(0, v("x")));
        out.clear();
        l.onMessage(2, new PaxosMessage.Accept(0, 0), 0, out);
        assertThat(out.decisions()).isEmpty();
    }

    @Test
    void acceptsFromDifferentViewsDoNotAddUp() {
        MultiPaxosCore l = fresh(2);
        l.onMessage(0, new PaxosMessage.Accept(0, 0), 0, out);
        l.onMessage(1, new PaxosMessage.Propose(1, 0, v("y")), 0, out);
        out.clear();
        l.onMessage(1, new PaxosMessage.Accept(1, 0), 0, out);
        assertThat(out.decisions()).isEmpty();
        l.onMessage(2, new PaxosMessage.Accept(1, 0), 0, out);
        assertThat(out.decisions()).containsExactly(new EffectBuffer.Decision<>(0, v("y")));
    }

    @Test
    void decisionsAreDeliveredInInstanceOrderWithoutGaps() {
        MultiPaxosCore l = fresh(2);
        for (long i : new long[]{1, 0}) {
            l.onMessage(0, new PaxosMessage.Propose(0, i, v("v" + i)), 0, out);
            l.onMessage(0, new PaxosMessage.Accept(0, i), 0, out);
            l.onMessage(1, new PaxosMessage.Accept(0, i), 0, out);
        }
        assertThat(out.decisions()).extracting(EffectBuffer.Decision::instance).containsExactly(0L, 1L);
        assertThat(l.firstUndecided()).isEqualTo(2);
    }

    @Test
    void newLeaderReproposesTheHighestViewValueAndFillsGapsWithNoops() {
        MultiPaxosCore leader = fresh(1);
        leader.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 0, out);
        leader.onTick(600 * MS, out); // suspects 0 (rank 0: 500 ms), starts view 1
        assertThat(leader.view()).isEqualTo(1);
        out.clear();
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 600 * MS, out);
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(
                new PaxosMessage.Accepted(0, 0, v("a")),
                new PaxosMessage.Accepted(2, 0, v("c")))), 600 * MS, out);
        // PMS §3: re-propose reported values in the new view, no-ops for the gaps.
        assertThat(leader.isLeader()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsSubsequence(
                new PaxosMessage.Propose(1, 0, v("a")),
                new PaxosMessage.Propose(1, 1, Value.NOOP),
                new PaxosMessage.Propose(1, 2, v("c")));
        out.clear();
        assertThat(leader.onProposal(v("new"), 600 * MS, out)).isFalse(); // window 3 is full
    }

    @Test
    void highestViewWinsWhenAcceptorsReportDifferentValues() {
        MultiPaxosCore leader = fresh(1);
        leader.onTick(600 * MS, out);
        out.clear();
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(0, 0, v("low")))), 0, out);
        leader.onMessage(0, new PaxosMessage.PrepareOk(1, 0, List.of()), 0, out);
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 0, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(new PaxosMessage.Propose(1, 0, v("low")));
    }

    @Test
    void eagerBelowLimitsOnlyTheBatchingHintNotTheWindow() {
        ScriptedCluster c = new ScriptedCluster(PaxosConfig.builder(3).window(3).eagerBelow(1)
                .heartbeat(java.time.Duration.ofMillis(50)).suspect(java.time.Duration.ofMillis(500)).build());
        c.tick(MS);
        c.deliverAll(1000);
        assertThat(c.core(0).canPropose()).isTrue();
        assertThat(c.propose(0, v("a"))).isTrue();
        // One instance in flight: no longer eager for partial batches, but full ones still go out.
        assertThat(c.core(0).canPropose()).isFalse();
        assertThat(c.propose(0, v("b"))).isTrue();
        assertThat(c.propose(0, v("c"))).isTrue();
        assertThat(c.propose(0, v("d"))).isFalse();
        c.deliverAll(1000);
        assertThat(c.core(0).canPropose()).isTrue();
        assertThat(PaxosConfig.builder(3).window(4).eagerBelow(9).build().eagerBelow()).isEqualTo(4);
        assertThat(PaxosConfig.builder(3).window(4).build().eagerBelow()).isEqualTo(4);
    }

    @Test
    void theWindowBoundsInstancesInFlight() {
        ScriptedCluster c = stableCluster();
        // seed 000 §III-A pipelining: at most WND (3 here) undecided instances in flight.
        assertThat(c.propose(0, v("a"))).isTrue();
        assertThat(c.propose(0, v("b"))).isTrue();
        assertThat(c.propose(0, v("c"))).isTrue();
        assertThat(c.core(0).canPropose()).isFalse();
        assertThat(c.propose(0, v("d"))).isFalse();
        c.deliverAll(1000);
        assertThat(c.core(0).inFlight()).isZero();
        assertThat(c.propose(0, v("d"))).isTrue();
        c.deliverAll(1000);
        for (int r = 0; r < 3; r++) {
            assertThat(c.delivered(r)).containsExactly(v("a"), v("b"), v("c"), v("d"));
        }
    }

    @Test
    void followersRefuseProposalsAndTheNoopCannotBeProposed() {
        ScriptedCluster c = stableCluster();
        assertThat(c.propose(1, v("x"))).isFalse();
        assertThatThrownBy(() -> c.core(0).onProposal(Value.NOOP, 0, out)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Value.of(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anIdleLeaderSendsHeartbeats() {
        ScriptedCluster c = stableCluster();
        c.trace().clear();
        c.tick(60 * MS);
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->1 Heartbeat[view=0"));
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->2 Heartbeat[view=0"));
    }

    @Test
    void suspicionIsStaggeredSoTheNextLeaderMovesFirst() {
        MultiPaxosCore one = fresh(1);
        MultiPaxosCore two = fresh(2);
        one.onTick(510 * MS, out);
        two.onTick(510 * MS, out);
        // rank 0 (replica 1) waits 500 ms, rank 1 (replica 2) 750 ms.
        assertThat(one.view()).isEqualTo(1);
        assertThat(two.view()).isZero();
        two.onTick(760 * MS, out);
        assertThat(two.view()).isEqualTo(2);
    }

    @Test
    void anyMessageFromAHigherViewMovesAReplicaThereAndDeposesALeader() {
        ScriptedCluster c = stableCluster();
        c.core(0).onMessage(2, new PaxosMessage.Accept(5, 9), c.now(), out);
        assertThat(c.core(0).view()).isEqualTo(5);
        assertThat(c.core(0).isLeader()).isFalse();
        assertThat(c.core(0).leaderHint()).isEqualTo(2);
    }

    @Test
    void aRestartedLeaderNeverReusesAViewItMayHaveLed() {
        MultiPaxosCore restarted = new MultiPaxosCore(CONFIG, 0, List.of(new PaxosRecord.Promise(3)), 0);
        restarted.onTick(1, out);
        // It does not seize leadership at once: it waits to hear from whoever leads now.
        assertThat(restarted.view()).isEqualTo(3);
        assertThat(out.sends()).isEmpty();
        // Silence for its suspect timeout (it ranks last: 1000 ms): view 3 may hold proposals from
        // before the crash, so it starts view 6 instead.
        restarted.onTick(1_100 * MS, out);
        assertThat(restarted.view()).isEqualTo(6);
        assertThat(out.records()).contains(new PaxosRecord.Promise(6));
    }

    @Test
    void aRestartedLeaderFollowsTheCurrentLeader() {
        MultiPaxosCore restarted = new MultiPaxosCore(CONFIG, 0, List.of(new PaxosRecord.Promise(3)), 0);
        restarted.onTick(1, out);
        restarted.onMessage(1, new PaxosMessage.Heartbeat(4, 10), 2, out);
        assertThat(restarted.view()).isEqualTo(4);
        assertThat(restarted.leaderHint()).isEqualTo(1);
        restarted.onTick(400 * MS, out); // within its suspect timeout of the new leader
        assertThat(restarted.view()).isEqualTo(4);
        assertThat(restarted.isLeader()).isFalse();
    }

    @Test
    void recoveryRestoresPromiseAndVotes() {
        MultiPaxosCore a = new MultiPaxosCore(CONFIG, 1, List.of(
                new PaxosRecord.Promise(2), new PaxosRecord.Vote(0, 1, v("a")), new PaxosRecord.Vote(0, 2, v("b"))), 0);
        assertThat(a.view()).isEqualTo(2);
        a.onMessage(2, new PaxosMessage.Prepare(5, 0), 0, out);
        PaxosMessage.PrepareOk ok = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(ok.accepted()).containsExactly(new PaxosMessage.Accepted(0, 2, v("b")));
    }

    @Test
    void undecidedProposalsAreRetransmitted() {
        ScriptedCluster c = stableCluster();
        c.propose(0, v("a"));
        c.dropAll(); // the connection broke: every Propose and Accept lost
        c.trace().clear();
        c.tick(250 * MS);
        // seed 000 §V-C4: progress-critical messages are resent even over TCP.
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->1 Propose[view=0, instance=0"));
        c.deliverAll(1000);
        assertThat(c.delivered(1)).containsExactly(v("a"));
    }

    @Test
    void unansweredPreparesAreRetransmittedToThoseWhoDidNotAnswer() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.dropAll();
        c.trace().clear();
        c.tick(250 * MS);
        assertThat(c.trace()).filteredOn(l -> l.contains("Prepare[view=0")).hasSize(3);
        c.deliverAll(1000);
        assertThat(c.core(0).isLeader()).isTrue();
    }

    @Test
    void aLaggingReplicaCatchesUpFromItsPeers() {
        ScriptedCluster c = stableCluster();
        c.isolate(2);
        c.propose(0, v("a"));
        c.propose(0, v("b"));
        c.deliverAll(1000);
        assertThat(c.delivered(2)).isEmpty();
        c.heal();
        c.tick(60 * MS); // heartbeat tells 2 that 0..1 are decided
        c.deliverAll(1000);
        c.tick(150 * MS); // catch-up period passed: 2 asks
        c.deliverAll(1000);
        assertThat(c.trace()).anyMatch(l -> l.contains("2 send ->0 CatchUpQuery"));
        assertThat(c.delivered(2)).containsExactly(v("a"), v("b"));
    }

    @Test
    void aPeerThatTrimmedTheAskedInstancesCallsForASnapshot() {
        ScriptedCluster c = stableCluster();
        c.isolate(2);
        c.propose(0, v("a"));
        c.propose(0, v("b"));
        c.deliverAll(1000);
        c.core(0).truncateBelow(2);
        c.core(1).truncateBelow(2);
        c.heal();
        c.tick(60 * MS);
        c.deliverAll(1000);
        c.tick(150 * MS);
        c.deliverAll(1000);
        assertThat(c.trace()).anyMatch(l -> l.contains("2 snapshot-needed from 0 below 2"));
        c.core(2).skipTo(2);
        assertThat(c.core(2).firstUndecided()).isEqualTo(2);
    }

    @Test
    void aNewLeaderNeverNoopsInstancesItsQuorumTrimmed() {
        ScriptedCluster c = stableCluster();
        c.propose(0, v("a"));
        c.deliverAll(1000);
        for (int r = 0; r < 3; r++) {
            c.core(r).truncateBelow(1);
        }
        MultiPaxosCore fresh = new MultiPaxosCore(CONFIG, 1, List.of(), 0);
        fresh.onTick(600 * MS, out);
        out.clear();
        fresh.onMessage(0, new PaxosMessage.PrepareOk(1, 1, List.of()), 600 * MS, out);
        fresh.onMessage(2, new PaxosMessage.PrepareOk(1, 1, List.of()), 600 * MS, out);
        assertThat(fresh.isLeader()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .noneMatch(m -> m instanceof PaxosMessage.Propose p && p.instance() == 0);
        assertThat(fresh.onProposal(v("next"), 600 * MS, out)).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .contains(new PaxosMessage.Propose(1, 1, v("next")));
    }

    @Test
    void compactionKeepsWhatRecoveryNeedsAndDropsTheRest() {
        ScriptedCluster c = stableCluster();
        for (int i = 0; i < 6; i++) {
            c.propose(0, v("x" + i));
            c.deliverAll(1000);
        }
        long before = c.logSize(1);
        c.compact(1, 5);
        assertThat(c.logSize(1)).as("checkpoint: trim, promise, one vote, promise").isLessThan(before).isEqualTo(4);
        c.crashAndRestart(1);
        // The restarted acceptor keeps its promise and the vote at 5, and reports its trim point.
        c.core(1).onMessage(2, new PaxosMessage.Prepare(5, 0), c.now(), out);
        PaxosMessage.PrepareOk ok = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(ok.trimmedBelow()).isEqualTo(5);
        assertThat(ok.accepted()).containsExactly(new PaxosMessage.Accepted(5, 0, v("x5")));
    }

    @Test
    void failoverAfterTheLeaderCrashesKeepsDecidedValues() {
        ScriptedCluster c = stableCluster();
        c.propose(0, v("a"));
        c.deliverAll(1000);
        c.isolate(0);
        c.tick(600 * MS);
        c.deliverAll(1000);
        assertThat(c.core(1).isLeader()).isTrue();
        c.propose(1, v("b"));
        c.deliverAll(1000);
        assertThat(c.delivered(1)).containsExactly(v("a"), v("b"));
        assertThat(c.delivered(2)).containsExactly(v("a"), v("b"));
    }

    @Test
    void messagesFromNonMembersAreIgnored() {
        MultiPaxosCore a = fresh(1);
        a.onMessage(7, new PaxosMessage.Prepare(9, 0), 0, out);
        a.onMessage(-1, new PaxosMessage.Prepare(9, 0), 0, out);
        assertThat(out.isEmpty()).isTrue();
        assertThat(a.view()).isZero();
    }

    @Test
    void configurationIsValidated() {
        assertThat(PaxosConfig.builder(3).build().window()).isEqualTo(10);
        assertThat(PaxosConfig.builder(3).build().batchBytes()).isEqualTo(1300);
        assertThat(PaxosConfig.builder(5).build().quorum()).isEqualTo(3);
        assertThatThrownBy(() -> PaxosConfig.builder(0)).hasMessageContaining("members");
        assertThatThrownBy(() -> PaxosConfig.builder(3).window(0)).hasMessageContaining("window");
        assertThatThrownBy(() -> PaxosConfig.builder(3).heartbeat(Duration.ofSeconds(1)).suspect(Duration.ofSeconds(1)).build())
                .hasMessageContaining("twice the heartbeat");
        assertThatThrownBy(() -> new MultiPaxosCore(CONFIG, 3, List.of(), 0)).hasMessageContaining("not one of");
    }
}
