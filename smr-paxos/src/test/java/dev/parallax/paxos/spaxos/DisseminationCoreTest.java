package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.parallax.paxos.spaxos.DissemCluster.MS;
import static dev.parallax.paxos.spaxos.DissemCluster.batch;
import static dev.parallax.paxos.spaxos.DissemCluster.body;
import static dev.parallax.paxos.spaxos.DissemCluster.text;
import static org.assertj.core.api.Assertions.assertThat;

/** One rule of {@link DisseminationCore} per test (docs/protocols/s-paxos.md, "Stability" and after). */
class DisseminationCoreTest {
    static final SPaxosConfig CONFIG = SPaxosConfig.builder(3).ackInterval(Duration.ofMillis(1))
            .ackRefresh(Duration.ofMillis(100)).resendDelay(Duration.ofMillis(50)).build();

    private final EffectBuffer<DisseminationMessage, DisseminationRecord, Batch> out = new EffectBuffer<>();

    private static DisseminationCore core(SPaxosConfig c, int self, long now) {
        return new DisseminationCore(c, self, List.of(), now, now);
    }

    private static AckVector acks(Object... triples) {
        List<AckVector.Entry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < triples.length; i += 3) {
            entries.add(new AckVector.Entry((Integer) triples[i], ((Number) triples[i + 1]).longValue(), ((Number) triples[i + 2]).longValue()));
        }
        return new AckVector(entries);
    }

    private static DisseminationMessage.Forward forward(int origin, long inc, long sn, String text, AckVector acks) {
        return new DisseminationMessage.Forward(new BatchId(origin, inc, sn), body(text), acks);
    }

    private <T> List<T> sent(Class<T> type) {
        return out.sends().stream().map(EffectBuffer.Outgoing::message).filter(type::isInstance).map(type::cast).toList();
    }

    private List<Integer> sentTo(Class<?> type) {
        return out.sends().stream().filter(o -> type.isInstance(o.message())).map(EffectBuffer.Outgoing::to).toList();
    }

    private Map<String, Long> events(DisseminationCore c) {
        Map<String, Long> m = new HashMap<>();
        c.reportEvents(m::put);
        return m;
    }

    @Test
    @DisplayName("numbering ⟨self, inc, sn⟩, body persisted with sync before the FORWARD to every peer (seed 002 (S-Paxos) §IV-A, Alg. 1 l.9-10; §IV-C; §VII)")
    void numberingAndPersistence() {
        DisseminationCore c = core(CONFIG, 1, 7);
        assertThat(c.incarnation()).isEqualTo(7);
        assertThat(c.onProposal(batch("a"), 10, out)).isTrue();
        assertThat(out.records()).containsExactly(new DisseminationRecord.IncarnationRecord(7),
                new DisseminationRecord.BodyRecord(new BatchId(1, 7, 1), body("a")));
        assertThat(out.syncRequested()).isTrue();
        assertThat(sentTo(DisseminationMessage.Forward.class)).containsExactly(0, 2);
        DisseminationMessage.Forward f = sent(DisseminationMessage.Forward.class).get(0);
        assertThat(f.id()).isEqualTo(new BatchId(1, 7, 1));
        assertThat(text(f.body())).isEqualTo("a");
        assertThat(f.acks()).as("the origin's own entry covers the id: its FORWARD is its ack").isEqualTo(acks(1, 7, 1));
        assertThat(c.body(f.id())).as("the origin holds it at once").isEqualTo(body("a"));
        out.clear();
        c.onProposal(batch("b"), 11, out);
        assertThat(out.records()).as("the incarnation is persisted once").containsExactly(
                new DisseminationRecord.BodyRecord(new BatchId(1, 7, 2), body("b")));
        assertThat(sent(DisseminationMessage.Forward.class).get(0).id().sn()).isEqualTo(2);
        assertThat(c.heldBodies()).isEqualTo(2);
        assertThat(c.heldBytes()).isEqualTo(2);
    }

    @Test
    @DisplayName("a receiver persists the body with sync in the step whose ACK names it (seed 002 (S-Paxos) Alg. 1 l.11-13)")
    void receiverPersistsBeforeAck() {
        DisseminationCore c = core(CONFIG, 2, 0);
        c.onMessage(0, forward(0, 0, 1, "x", acks(0, 0, 1)), 10 * MS, out);
        assertThat(out.records()).containsExactly(new DisseminationRecord.BodyRecord(new BatchId(0, 0, 1), body("x")),
                new DisseminationRecord.IncarnationRecord(0));
        assertThat(out.syncRequested()).isTrue();
        assertThat(sent(DisseminationMessage.Ack.class)).as("idle link: the ack goes at once, to every peer")
                .containsExactly(new DisseminationMessage.Ack(acks(0, 0, 1)), new DisseminationMessage.Ack(acks(0, 0, 1)));
        assertThat(events(c)).containsEntry("forwards.received", 1L).containsEntry("acks.sent", 2L);
    }

    @Test
    @DisplayName("acks are piggy-backed: a FORWARD carries the sender's per-origin watermarks (seed 002 (S-Paxos) §IV-C)")
    void piggyBackedWatermarks() {
        DisseminationCore c = core(CONFIG, 1, 0);
        c.onMessage(0, forward(0, 0, 1, "x", acks(0, 0, 1)), 0, out);
        c.onMessage(0, forward(0, 0, 2, "y", acks(0, 0, 2)), 0, out);
        c.onMessage(2, forward(2, 5, 1, "z", acks(2, 5, 1)), 0, out);
        out.clear();
        c.onProposal(batch("mine"), 0, out);
        DisseminationMessage.Forward f = sent(DisseminationMessage.Forward.class).get(0);
        assertThat(f.acks()).isEqualTo(acks(0, 0, 2, 1, 0, 1, 2, 5, 1));
        assertThat(sent(DisseminationMessage.Ack.class)).as("the FORWARD carried the vector: no explicit ack").isEmpty();
    }

    @Test
    @DisplayName("explicit ACK only when nothing went to the peer for ackInterval; refreshed every ackRefresh when idle (seed 002 (S-Paxos) Alg. 1 l.23-25)")
    void explicitAckOnlyWhenIdle() {
        DisseminationCore c = core(CONFIG, 2, 0);
        c.onMessage(0, forward(0, 0, 1, "a", acks(0, 0, 1)), 10 * MS, out);
        assertThat(sentTo(DisseminationMessage.Ack.class)).containsExactly(0, 1);
        out.clear();
        long t = 10 * MS + MS / 10;
        c.onMessage(0, forward(0, 0, 2, "b", acks(0, 0, 2)), t, out);
        assertThat(sent(DisseminationMessage.Ack.class)).as("an ack went 0.1 ms ago: wait").isEmpty();
        assertThat(out.wakeAt()).isEqualTo(11 * MS);
        out.clear();
        c.onTick(11 * MS, out);
        assertThat(sent(DisseminationMessage.Ack.class)).containsExactly(new DisseminationMessage.Ack(acks(0, 0, 2)),
                new DisseminationMessage.Ack(acks(0, 0, 2)));
        out.clear();
        c.onTick(60 * MS, out);
        assertThat(out.sends()).as("nothing changed, refresh not due").isEmpty();
        assertThat(out.wakeAt()).isEqualTo(111 * MS);
        out.clear();
        c.onTick(111 * MS, out);
        assertThat(sentTo(DisseminationMessage.Ack.class)).as("lost-ack repair").containsExactly(0, 1);
    }

    @Test
    @DisplayName("stable at f+1 holders, the origin's FORWARD counting: n=3 (seed 002 (S-Paxos) Alg. 1 l.14-15, §IV-B a)")
    void stableAtFPlusOneN3() {
        DissemCluster c = new DissemCluster(CONFIG);
        c.propose(0, batch("a"));
        assertThat(c.delivered(0)).as("one holder of f+1 = 2").isEmpty();
        c.deliverNext(); // Forward 0 -> 1: holders {0, 1}
        assertThat(c.delivered(1)).extracting(Batch::id).containsExactly(new BatchId(0, 0, 1));
        assertThat(text(c.delivered(1).get(0).body())).isEqualTo("a");
        c.deliverAll(100);
        c.tick(2 * MS);
        c.deliverAll(100);
        for (int i = 0; i < 3; i++) {
            assertThat(c.delivered(i)).as("replica %s", i).extracting(Batch::id).containsExactly(new BatchId(0, 0, 1));
        }
    }

    @Test
    @DisplayName("stable at f+1 holders, the origin's FORWARD counting: n=5 needs a third holder (seed 002 (S-Paxos) Alg. 1 l.14-15, §IV-B a)")
    void stableAtFPlusOneN5() {
        SPaxosConfig five = SPaxosConfig.builder(5).build();
        DisseminationCore c = core(five, 1, 0);
        c.onMessage(0, forward(0, 0, 1, "a", acks(0, 0, 1)), 0, out);
        assertThat(out.decisions()).as("holders {0, 1}: 2 < f+1 = 3").isEmpty();
        out.clear();
        c.onMessage(3, new DisseminationMessage.Ack(acks(0, 0, 1)), 0, out);
        assertThat(out.decisions()).extracting(EffectBuffer.Decision::instance).containsExactly(0L);
        assertThat(out.decisions().get(0).value().id()).isEqualTo(new BatchId(0, 0, 1));
        DisseminationCore far = core(five, 4, 0);
        out.clear();
        far.onMessage(0, new DisseminationMessage.Ack(acks(0, 0, 1)), 0, out);
        far.onMessage(1, new DisseminationMessage.Ack(acks(0, 0, 1)), 0, out);
        assertThat(out.decisions()).isEmpty();
        far.onMessage(2, new DisseminationMessage.Ack(acks(0, 0, 1)), 0, out);
        assertThat(out.decisions()).as("stable without holding it: the body is null").hasSize(1);
        assertThat(out.decisions().get(0).value().body()).isNull();
    }

    @Test
    @DisplayName("stability is reported once per id, per origin in sn order; a gap holds later ids back (seed 002 (S-Paxos) §IV-C)")
    void stabilityOnceInSnOrder() {
        DisseminationCore c = core(CONFIG, 1, 0);
        c.onMessage(0, forward(0, 0, 2, "b", acks(0, 0, 2)), 0, out);
        assertThat(out.decisions()).as("sn 1 missing here: own watermark 0").isEmpty();
        c.onMessage(0, forward(0, 0, 1, "a", acks(0, 0, 2)), 0, out);
        c.onMessage(0, forward(0, 0, 3, "c", acks(0, 0, 3)), 0, out);
        c.onMessage(2, new DisseminationMessage.Ack(acks(0, 0, 3)), 0, out);
        c.onMessage(2, new DisseminationMessage.Ack(acks(0, 0, 3)), 0, out);
        assertThat(out.decisions()).extracting(d -> d.instance() + "=" + d.value().id())
                .containsExactly("0=0:0:1", "1=0:0:2", "2=0:0:3");
    }

    @Test
    @DisplayName("a missing body some peer acked is asked for after Δ, from an acker, rotating on every retry (seed 002 (S-Paxos) Alg. 1 l.26-31)")
    void resendForwardAfterDeltaRotating() {
        DisseminationCore c = core(CONFIG, 2, 0);
        c.onMessage(1, new DisseminationMessage.Ack(acks(0, 0, 2)), 0, out);
        c.onMessage(0, new DisseminationMessage.Ack(acks(0, 0, 2)), 0, out);
        assertThat(sent(DisseminationMessage.ResendForward.class)).isEmpty();
        assertThat(out.wakeAt()).isEqualTo(50 * MS);
        out.clear();
        c.onTick(49 * MS, out);
        assertThat(sent(DisseminationMessage.ResendForward.class)).isEmpty();
        c.onTick(50 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(0, new DisseminationMessage.ResendForward(0, 0, 1, 2)));
        out.clear();
        c.onTick(100 * MS, out);
        assertThat(sentTo(DisseminationMessage.ResendForward.class)).as("the retry goes to the other acker").containsExactly(1);
        out.clear();
        c.onTick(150 * MS, out);
        assertThat(sentTo(DisseminationMessage.ResendForward.class)).containsExactly(0);
        // The holder answers with FORWARDs; the asker stores them and stops asking.
        DisseminationCore holder = core(CONFIG, 0, 0);
        EffectBuffer<DisseminationMessage, DisseminationRecord, Batch> h = new EffectBuffer<>();
        holder.onProposal(batch("a"), 0, h);
        holder.onProposal(batch("b"), 0, h);
        h.clear();
        holder.onMessage(2, new DisseminationMessage.ResendForward(0, 0, 1, 2), 150 * MS, h);
        List<DisseminationMessage.Forward> answers = h.sends().stream().map(EffectBuffer.Outgoing::message)
                .filter(DisseminationMessage.Forward.class::isInstance).map(DisseminationMessage.Forward.class::cast).toList();
        assertThat(answers).extracting(DisseminationMessage.Forward::id).containsExactly(new BatchId(0, 0, 1), new BatchId(0, 0, 2));
        out.clear();
        for (DisseminationMessage.Forward f : answers) {
            c.onMessage(0, f, 151 * MS, out);
        }
        out.clear();
        c.onTick(300 * MS, out);
        assertThat(sent(DisseminationMessage.ResendForward.class)).isEmpty();
        assertThat(events(c)).containsEntry("resends.sent", 3L);
        assertThat(events(holder)).containsEntry("resends.served", 2L);
    }

    @Test
    @DisplayName("a holder's answer is bounded by resendMaxBytes, the first body always going (seed 002 (S-Paxos) Alg. 1 l.30-31)")
    void resendAnswerBounded() {
        SPaxosConfig small = SPaxosConfig.builder(3).resendMaxBytes(5).build();
        DisseminationCore holder = core(small, 0, 0);
        holder.onProposal(Batch.unnumbered(ByteBuffer.allocate(8)), 0, out);
        holder.onProposal(Batch.unnumbered(ByteBuffer.allocate(1)), 0, out);
        out.clear();
        holder.onMessage(1, new DisseminationMessage.ResendForward(0, 0, 1, 2), 0, out);
        assertThat(sent(DisseminationMessage.Forward.class)).extracting(DisseminationMessage.Forward::id)
                .containsExactly(new BatchId(0, 0, 1));
    }

    @Test
    @DisplayName("a decided id whose body is missing is fetched at once, then every Δ (seed 002 (S-Paxos) Alg. 1 l.21-22)")
    void decidedIdFetchedAtOnce() {
        DisseminationCore c = core(CONFIG, 2, 0);
        c.onMessage(1, new DisseminationMessage.Ack(acks(0, 0, 1)), 0, out);
        out.clear();
        BatchId id = new BatchId(0, 0, 1);
        c.decided(id);
        c.want(id, 3 * MS, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(1, new DisseminationMessage.ResendForward(0, 0, 1, 1)));
        out.clear();
        c.onTick(53 * MS, out);
        assertThat(sentTo(DisseminationMessage.ResendForward.class)).as("no other acker: the same again").contains(1);
        // Nobody acked it: ask the peers in turn.
        DisseminationCore lonely = core(CONFIG, 2, 0);
        out.clear();
        lonely.want(new BatchId(1, 4, 9), 0, out);
        assertThat(sentTo(DisseminationMessage.ResendForward.class)).containsExactly(0);
        out.clear();
        lonely.onTick(50 * MS, out);
        assertThat(sentTo(DisseminationMessage.ResendForward.class)).containsExactly(1);
        // Arrival ends the fetch, even beyond the receiver window.
        out.clear();
        lonely.onMessage(1, forward(1, 4, 9, "late", AckVector.EMPTY), 60 * MS, out);
        assertThat(lonely.body(new BatchId(1, 4, 9))).isEqualTo(body("late"));
        out.clear();
        lonely.onTick(200 * MS, out);
        assertThat(sent(DisseminationMessage.ResendForward.class)).isEmpty();
    }

    @Test
    @DisplayName("BodyGone: a holder that executed and dropped the body says so; the asker needs a snapshot")
    void bodyGoneAsksForASnapshot() {
        DisseminationCore holder = core(CONFIG, 0, 0);
        holder.onProposal(batch("a"), 0, out);
        BatchId id = new BatchId(0, 0, 1);
        holder.executed(id, 4);
        holder.compact(5, out);
        assertThat(holder.body(id)).isNull();
        out.clear();
        holder.onMessage(2, new DisseminationMessage.ResendForward(0, 0, 1, 1), 0, out);
        assertThat(out.sends()).containsExactly(new EffectBuffer.Outgoing<>(2, new DisseminationMessage.BodyGone(id, 5)));
        out.clear();
        holder.onMessage(2, new DisseminationMessage.ResendForward(0, 0, 2, 3), 0, out);
        assertThat(out.sends()).as("never held: no answer").isEmpty();

        DisseminationCore asker = core(CONFIG, 2, 0);
        asker.decided(id);
        asker.want(id, 0, out);
        out.clear();
        asker.onMessage(0, new DisseminationMessage.BodyGone(id, 5), 0, out);
        assertThat(out.snapshotRequests()).containsExactly(new EffectBuffer.SnapshotRequest(0, 5));
        out.clear();
        asker.onMessage(0, new DisseminationMessage.BodyGone(new BatchId(0, 0, 7), 5), 0, out);
        assertThat(out.snapshotRequests()).as("not wanted here: nothing to install for").isEmpty();
        assertThat(events(asker)).containsEntry("bodies.gone", 2L);
    }

    @Test
    @DisplayName("the origin's span bound B refuses a batch and releases on decided")
    void originSpanBound() {
        SPaxosConfig b2 = SPaxosConfig.builder(3).maxUndecidedPerOrigin(2).eagerBelow(1).build();
        DisseminationCore c = core(b2, 0, 0);
        assertThat(c.canPropose()).isTrue();
        assertThat(c.onProposal(batch("1"), 0, out)).isTrue();
        assertThat(c.canPropose()).as("one unstable own batch, eagerBelow 1").isFalse();
        assertThat(c.onProposal(batch("2"), 0, out)).isTrue();
        out.clear();
        assertThat(c.onProposal(batch("3"), 0, out)).isFalse();
        assertThat(out.records()).isEmpty();
        assertThat(sent(DisseminationMessage.Forward.class)).isEmpty();
        assertThat(events(c)).containsEntry("origin.blocked", 1L);
        c.decided(new BatchId(0, 0, 2));
        assertThat(c.onProposal(batch("3"), 0, out)).as("sn 1 still undecided").isFalse();
        c.decided(new BatchId(0, 0, 1));
        assertThat(c.onProposal(batch("3"), 0, out)).isTrue();
        assertThat(sent(DisseminationMessage.Forward.class).get(0).id()).isEqualTo(new BatchId(0, 0, 3));
    }

    @Test
    @DisplayName("the receiver window (lowest undecided + 2B) drops FORWARDs beyond it unacked")
    void receiverWindow() {
        SPaxosConfig b2 = SPaxosConfig.builder(3).maxUndecidedPerOrigin(2).build();
        DisseminationCore c = core(b2, 1, 0);
        c.onMessage(0, forward(0, 0, 5, "far", acks(0, 0, 5)), 0, out);
        assertThat(out.records()).isEmpty();
        assertThat(c.body(new BatchId(0, 0, 5))).isNull();
        assertThat(events(c)).containsEntry("forwards.refused", 1L);
        c.onMessage(0, forward(0, 0, 4, "near", acks(0, 0, 5)), 0, out);
        assertThat(c.body(new BatchId(0, 0, 4))).as("sn 4 < 1 + 2B").isNotNull();
        c.decided(new BatchId(0, 0, 1));
        out.clear();
        c.onMessage(0, forward(0, 0, 5, "far", acks(0, 0, 5)), 0, out);
        assertThat(c.body(new BatchId(0, 0, 5))).as("the window moved with the decision").isNotNull();
        assertThat(out.records()).hasSize(1);
    }

    @Test
    @DisplayName("incarnation = max(recovered + 1, floor), synced before the first FORWARD, never reused across 3 restarts")
    void incarnations() {
        DissemCluster c = new DissemCluster(CONFIG, now -> 0);
        java.util.Set<Long> used = new java.util.HashSet<>();
        for (int round = 0; round < 4; round++) {
            long inc = c.core(0).incarnation();
            assertThat(used.add(inc)).as("incarnation %s reused", inc).isTrue();
            c.trace().clear();
            c.propose(0, batch("r" + round));
            assertThat(c.trace().get(1)).isEqualTo("0 0 persist IncarnationRecord[incarnation=" + inc + "] (sync)");
            assertThat(c.trace().get(3)).startsWith("0 0 send ->1 Forward{0:" + inc + ":1,");
            c.dropAll();
            c.crashAndRestart(0);
        }
        assertThat(used).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
        DisseminationCore floored = new DisseminationCore(CONFIG, 0, List.of(new DisseminationRecord.IncarnationRecord(3)), 1000, 0);
        assertThat(floored.incarnation()).as("a floor above the record wins").isEqualTo(1000);
        DisseminationCore recovered = new DisseminationCore(CONFIG, 0, List.of(new DisseminationRecord.IncarnationRecord(3000)), 1000, 0);
        assertThat(recovered.incarnation()).isEqualTo(3001);
    }

    @Test
    @DisplayName("a restarted origin re-forwards its undecided bodies of earlier incarnations, never renumbered")
    void restartReforwards() {
        DissemCluster c = new DissemCluster(CONFIG, now -> now);
        c.propose(0, batch("old"));
        c.dropAll(); // the FORWARDs are lost
        c.tick(5 * MS);
        c.dropAll();
        c.crashAndRestart(0);
        assertThat(c.core(0).incarnation()).isEqualTo(5 * MS);
        c.trace().clear();
        c.tick(MS);
        assertThat(c.trace()).anySatisfy(l -> assertThat(l).contains("0 send ->1 Forward{0:0:1,"));
        assertThat(c.trace()).anySatisfy(l -> assertThat(l).contains("0 send ->2 Forward{0:0:1,"));
        c.deliverAll(100);
        assertThat(c.delivered(1)).extracting(Batch::id).containsExactly(new BatchId(0, 0, 1));
        c.propose(0, batch("new"));
        assertThat(c.trace().get(c.trace().size() - 2)).contains("Forward{0:" + 5 * MS + ":1,");
        // A decided one is not re-forwarded.
        c.dropAll();
        c.core(0).decided(new BatchId(0, 5 * MS, 1));
        c.crashAndRestart(0);
        c.core(0).decided(new BatchId(0, 5 * MS, 1));
        c.core(0).decided(new BatchId(0, 0, 1));
        c.trace().clear();
        c.tick(MS);
        assertThat(c.trace()).noneSatisfy(l -> assertThat(l).contains("Forward"));
    }

    @Test
    @DisplayName("compact drops exactly the bodies executed below p and re-persists the rest and the incarnation")
    void compactDropsExecutedBelow() {
        DissemCluster c = new DissemCluster(CONFIG, now -> 0);
        for (String s : new String[] {"a", "b", "c"}) {
            c.propose(0, batch(s));
        }
        c.deliverAll(100);
        DisseminationCore o = c.core(0);
        o.executed(new BatchId(0, 0, 1), 5);
        o.executed(new BatchId(0, 0, 2), 9);
        c.trace().clear();
        c.compact(0, 7);
        assertThat(c.trace()).containsExactly(
                "0 0 persist BodyRecord{0:0:2, 1B#" + crc("b") + "} (sync)",
                "0 0 persist BodyRecord{0:0:3, 1B#" + crc("c") + "} (sync)",
                "0 0 persist IncarnationRecord[incarnation=0] (sync)",
                "0 0 compacted below 7, log now starts at " + c.log(0).firstIndex());
        assertThat(o.heldBodies()).isEqualTo(2);
        c.crashAndRestart(0);
        DisseminationCore r = c.core(0);
        assertThat(r.body(new BatchId(0, 0, 1))).isNull();
        assertThat(text(r.body(new BatchId(0, 0, 2)))).isEqualTo("b");
        assertThat(text(r.body(new BatchId(0, 0, 3)))).isEqualTo("c");
        assertThat(r.incarnation()).isEqualTo(1);
    }

    @Test
    @DisplayName("a peer that is down for the whole run does not hold back GC (PROTOCOLS.md §2.8)")
    void downPeerDoesNotHoldBackGc() {
        DissemCluster c = new DissemCluster(CONFIG);
        c.isolate(2);
        for (int i = 0; i < 5; i++) {
            c.propose(0, batch("x" + i));
        }
        c.deliverAll(100);
        assertThat(c.delivered(1)).hasSize(5);
        for (int i = 0; i < 5; i++) {
            BatchId id = new BatchId(0, 0, i + 1);
            c.core(0).decided(id);
            c.core(1).decided(id);
            c.core(0).executed(id, i);
            c.core(1).executed(id, i);
        }
        c.compact(0, 5);
        c.compact(1, 5);
        assertThat(c.core(0).heldBodies()).isZero();
        assertThat(c.core(1).heldBodies()).isZero();
        assertThat(c.core(0).heldBytes()).isZero();
    }

    @Test
    @DisplayName("restore: a snapshot's executed ids raise the watermark and count as dropped")
    void restoreRaisesWatermark() {
        DisseminationCore c = core(CONFIG, 2, 0);
        ExecutedIds executed = new ExecutedIds();
        for (long sn = 1; sn <= 3; sn++) {
            executed.firstExecution(new BatchId(0, 0, sn));
        }
        c.onMessage(0, forward(0, 0, 4, "d", acks(0, 0, 4)), 0, out);
        c.restore(executed, 12);
        out.clear();
        c.onTick(10 * MS, out);
        assertThat(sent(DisseminationMessage.Ack.class)).as("held 4 on top of executed 1..3")
                .contains(new DisseminationMessage.Ack(acks(0, 0, 4)));
        out.clear();
        c.onMessage(1, new DisseminationMessage.ResendForward(0, 0, 2, 4), 10 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(
                new DisseminationMessage.BodyGone(new BatchId(0, 0, 2), 12),
                new DisseminationMessage.Forward(new BatchId(0, 0, 4), body("d"), acks(0, 0, 4)));
        out.clear();
        c.onMessage(0, forward(0, 0, 2, "b", acks(0, 0, 4)), 10 * MS, out);
        assertThat(out.records()).as("an executed id's body is not stored again").isEmpty();
    }

    private static DisseminationCore amnesiac(SPaxosConfig c, int self, long now) {
        return new DisseminationCore(c, self, List.of(), true, now, now);
    }

    @Test
    @DisplayName("amnesia: recovering until n-f = 2 peers (n=3) were heard after the restart and every id up to their "
            + "highest watermarks is held again (seed 002 (S-Paxos) §IV-B a)")
    void amnesiacRecoversOnceTwoPeersHeardAndTargetsHeld() {
        DisseminationCore c = amnesiac(CONFIG, 2, 0);
        assertThat(c.recovering()).isTrue();
        c.onMessage(0, new DisseminationMessage.Ack(acks(0, 0, 2)), 0, out);
        c.onMessage(0, forward(0, 0, 1, "a", acks(0, 0, 2)), 0, out);
        c.onMessage(0, forward(0, 0, 2, "b", acks(0, 0, 2)), 0, out);
        assertThat(c.recovering()).as("holds what peer 0 acked, but only one peer of n-f = 2 heard").isTrue();
        out.clear();
        c.onMessage(1, new DisseminationMessage.Ack(acks(0, 0, 3, 1, 4, 1)), MS, out);
        assertThat(c.recovering()).as("target 0:0<=3, 1:4<=1; holds 0:0<=2").isTrue();
        assertThat(sent(DisseminationMessage.Ack.class)).as("acks only what it holds").isNotEmpty()
                .allSatisfy(a -> assertThat(a.acks()).isEqualTo(acks(0, 0, 2)));
        c.onMessage(0, new DisseminationMessage.Ack(acks(0, 0, 9)), MS, out);
        out.clear();
        c.onTick(51 * MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).as("the missing ids are fetched as gaps after Δ")
                .contains(new DisseminationMessage.ResendForward(1, 4, 1, 1));
        assertThat(sent(DisseminationMessage.ResendForward.class)).anySatisfy(r -> assertThat(r.origin()).isZero());
        c.onMessage(1, forward(0, 0, 3, "c", acks(0, 0, 3, 1, 4, 1)), 52 * MS, out);
        assertThat(c.recovering()).as("1:4:1 still missing").isTrue();
        assertThat(events(c)).containsEntry("dissemination.recovered", 0L);
        c.onMessage(1, forward(1, 4, 1, "d", acks(0, 0, 3, 1, 4, 1)), 52 * MS, out);
        assertThat(c.recovering()).as("the target is fixed once 2 peers were heard: 0:0:4..9 are not waited for").isFalse();
        assertThat(events(c)).containsEntry("dissemination.recovered", 1L);
    }

    @Test
    @DisplayName("amnesia, n=5: n-f = 3 of 4 peers must be heard, so one heard peer holds each stable id "
            + "(f+1 = 3 holders, at most 1 unheard)")
    void amnesiacN5NeedsThreePeers() {
        SPaxosConfig five = SPaxosConfig.builder(5).build();
        DisseminationCore c = amnesiac(five, 4, 0);
        c.onMessage(0, new DisseminationMessage.Ack(AckVector.EMPTY), 0, out);
        c.onMessage(1, new DisseminationMessage.Ack(AckVector.EMPTY), 0, out);
        c.onMessage(1, new DisseminationMessage.Ack(AckVector.EMPTY), 0, out);
        assertThat(c.recovering()).as("two distinct peers heard").isTrue();
        c.onMessage(2, new DisseminationMessage.Ack(acks(3, 0, 1)), 0, out);
        assertThat(c.recovering()).isTrue();
        c.onMessage(3, forward(3, 0, 1, "x", acks(3, 0, 1)), 0, out);
        assertThat(c.recovering()).isFalse();
    }

    @Test
    @DisplayName("amnesia: a BodyGone for a target id asks for a snapshot; its executed ids complete the recovery")
    void amnesiacRecoversThroughASnapshot() {
        DisseminationCore c = amnesiac(CONFIG, 2, 0);
        c.onMessage(0, new DisseminationMessage.Ack(acks(0, 0, 2)), 0, out);
        c.onMessage(1, new DisseminationMessage.Ack(acks(0, 0, 2)), 0, out);
        out.clear();
        c.onTick(50 * MS, out);
        List<DisseminationMessage.ResendForward> asked = sent(DisseminationMessage.ResendForward.class);
        assertThat(asked).containsExactly(new DisseminationMessage.ResendForward(0, 0, 1, 2));
        int holder = sentTo(DisseminationMessage.ResendForward.class).get(0);
        out.clear();
        c.onMessage(holder, new DisseminationMessage.BodyGone(new BatchId(0, 0, 1), 7), 51 * MS, out);
        assertThat(out.snapshotRequests()).containsExactly(new EffectBuffer.SnapshotRequest(holder, 7));
        out.clear();
        c.onMessage(holder, new DisseminationMessage.BodyGone(new BatchId(0, 0, 5), 7), 51 * MS, out);
        assertThat(out.snapshotRequests()).as("beyond the target and not wanted").isEmpty();
        assertThat(c.recovering()).isTrue();
        ExecutedIds executed = new ExecutedIds();
        executed.firstExecution(new BatchId(0, 0, 1));
        executed.firstExecution(new BatchId(0, 0, 2));
        c.restore(executed, 7);
        assertThat(c.recovering()).as("executed ids count as held").isFalse();
        assertThat(events(c)).containsEntry("dissemination.recovered", 1L);
    }

    @Test
    @DisplayName("amnesia: n=1 has nobody to ask and is recovered at once; a core not started amnesiac never recovers")
    void amnesiacAloneAndNonAmnesiac() {
        assertThat(amnesiac(SPaxosConfig.builder(1).build(), 0, 0).recovering()).isFalse();
        DisseminationCore normal = core(CONFIG, 2, 0);
        assertThat(normal.recovering()).isFalse();
        normal.onMessage(0, new DisseminationMessage.Ack(acks(0, 0, 5)), 0, out);
        normal.onMessage(1, new DisseminationMessage.Ack(acks(0, 0, 5)), 0, out);
        assertThat(normal.recovering()).isFalse();
        assertThat(events(normal)).containsEntry("dissemination.recovered", 0L);
    }

    private static String crc(String s) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return Long.toHexString(crc.getValue());
    }
}
