package dev.parallax.paxos;

import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.v;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.spi.ByteBufferWire;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One test per protocol rule, each naming the rule it checks. "PMS" is Lamport's "Paxos Made
 * Simple"; "seed 000" is the JPaxos paper.
 */
class MultiPaxosCoreTest {

    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();


    private static MultiPaxosCore fresh(int id) {
        return new MultiPaxosCore(CONFIG, id, List.of(), 0);
    }

    /**
     * Replica {@code r} ticks at {@code now} (past its suspect timeout: it suspects the leader of its
     * view and asks for a pre-vote), then {@code granter} grants it: it starts the next view it leads.
     */
    private void suspectAndWin(MultiPaxosCore r, int granter, long now) {
        r.onTick(now, out);
        long view = r.view();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .contains(new PaxosMessage.PreVote(view, r.firstUndecided()));
        r.onMessage(granter, new PaxosMessage.PreVoteReply(view, view, true), now, out);
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
    @DisplayName("JPaxos (PROTOCOLS.md §1): the leader of view v is v mod n; PMS §2.5: its promise is durable before Prepare leaves")
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
    @DisplayName("PMS §2.5: an acceptor records its promise in stable storage before answering Prepare")
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
    @DisplayName("PMS §2.2 P1a: an acceptor ignores Prepare and Propose numbered below its promise")
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
    @DisplayName("PMS §2.5 + JPaxos (seed 000 §III-A): a vote is durable before its Accept, which goes to every replica")
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
    @DisplayName("PMS §2.2 phase 1b: a promise reports the acceptor's votes with their proposal numbers")
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
    @DisplayName("PMS §2.3: a value is chosen once a majority accepted the same proposal")
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
    @DisplayName("PMS §2.3: Accepts count toward a decision only within one proposal number (view)")
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
    @DisplayName("PMS §3: the state machine executes commands in instance order, never past a gap")
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
    @DisplayName("PMS §3: a new leader re-proposes reported values and fills gaps with no-ops")
    void newLeaderReproposesTheHighestViewValueAndFillsGapsWithNoops() {
        MultiPaxosCore leader = fresh(1);
        leader.onMessage(0, new PaxosMessage.Heartbeat(0, 0), 0, out);
        suspectAndWin(leader, 2, 600 * MS); // suspects 0 (rank 0: 500 ms), starts view 1
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
    @DisplayName("PMS §2.2 P2c: the new leader proposes the value of the highest-numbered reported vote")
    void highestViewWinsWhenAcceptorsReportDifferentValues() {
        MultiPaxosCore leader = fresh(1);
        suspectAndWin(leader, 2, 600 * MS);
        out.clear();
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(0, 0, v("low")))), 0, out);
        leader.onMessage(0, new PaxosMessage.PrepareOk(1, 0, List.of()), 0, out);
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 0, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(new PaxosMessage.Propose(1, 0, v("low")));
    }

    @Test
    @DisplayName("seed 000 §III-A / §V-C1: eagerBelow only gates partial batches; the window WND still bounds proposals")
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
    @DisplayName("seed 000 §III-A pipelining: at most WND undecided instances in flight")
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
    @DisplayName("PMS §3: only the leader proposes; the no-op is reserved for gap filling")
    void followersRefuseProposalsAndTheNoopCannotBeProposed() {
        ScriptedCluster c = stableCluster();
        assertThat(c.propose(1, v("x"))).isFalse();
        assertThatThrownBy(() -> c.core(0).onProposal(Value.NOOP, 0, out)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Value.of(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("seed 000 §V-C3: an idle leader sends heartbeats every heartbeat interval")
    void anIdleLeaderSendsHeartbeats() {
        ScriptedCluster c = stableCluster();
        c.trace().clear();
        c.tick(60 * MS);
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->1 Heartbeat[view=0"));
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->2 Heartbeat[view=0"));
    }

    @Test
    @DisplayName("seed 000 §V-C3 failure detection; design (multi-paxos.md): timeouts staggered by rank so the next leader moves first")
    void suspicionIsStaggeredSoTheNextLeaderMovesFirst() {
        MultiPaxosCore one = fresh(1);
        MultiPaxosCore two = fresh(2);
        // rank 0 (replica 1) waits 500 ms, rank 1 (replica 2) 750 ms; then each asks for a pre-vote.
        one.onTick(510 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.PreVote(0, 0));
        out.clear();
        two.onTick(510 * MS, out);
        assertThat(out.sends()).isEmpty();
        two.onTick(760 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new PaxosMessage.PreVote(0, 0));
        one.onMessage(2, new PaxosMessage.PreVoteReply(0, 0, true), 761 * MS, out);
        two.onMessage(1, new PaxosMessage.PreVoteReply(0, 0, true), 761 * MS, out);
        assertThat(one.view()).isEqualTo(1);
        assertThat(two.view()).isEqualTo(2);
    }

    @Test
    @DisplayName("PMS §2.4 / JPaxos: any message from a higher view moves a replica there; a leader of a lower view steps down")
    void anyMessageFromAHigherViewMovesAReplicaThereAndDeposesALeader() {
        ScriptedCluster c = stableCluster();
        // View 34 is led by replica 34 mod 32 = 2 (Membership.leaderOf).
        c.core(0).onMessage(2, new PaxosMessage.Accept(34, 9), c.now(), out);
        assertThat(c.core(0).view()).isEqualTo(34);
        assertThat(c.core(0).isLeader()).isFalse();
        assertThat(c.core(0).leaderHint()).isEqualTo(2);
    }

    @Test
    @DisplayName("PMS §2.5: a proposer never reuses a proposal number, even after a restart")
    void aRestartedLeaderNeverReusesAViewItMayHaveLed() {
        // View 32 is led by replica 0 (32 mod 32).
        MultiPaxosCore restarted = new MultiPaxosCore(CONFIG, 0, List.of(new PaxosRecord.Promise(32)), 0);
        restarted.onTick(1, out);
        // It does not seize leadership at once: it waits to hear from whoever leads now.
        assertThat(restarted.view()).isEqualTo(32);
        assertThat(out.sends()).isEmpty();
        // Silence past its suspect timeout (it ranks last: 1000 ms), but within the restart hold
        // (2 s: it has heard from no peer yet, so it cannot know the view the others are in).
        restarted.onTick(1_100 * MS, out);
        assertThat(restarted.view()).isEqualTo(32);
        assertThat(out.sends()).isEmpty();
        // Silence past the hold: view 32 may hold proposals from before the crash, so it starts
        // view 64, the next it leads, instead.
        suspectAndWin(restarted, 1, 2_100 * MS);
        assertThat(restarted.view()).isEqualTo(64);
        assertThat(out.records()).contains(new PaxosRecord.Promise(64));
    }

    @Test
    @DisplayName("seed 000 §V-C3: a restarted replica follows the current leader until it suspects it")
    void aRestartedLeaderFollowsTheCurrentLeader() {
        MultiPaxosCore restarted = new MultiPaxosCore(CONFIG, 0, List.of(new PaxosRecord.Promise(32)), 0);
        restarted.onTick(1, out);
        restarted.onMessage(1, new PaxosMessage.Heartbeat(33, 10), 2, out);
        assertThat(restarted.view()).isEqualTo(33);
        assertThat(restarted.leaderHint()).isEqualTo(1);
        restarted.onTick(400 * MS, out); // within its suspect timeout of the new leader
        assertThat(restarted.view()).isEqualTo(33);
        assertThat(restarted.isLeader()).isFalse();
    }

    @Test
    @DisplayName("PMS §2.5: an acceptor remembers its promise and votes across restarts (stable storage)")
    void recoveryRestoresPromiseAndVotes() {
        MultiPaxosCore a = new MultiPaxosCore(CONFIG, 1, List.of(
                new PaxosRecord.Promise(2), new PaxosRecord.Vote(0, 1, v("a")), new PaxosRecord.Vote(0, 2, v("b"))), 0);
        assertThat(a.view()).isEqualTo(2);
        a.onMessage(2, new PaxosMessage.Prepare(5, 0), 0, out);
        PaxosMessage.PrepareOk ok = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(ok.accepted()).containsExactly(new PaxosMessage.Accepted(0, 2, v("b")));
    }

    @Test
    @DisplayName("seed 000 §V-C4: undecided Proposes are retransmitted, because TCP connections break")
    void undecidedProposalsAreRetransmitted() {
        ScriptedCluster c = stableCluster();
        c.propose(0, v("a"));
        c.dropAll(); // the connection broke: every Propose and Accept lost
        c.trace().clear();
        c.tick(250 * MS);
        // seed 000 §V-C4: progress-critical messages are resent even over TCP.
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->1 Propose[view=0, instance=0"));
        assertThat(events(c.core(0))).containsEntry("retransmitted.proposes", 1L);
        c.deliverAll(1000);
        assertThat(c.delivered(1)).containsExactly(v("a"));
    }

    private static java.util.Map<String, Long> events(MultiPaxosCore core) {
        java.util.Map<String, Long> m = new java.util.HashMap<>();
        core.reportEvents(m::put);
        return m;
    }

    @Test
    @DisplayName("seed 000 §V-C4: unanswered Prepares are retransmitted to the acceptors that did not answer")
    void unansweredPreparesAreRetransmittedToThoseWhoDidNotAnswer() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.dropAll();
        c.trace().clear();
        c.tick(250 * MS);
        assertThat(c.trace()).filteredOn(l -> l.contains("Prepare[view=0")).hasSize(3);
        assertThat(events(c.core(0))).containsEntry("retransmitted.prepares", 3L).containsEntry("views.started", 1L);
        c.deliverAll(1000);
        assertThat(c.core(0).isLeader()).isTrue();
    }

    @Test
    @DisplayName("seed 000 §III-C: a lagging replica fetches decided instances from a peer (catch-up)")
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
    @DisplayName("seed 000 (JPaxos staged replica) §III-C: a replica that missed 40 decisions of 512 KiB (20 MiB) catches "
            + "up in replies that each fit a frame")
    void aReplicaLaggingBehindLargeValuesCatchesUpInFrameSizedReplies() {
        ScriptedCluster c = stableCluster();
        c.isolate(2);
        List<Value> values = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            values.add(bigValue(i, 512 << 10));
            assertThat(c.propose(0, values.get(i))).isTrue();
            c.deliverAll(1000);
        }
        assertThat(c.delivered(2)).isEmpty();
        c.heal();
        c.tick(60 * MS);  // a heartbeat tells 2 that 0..39 are decided
        c.deliverAll(1000);
        c.tick(150 * MS); // one catch-up period passed: 2 asks, once
        PaxosMessageCodec codec = new PaxosMessageCodec();
        int replies = 0;
        while (c.pending() > 0) {
            PaxosMessage m = c.queued().get(0).message();
            if (m instanceof PaxosMessage.CatchUpReply) {
                replies++;
                assertThat(ByteBufferWire.encode(codec, m).body().remaining())
                        .as("a catch-up reply fits the default frame").isLessThan(ReplicaConfig.DEFAULT_MAX_FRAME);
            }
            c.deliverNext();
        }
        assertThat(replies).as("the 20 MiB came in several replies").isGreaterThan(1);
        assertThat(c.delivered(2)).as("caught up within one catch-up period: each next page was asked at once")
                .containsExactlyElementsOf(values);
    }

    @Test
    @DisplayName("seed 000 (JPaxos staged replica) §III-C: a catch-up reply is bounded by bytes as well as by count; "
            + "a value larger than the bound goes alone")
    void catchUpRepliesAreBoundedByBytesAsWellAsCount() {
        // 500-byte values take 512 bytes each in a reply (instance and length: CatchUp.DECIDED_OVERHEAD).
        MultiPaxosCore peer = new MultiPaxosCore(PaxosConfig.builder(3).catchUpMaxInstances(3).catchUpMaxBytes(1100).build(),
                2, List.of(), 0);
        int[] sizes = {500, 500, 500, 2000, 500, 100, 100, 100, 100};
        for (int i = 0; i < sizes.length; i++) {
            decideAt(peer, i, bigValue(i, sizes[i]));
        }
        List<List<Long>> pages = new ArrayList<>();
        long from = 0;
        while (from < sizes.length) {
            out.clear();
            peer.onMessage(1, new PaxosMessage.CatchUpQuery(0, from, sizes.length), 0, out);
            PaxosMessage.CatchUpReply r = (PaxosMessage.CatchUpReply) out.sends().get(0).message();
            List<Long> page = r.decided().stream().map(PaxosMessage.Decided::instance).toList();
            pages.add(page);
            from = page.get(page.size() - 1) + 1;
        }
        // Two 512-byte values fit 1100 bytes, a third does not; the 2012-byte value goes alone; the
        // 112-byte values are stopped by the count (3), not the bytes.
        assertThat(pages).containsExactly(List.of(0L, 1L), List.of(2L), List.of(3L), List.of(4L, 5L, 6L), List.of(7L, 8L));

        // The default: 40 decided values of 512 KiB (20 MiB, more than a 16 MiB frame) are served
        // at most 1 MiB at a time, never an empty page.
        MultiPaxosCore big = fresh(2);
        for (int i = 0; i < 40; i++) {
            decideAt(big, i, bigValue(i, 512 << 10));
        }
        out.clear();
        big.onMessage(1, new PaxosMessage.CatchUpQuery(0, 0, 40), 0, out);
        PaxosMessage reply = out.sends().get(0).message();
        assertThat(((PaxosMessage.CatchUpReply) reply).decided()).isNotEmpty();
        assertThat(ByteBufferWire.encode(new PaxosMessageCodec(), reply).body().remaining())
                .isLessThanOrEqualTo(PaxosConfig.DEFAULT_CATCH_UP_MAX_BYTES + 20); // + view, firstAvailable, count
    }

    @Test
    @DisplayName("PMS §2.2 phase 1b, paged: a Phase 1 page uses the same configured byte budget as a catch-up reply")
    void phase1PagesUseTheConfiguredByteBudget() {
        MultiPaxosCore a = new MultiPaxosCore(PaxosConfig.builder(3).catchUpMaxBytes(1100).build(), 2, List.of(), 0);
        for (int i = 0; i < 3; i++) {
            a.onMessage(0, new PaxosMessage.Propose(0, i, bigValue(i, 500)), 0, out);
        }
        out.clear();
        a.onMessage(1, new PaxosMessage.Prepare(1, 0), 0, out);
        PaxosMessage.PrepareOk page = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(page.accepted()).extracting(PaxosMessage.Accepted::instance).containsExactly(0L, 1L);
        assertThat(page.continueFrom()).isEqualTo(2);
    }

    @Test
    @DisplayName("seed 000 (JPaxos staged replica) §III-C: a reply that taught something to a replica still behind makes "
            + "it ask the same peer again at once, from where the reply stopped")
    void aLaggingReplicaAsksAgainAtOnceFromWhereAReplyStopped() {
        MultiPaxosCore lagging = fresh(2);
        lagging.onMessage(0, new PaxosMessage.Heartbeat(0, 5), 0, out); // 0..4 decided elsewhere
        out.clear();
        lagging.onTick(100 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.CatchUpQuery(0, 0, 5)));
        out.clear();
        lagging.onMessage(0, new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(0, v("a")),
                new PaxosMessage.Decided(1, v("b")))), 101 * MS, out);
        assertThat(out.decisions()).extracting(EffectBuffer.Decision::instance).containsExactly(0L, 1L);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.CatchUpQuery(0, 2, 5)));
        out.clear();
        // A duplicate (nothing new) asks nothing: the chain ends, the periodic query takes over.
        lagging.onMessage(0, new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(1, v("b")))), 102 * MS, out);
        assertThat(out.sends()).isEmpty();
        lagging.onTick(150 * MS, out);
        assertThat(out.sends()).as("the follow-up counts as this period's query").isEmpty();
        lagging.onMessage(1, new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(2, v("c")),
                new PaxosMessage.Decided(3, v("d")), new PaxosMessage.Decided(4, v("e")))), 160 * MS, out);
        assertThat(lagging.firstUndecided()).isEqualTo(5);
        assertThat(out.sends()).as("caught up: nothing more to ask").isEmpty();
        assertThat(events(lagging)).containsEntry("catchup.queries", 2L);
    }

    /** Replica {@code r} (not 0 or 1) sees 0's Propose of {@code value} in view 0, and Accepts from 0 and 1. */
    private void decideAt(MultiPaxosCore r, long instance, Value value) {
        r.onMessage(0, new PaxosMessage.Propose(0, instance, value), 0, out);
        r.onMessage(0, new PaxosMessage.Accept(0, instance), 0, out);
        r.onMessage(1, new PaxosMessage.Accept(0, instance), 0, out);
    }

    /** A value of {@code size} bytes, each {@code (byte) seed}: distinct per seed. */
    private static Value bigValue(int seed, int size) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, (byte) seed);
        return Value.of(b);
    }

    @Test
    @DisplayName("seed 000 §III-C: instances a peer trimmed under a snapshot are fetched as a snapshot")
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
    @DisplayName("PMS §3 + design (multi-paxos.md, trim point): instances below a reported trim point are decided: never re-proposed or no-op'd")
    void aNewLeaderNeverNoopsInstancesItsQuorumTrimmed() {
        ScriptedCluster c = stableCluster();
        c.propose(0, v("a"));
        c.deliverAll(1000);
        for (int r = 0; r < 3; r++) {
            c.core(r).truncateBelow(1);
        }
        MultiPaxosCore fresh = new MultiPaxosCore(CONFIG, 1, List.of(), 0);
        suspectAndWin(fresh, 2, 600 * MS);
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
    @DisplayName("PMS §2.5 + seed 000 §III-C: a compacted log keeps the promise, trim point and remaining votes")
    void compactionKeepsWhatRecoveryNeedsAndDropsTheRest() {
        ScriptedCluster c = stableCluster();
        for (int i = 0; i < 6; i++) {
            c.propose(0, v("x" + i));
            c.deliverAll(1000);
        }
        long before = c.logSize(1);
        c.compact(1, 5);
        assertThat(c.logSize(1)).as("checkpoint: trim, promise, one vote, promise, members, decision")
                .isLessThan(before).isEqualTo(6);
        c.crashAndRestart(1);
        // The restarted acceptor keeps its promise and the vote at 5, and reports its trim point.
        c.core(1).onMessage(2, new PaxosMessage.Prepare(5, 0), c.now(), out);
        PaxosMessage.PrepareOk ok = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(ok.trimmedBelow()).isEqualTo(5);
        assertThat(ok.accepted()).containsExactly(new PaxosMessage.Accepted(5, 0, v("x5")));
    }

    @Test
    @DisplayName("PMS §2.2 safety across a view change: values decided under the old leader survive fail-over")
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
    @DisplayName("seed 000 §III-A pipelining across a view change: at most WND re-proposals in flight, the rest as decisions arrive, then new values")
    void aNewLeaderReproposesInWindowSizedSteps() {
        MultiPaxosCore leader = fresh(1);
        suspectAndWin(leader, 2, 600 * MS); // suspects 0, starts view 1
        out.clear();
        List<PaxosMessage.Accepted> votes = new ArrayList<>();
        for (long i = 0; i < 7; i++) {
            votes.add(new PaxosMessage.Accepted(i, 0, v("r" + i)));
        }
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 600 * MS, out);
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, votes), 600 * MS, out);
        assertThat(leader.isLeader()).isTrue();
        assertThat(proposedInstances()).containsExactly(0L, 1L, 2L); // window 3
        assertThat(leader.inFlight()).isEqualTo(3);
        assertThat(leader.canPropose()).isFalse();
        assertThat(leader.onProposal(v("new"), 600 * MS, out)).isFalse();
        out.clear();
        decide(leader, 0, v("r0"));
        assertThat(proposedInstances()).containsExactly(3L);
        out.clear();
        decide(leader, 1, v("r1"));
        decide(leader, 2, v("r2"));
        assertThat(proposedInstances()).containsExactly(4L, 5L);
        assertThat(leader.inFlight()).isEqualTo(3);
        out.clear();
        for (long i = 3; i < 6; i++) {
            decide(leader, i, v("r" + i));
        }
        assertThat(proposedInstances()).containsExactly(6L);
        assertThat(leader.onProposal(v("new"), 600 * MS, out)).as("re-proposals still in flight leave room").isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(new PaxosMessage.Propose(1, 7, v("new")));
    }

    @Test
    @DisplayName("seed 002 (S-Paxos) §IV-A, Alg. 1 l.32-36: takeReproposals reports what Phase 1 re-proposes, once per leadership")
    void takeReproposalsReportsPhase1ValuesOncePerLeadership() {
        ScriptedCluster c = stableCluster();
        assertThat(c.core(0).takeReproposals()).as("a Phase 1 that found nothing").isEqualTo(
                new MultiPaxosCore.Reproposals(0, List.of()));
        assertThat(c.core(0).takeReproposals()).isNull();
        assertThat(c.core(1).takeReproposals()).as("followers complete no Phase 1").isNull();

        MultiPaxosCore leader = fresh(1);
        suspectAndWin(leader, 2, 600 * MS); // starts view 1
        out.clear();
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(0, 0, v("a")))), 600 * MS, out);
        assertThat(leader.takeReproposals()).as("Phase 1 not complete yet").isNull();
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(
                new PaxosMessage.Accepted(0, 0, v("a")),
                new PaxosMessage.Accepted(2, 0, v("c")))), 600 * MS, out);
        assertThat(leader.isLeader()).isTrue();
        // The values it re-proposes, in instance order; the no-op filling the gap at 1 is left out.
        assertThat(leader.takeReproposals()).isEqualTo(new MultiPaxosCore.Reproposals(1, List.of(v("a"), v("c"))));
        assertThat(leader.takeReproposals()).as("once").isNull();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsSubsequence(
                new PaxosMessage.Propose(1, 0, v("a")),
                new PaxosMessage.Propose(1, 1, Value.NOOP),
                new PaxosMessage.Propose(1, 2, v("c")));
        leader.onMessage(0, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(3, 0, v("late")))), 600 * MS, out);
        assertThat(leader.takeReproposals()).as("a late answer after Phase 1 reports nothing").isNull();

        // Untaken reproposals die with the leadership.
        MultiPaxosCore deposed = fresh(1);
        suspectAndWin(deposed, 2, 600 * MS);
        deposed.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 600 * MS, out);
        deposed.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(0, 0, v("a")))), 600 * MS, out);
        assertThat(deposed.isLeader()).isTrue();
        deposed.onMessage(2, new PaxosMessage.Heartbeat(2, 0), 600 * MS, out);
        assertThat(deposed.isLeader()).isFalse();
        assertThat(deposed.takeReproposals()).isNull();
    }

    @Test
    @DisplayName("seed 002 (S-Paxos) §IV-B b with paged Phase 1: takeReproposals reports the values of every page, once Phase 1 completes")
    void takeReproposalsCollectsEveryPageOfPhase1() {
        MultiPaxosCore leader = fresh(1);
        suspectAndWin(leader, 2, 600 * MS);
        out.clear();
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 600 * MS, out);
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(0, 0, v("a"))), 4), 600 * MS, out);
        assertThat(leader.isLeader()).isFalse();
        assertThat(leader.takeReproposals()).isNull();
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(5, 0, v("f")))), 600 * MS, out);
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.takeReproposals()).isEqualTo(new MultiPaxosCore.Reproposals(1, List.of(v("a"), v("f"))));
        assertThat(leader.takeReproposals()).isNull();
    }

    @Test
    @DisplayName("PMS §2.2 phase 1b, paged: a PrepareOk carries a bounded page of votes and where to continue")
    void prepareOkIsPagedByVoteCountAndBytes() {
        MultiPaxosCore a = new MultiPaxosCore(PaxosConfig.builder(3).catchUpMaxInstances(2).build(), 2, List.of(), 0);
        for (long i : new long[]{0, 1, 3, 4, 7}) {
            a.onMessage(0, new PaxosMessage.Propose(0, i, v("x" + i)), 0, out);
        }
        out.clear();
        a.onMessage(1, new PaxosMessage.Prepare(1, 0), 0, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(new PaxosMessage.PrepareOk(1, 0,
                List.of(new PaxosMessage.Accepted(0, 0, v("x0")), new PaxosMessage.Accepted(1, 0, v("x1"))), 3));
        out.clear();
        a.onMessage(1, new PaxosMessage.Prepare(1, 3), 0, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(new PaxosMessage.PrepareOk(1, 0,
                List.of(new PaxosMessage.Accepted(3, 0, v("x3")), new PaxosMessage.Accepted(4, 0, v("x4"))), 7));
        out.clear();
        a.onMessage(1, new PaxosMessage.Prepare(1, 7), 0, out);
        PaxosMessage.PrepareOk last = (PaxosMessage.PrepareOk) out.sends().get(0).message();
        assertThat(last.accepted()).containsExactly(new PaxosMessage.Accepted(7, 0, v("x7")));
        assertThat(last.isComplete()).isTrue();

        // The byte budget: 30-byte values take 51 bytes each, so a 60-byte budget pages one by one;
        // a vote larger than the budget still goes, alone, so paging always progresses.
        out.clear();
        Acceptor small = new Acceptor(100, 60, List.of(new PaxosRecord.Vote(0, 0, Value.of(new byte[30])),
                new PaxosRecord.Vote(1, 0, Value.of(new byte[500])), new PaxosRecord.Vote(2, 0, Value.of(new byte[30]))));
        small.onPrepare(1, new PaxosMessage.Prepare(1, 0), out);
        small.onPrepare(1, new PaxosMessage.Prepare(1, 1), out);
        small.onPrepare(1, new PaxosMessage.Prepare(1, 2), out);
        assertThat(out.sends()).extracting(o -> ((PaxosMessage.PrepareOk) o.message()).continueFrom())
                .containsExactly(1L, 2L, PaxosMessage.PrepareOk.COMPLETE);
        assertThat(out.sends()).extracting(o -> ((PaxosMessage.PrepareOk) o.message()).accepted().size())
                .containsExactly(1, 1, 1);
    }

    @Test
    @DisplayName("PMS §2.2 phase 1, paged: the leader asks again from continueFrom, and leads only once a majority answered completely")
    void phase1CompletesOnlyOnAMajorityOfCompleteAnswers() {
        MultiPaxosCore leader = fresh(1);
        suspectAndWin(leader, 2, 600 * MS);
        out.clear();
        leader.onMessage(1, new PaxosMessage.PrepareOk(1, 0, List.of()), 600 * MS, out);
        PaxosMessage.PrepareOk page1 = new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(0, 0, v("a"))), 4);
        leader.onMessage(2, page1, 600 * MS, out);
        assertThat(leader.isLeader()).as("one complete answer (its own) of the two needed").isFalse();
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(2, new PaxosMessage.Prepare(1, 4)));
        out.clear();
        leader.onMessage(2, page1, 600 * MS, out); // a duplicate page asks nothing again
        assertThat(out.sends()).isEmpty();
        // The page request was lost: the retransmission asks 2 from where it stopped, 0 from the start.
        leader.onTick(801 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(new PaxosMessage.Prepare(1, 4))
                .contains(new PaxosMessage.Prepare(1, 0));
        assertThat(out.sends()).filteredOn(o -> o.message() instanceof PaxosMessage.Prepare)
                .extracting(EffectBuffer.Outgoing::to).containsExactlyInAnyOrder(0, 2);
        out.clear();
        leader.onMessage(2, new PaxosMessage.PrepareOk(1, 0, List.of(new PaxosMessage.Accepted(5, 0, v("f")))), 801 * MS, out);
        assertThat(leader.isLeader()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).contains(
                new PaxosMessage.Propose(1, 0, v("a")), new PaxosMessage.Propose(1, 1, Value.NOOP),
                new PaxosMessage.Propose(1, 2, Value.NOOP));
    }

    @Test
    @DisplayName("PMS §3 + seed 000 §III-A: fail-over through a paged Phase 1 and window-sized re-proposal decides every value")
    void failoverWithPagedPhase1AndWindowedReproposalDecidesEverything() {
        ScriptedCluster c = new ScriptedCluster(PaxosConfig.builder(3).window(3).catchUpMaxInstances(2)
                .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500)).build());
        c.tick(MS);
        c.deliverAll(1000);
        c.isolate(1); // 1 sees none of it: as the next leader it must learn every vote in Phase 1
        List<Value> values = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            values.add(v("w" + i));
            assertThat(c.propose(0, values.get(i))).isTrue();
            // 2 votes but never learns a decision (its Accepts are lost), so it is no further than 1
            // and grants 1's pre-vote: a lagging leader pages through 2's votes.
            deliverLosingAcceptsTo(c, 2);
        }
        c.heal();
        c.isolate(0);
        c.trace().clear();
        c.tick(600 * MS); // 1 suspects 0 and prepares view 1 from instance 0
        while (c.pending() > 0) {
            c.deliverNext();
            assertThat(c.core(1).inFlight()).isLessThanOrEqualTo(3);
        }
        assertThat(c.trace()).contains(c.now() + " 1 send ->2 Prepare[view=1, fromInstance=2]",
                c.now() + " 1 send ->2 Prepare[view=1, fromInstance=4]",
                c.now() + " 1 send ->2 Prepare[view=1, fromInstance=6]");
        assertThat(c.core(1).isLeader()).isTrue();
        assertThat(c.delivered(1)).containsExactlyElementsOf(values);
        assertThat(c.delivered(2)).containsExactlyElementsOf(values);
    }

    /** Delivers every queued message except the Accepts addressed to {@code replica}, which are lost. */
    private static void deliverLosingAcceptsTo(ScriptedCluster c, int replica) {
        while (c.pending() > 0) {
            var next = c.queued().get(0);
            if (next.to() == replica && next.message() instanceof PaxosMessage.Accept) {
                c.dropNext();
            } else {
                c.deliverNext();
            }
        }
    }

    @Test
    @DisplayName("seed 000 §V-C3: any Propose counts as a sign of life, so no heartbeat goes while Proposes flow")
    void heartbeatsAreSuppressedWhileProposesFlow() {
        ScriptedCluster c = stableCluster();
        c.trace().clear();
        for (int i = 0; i < 6; i++) {
            c.tick(30 * MS);
            assertThat(c.propose(0, v("p" + i))).isTrue();
            c.deliverAll(1000);
        }
        assertThat(c.trace()).noneMatch(l -> l.contains("Heartbeat"));
        c.tick(30 * MS);
        assertThat(c.trace()).noneMatch(l -> l.contains("Heartbeat"));
        c.tick(30 * MS); // 60 ms since the last Propose
        assertThat(c.trace()).anyMatch(l -> l.contains("0 send ->1 Heartbeat[view=0"));
    }

    @Test
    @DisplayName("seed 000 §III-C: catch-up asks the leader first, then rotates over the other peers while stalled")
    void catchUpRotatesPeers() {
        MultiPaxosCore lagging = fresh(2);
        lagging.onMessage(0, new PaxosMessage.Heartbeat(0, 5), 0, out); // 0..4 decided elsewhere
        List<Integer> asked = new ArrayList<>();
        for (long t = 100; t <= 400; t += 100) {
            out.clear();
            lagging.onTick(t * MS, out);
            for (EffectBuffer.Outgoing<PaxosMessage> o : out.sends()) {
                assertThat(o.message()).isEqualTo(new PaxosMessage.CatchUpQuery(0, 0, 5));
                asked.add(o.to());
            }
        }
        assertThat(asked).containsExactly(0, 1, 0, 1);
    }

    @Test
    @DisplayName("PMS §2.3 + seed 000 §III-C: a majority of Accepts whose Propose was lost marks the instance decided; catch-up fetches the value")
    void aDecisionWhoseProposeWasLostIsFetchedByCatchUp() {
        MultiPaxosCore l = fresh(2);
        l.onMessage(0, new PaxosMessage.Accept(0, 0), 0, out);
        l.onMessage(1, new PaxosMessage.Accept(0, 0), 0, out);
        assertThat(out.decisions()).isEmpty();
        out.clear();
        l.onTick(100 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new PaxosMessage.CatchUpQuery(0, 0, 1)));
        out.clear();
        l.onMessage(0, new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(0, v("x")))), 100 * MS, out);
        assertThat(out.decisions()).containsExactly(new EffectBuffer.Decision<>(0, v("x")));
        assertThat(l.firstUndecided()).isEqualTo(1);
    }

    private List<Long> proposedInstances() {
        return out.sends().stream().filter(o -> o.to() == 0 && o.message() instanceof PaxosMessage.Propose)
                .map(o -> ((PaxosMessage.Propose) o.message()).instance()).toList();
    }

    /** Delivers the leader's own Propose and a majority of Accepts for {@code instance} in view 1. */
    private void decide(MultiPaxosCore leader, long instance, Value value) {
        leader.onMessage(1, new PaxosMessage.Propose(1, instance, value), 600 * MS, out);
        leader.onMessage(1, new PaxosMessage.Accept(1, instance), 600 * MS, out);
        leader.onMessage(2, new PaxosMessage.Accept(1, instance), 600 * MS, out);
    }

    @Test
    @DisplayName("bad input: messages from ids outside the id space never change protocol state")
    void messagesFromNonMembersAreIgnored() {
        MultiPaxosCore a = fresh(1);
        a.onMessage(32, new PaxosMessage.Prepare(9, 0), 0, out);
        a.onMessage(-1, new PaxosMessage.Prepare(9, 0), 0, out);
        assertThat(out.isEmpty()).isTrue();
        assertThat(a.view()).isZero();
    }

    @Test
    @DisplayName("seed 000 §VI defaults (WND 10, BSZ 1300 B); majority quorum floor(n/2)+1 (PMS §2.2)")
    void configurationIsValidated() {
        assertThat(PaxosConfig.builder(3).build().window()).isEqualTo(10);
        assertThat(PaxosConfig.builder(3).build().batchBytes()).isEqualTo(1300);
        assertThat(PaxosConfig.builder(3).build().catchUpMaxInstances()).isEqualTo(256);
        assertThat(PaxosConfig.builder(3).build().catchUpMaxBytes()).as("well under the 16 MiB frame")
                .isEqualTo(1 << 20).isLessThan(ReplicaConfig.DEFAULT_MAX_FRAME / 8);
        assertThatThrownBy(() -> PaxosConfig.builder(3).catchUpMaxBytes(0)).hasMessageContaining("paxos.catchup.max.bytes");
        assertThat(PaxosConfig.builder(5).build().quorum()).isEqualTo(3);
        assertThatThrownBy(() -> PaxosConfig.builder(0)).hasMessageContaining("members");
        assertThatThrownBy(() -> PaxosConfig.builder(3).window(0)).hasMessageContaining("window");
        assertThatThrownBy(() -> PaxosConfig.builder(3).heartbeat(Duration.ofSeconds(1)).suspect(Duration.ofSeconds(1)).build())
                .hasMessageContaining("twice the heartbeat");
        assertThatThrownBy(() -> new MultiPaxosCore(CONFIG, 32, List.of(), 0)).hasMessageContaining("outside 0..31");
    }
}
