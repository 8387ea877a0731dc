package dev.parallax.paxos;

import static dev.parallax.paxos.CoreFixtures.MS;
import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.v;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local replay at restart (decided instances are replayed into the state machine from the last
 * snapshot, then caught up from peers): decisions are logged as {@link PaxosRecord.Decided} /
 * {@link PaxosRecord.Decision} and delivered again by the restarted core without any message.
 */
class LocalReplayTest {

    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();


    private static EffectBuffer.Decision<Value> d(long instance, String value) {
        return new EffectBuffer.Decision<>(instance, v(value));
    }

    @Test
    @DisplayName("logged decisions are delivered in order up to the first gap on the first tick, without any message")
    void recoveredDecisionsAreDeliveredInOrderWithoutAnyMessage() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 1, List.of(
                new PaxosRecord.Promise(0),
                new PaxosRecord.Vote(0, 0, v("a")), new PaxosRecord.Decided(0, 0),
                new PaxosRecord.Vote(1, 0, v("b")), new PaxosRecord.Decided(1, 0),
                new PaxosRecord.Decision(2, v("c")),
                new PaxosRecord.Decision(4, v("e"))), 0);

        core.onTick(1, out);

        assertThat(out.decisions()).containsExactly(d(0, "a"), d(1, "b"), d(2, "c"));
        assertThat(core.firstUndecided()).isEqualTo(3);
        assertThat(out.records()).as("replay writes nothing").isEmpty();
        // The gap at 3 is fetched from peers as before: the leader is asked for 3..4.
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.CatchUpQuery(0, 3, 5));
        out.clear();

        core.onMessage(0, new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(3, v("d")))), 2, out);
        assertThat(out.decisions()).containsExactly(d(3, "d"), d(4, "e"));
        assertThat(out.records()).containsExactly(new PaxosRecord.Decision(3, v("d")));
    }

    @Test
    @DisplayName("replay starts at the installed snapshot; nothing below it is delivered again")
    void anInstalledSnapshotSkipsTheReplayedPrefix() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 1, List.of(
                new PaxosRecord.Decision(0, v("d0")), new PaxosRecord.Decision(1, v("d1")),
                new PaxosRecord.Decision(2, v("d2")), new PaxosRecord.Decision(3, v("d3")),
                new PaxosRecord.Decision(4, v("d4"))), 0);
        core.skipTo(3);

        core.onTick(1, out);

        assertThat(out.decisions()).containsExactly(d(3, "d3"), d(4, "d4"));
        assertThat(core.firstUndecided()).isEqualTo(5);
    }

    @Test
    @DisplayName("a Decided record counts only against the vote of its view logged before it; otherwise catch-up fetches it")
    void aDecidedRecordWithoutItsVoteIsIgnored() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 1, List.of(
                new PaxosRecord.Vote(0, 1, v("a")), new PaxosRecord.Decided(0, 2),   // names a vote never logged
                new PaxosRecord.Vote(1, 0, v("b")), new PaxosRecord.Decided(1, 0),
                new PaxosRecord.Vote(1, 1, v("b")),                                  // a later vote, same value
                new PaxosRecord.Decided(2, 0)), 0);                                  // no vote at all

        core.onTick(1, out);

        assertThat(out.decisions()).as("instance 0 is unknown, so nothing can be delivered yet").isEmpty();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsExactly(new PaxosMessage.CatchUpQuery(1, 0, 2));
        out.clear();

        core.onMessage(0, new PaxosMessage.CatchUpReply(1, 0, List.of(new PaxosMessage.Decided(0, v("z")))), 2, out);
        assertThat(out.decisions()).as("1 comes from the log, 2 was never recovered")
                .containsExactly(d(0, "z"), d(1, "b"));
    }

    @Test
    @DisplayName("a decision names the local vote when it holds the value, else it is logged with its value; never synced")
    void decisionsAreLoggedByReferenceOnlyWhenTheLocalVoteHoldsTheValue() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 1, List.of(), 0);
        core.onMessage(0, new PaxosMessage.Propose(0, 0, v("a")), 1, out);
        core.onMessage(0, new PaxosMessage.Propose(0, 1, v("x")), 1, out);   // voted, but y is decided in view 1
        core.onMessage(0, new PaxosMessage.Propose(0, 3, v("w")), 1, out);   // voted, and w is decided
        out.clear();

        core.onMessage(0, new PaxosMessage.Accept(0, 0), 2, out);
        core.onMessage(1, new PaxosMessage.Accept(0, 0), 2, out);
        assertThat(out.records()).containsExactly(new PaxosRecord.Decided(0, 0));
        assertThat(out.syncRequested()).as("a decision rides on the next sync").isFalse();
        out.clear();

        core.onMessage(0, new PaxosMessage.CatchUpReply(0, 0, List.of(
                new PaxosMessage.Decided(1, v("y")), new PaxosMessage.Decided(2, v("z")),
                new PaxosMessage.Decided(3, v("w")))), 3, out);
        assertThat(out.records()).containsExactly(
                new PaxosRecord.Decision(1, v("y")), new PaxosRecord.Decision(2, v("z")), new PaxosRecord.Decided(3, 0));
        assertThat(out.syncRequested()).isFalse();
        assertThat(out.decisions()).containsExactly(d(1, "y"), d(2, "z"), d(3, "w"));
    }

    @Test
    @DisplayName("a decision record lost with the unsynced tail is harmless: the logged prefix replays, peers fill the rest")
    void aRestartedReplicaReplaysItsLoggedPrefixThenCatchesUp() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.deliverAll(1000);
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, v(s));
            c.deliverAll(1000);
        }
        assertThat(c.delivered(1)).containsExactly(v("a"), v("b"), v("c"));

        // Decided(1) became durable with the vote for 2; Decided(2) was in the unsynced tail.
        c.crashAndRestart(1);
        c.tick(MS);
        assertThat(c.delivered(1)).as("replayed before any message was delivered").containsExactly(v("a"), v("b"));

        c.tick(60 * MS);            // a heartbeat tells 1 that 2 is decided
        c.deliverAll(1000);
        c.tick(150 * MS);           // 1 asks a peer for it
        c.deliverAll(1000);
        assertThat(c.delivered(1)).containsExactly(v("a"), v("b"), v("c"));
    }

    @Test
    @DisplayName("seed 000 (JPaxos staged replica) §III-C: compaction keeps the decisions at or above the trim point "
            + "and drops the rest")
    void compactionKeepsDecisionsFromTheTrimPointOn() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.deliverAll(1000);
        for (int i = 0; i < 6; i++) {
            c.propose(0, v("x" + i));
            c.deliverAll(1000);
        }
        c.compact(1, 3);
        assertThat(c.logSize(1)).as("trim, promise, votes 3..5, promise, members, Decided 3..5").isEqualTo(10);
        c.crashAndRestart(1);
        c.core(1).skipTo(3);        // the snapshot at 3 was restored
        c.tick(MS);
        assertThat(c.delivered(1)).containsExactly(v("x3"), v("x4"), v("x5"));
    }

    @Test
    @DisplayName("decision records below a trim point are covered by the snapshot and not recovered")
    void decisionsBelowTheTrimPointAreDropped() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 1, List.of(
                new PaxosRecord.Decision(0, v("d0")), new PaxosRecord.Decision(1, v("d1")),
                new PaxosRecord.Decision(2, v("d2")), new PaxosRecord.Trim(2),
                new PaxosRecord.Decision(3, v("d3"))), 0);

        core.onTick(1, out);

        assertThat(out.decisions()).as("0 and 1 were dropped with the trim, so nothing is deliverable").isEmpty();
        core.skipTo(2);             // the snapshot at the trim point was restored
        core.onTick(2, out);
        assertThat(out.decisions()).containsExactly(d(2, "d2"), d(3, "d3"));
    }
}
