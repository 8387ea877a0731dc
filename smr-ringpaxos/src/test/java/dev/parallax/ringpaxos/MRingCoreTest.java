package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;

import dev.parallax.core.testkit.ScriptedCluster.Envelope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * M-Ring over the whole core ({@link RingPaxosCore} with {@link DatagramPath}) in a
 * {@code ScriptedCluster} whose multicasts are one envelope per other member (R5): rules M1–M8 of
 * docs/protocols/ring-paxos.md ("M-Ring") and the loss cases of seed 003 (Ring Paxos) §3.3.4, one test each. With n = 3 and
 * round 0 the ring is {@code [1, 0]} (acceptor 1, coordinator 0) and member 2 is a spare; with
 * n = 5 it is {@code [1, 2, 0]}, spares 3 and 4.
 */
class MRingCoreTest {
    static RingConfig.Builder mRing(int members) {
        return RingConfig.builder(members, Ring.Kind.M_RING);
    }

    static RingCluster started(RingConfig config) {
        RingCluster c = new RingCluster(config);
        c.start();
        assertThat(c.core(0).isCoordinator()).isTrue();
        c.trace().clear();
        return c;
    }

    /** Delivers everything, losing the first {@code limit} envelopes that match {@code lose}. */
    static int deliverLosing(RingCluster c, Predicate<Envelope<RingWire>> lose, int limit) {
        int lost = 0;
        for (int i = 0; i < 10_000 && c.pending() > 0; i++) {
            if (lost < limit && lose.test(c.queued().get(0))) {
                c.dropNext();
                lost++;
            } else {
                c.deliverNext();
            }
        }
        return lost;
    }

    /** A datagram copy to {@code to} carrying a 2A. */
    static Predicate<Envelope<RingWire>> twoA(int to) {
        return e -> e.datagram() && e.to() == to && !((MPacket) e.message()).proposals().isEmpty();
    }

    /** A datagram copy to {@code to} carrying decisions. */
    static Predicate<Envelope<RingWire>> decision(int to) {
        return e -> e.datagram() && e.to() == to && !((MPacket) e.message()).decisions().isEmpty();
    }

    static Map<String, Long> events(RingPaxosCore core) {
        Map<String, Long> m = new HashMap<>();
        core.reportEvents(m::put);
        return m;
    }

    static List<String> lines(RingCluster c, String part) {
        return c.trace().stream().filter(l -> l.contains(part)).toList();
    }

    static RingValue.ClientBatch bytes(int n, char fill) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) fill);
        return new RingValue.ClientBatch(ByteBuffer.wrap(b).asReadOnlyBuffer());
    }

    @Test
    @DisplayName("M1 (Alg. 2 l.18): the 2A is one datagram to every other member, nothing of it by TCP")
    void twoAIsOneMulticast() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        assertThat(lines(c, "0 mcast 0 MPacket")).singleElement().asString().contains("proposals=[Phase2Entry[instance=0");
        assertThat(c.queued()).extracting(Envelope::to).containsExactly(1, 2);
        assertThat(c.queued()).allMatch(Envelope::datagram);
        c.deliverAll(1000);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
    }

    @Test
    @DisplayName("M1/M4 (§3.3.2 last ¶): a decision rides in front of the next 2A in one datagram")
    void decisionRidesWithTheNext2A() {
        RingCluster c = started(mRing(3).window(1).build());
        c.propose(0, batch("a"));
        c.propose(0, batch("b")); // window 1: waits for instance 0
        c.deliverAll(1000);
        assertThat(lines(c, "0 mcast 0 MPacket")).anySatisfy(l -> assertThat(l)
                .contains("decisions=[InstanceVid[instance=0").contains("proposals=[Phase2Entry[instance=1"));
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a", "b");
        }
    }

    @Test
    @DisplayName("M2 (Alg. 2 l.19–25): the ring acceptor votes on ip-delivery, synced before its 2B; the spare only buffers")
    void acceptorVotesSpareBuffers() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        List<String> one = c.trace().stream().filter(l -> l.matches("\\d+ 1 .*")).toList();
        assertThat(one.get(0)).contains("persist VoteRecord[instance=0, round=0").endsWith("(sync)");
        assertThat(one.get(1)).contains("send ->0 Phase2B[round=0");
        assertThat(lines(c, "2 persist VoteRecord")).as("the spare does not vote").isEmpty();
        assertThat(lines(c, "2 send")).as("nor forward anything").isEmpty();
        assertThat(lines(c, "CatchUpQuery")).as("the spare decides from its buffered body").isEmpty();
        assertThat(c.texts(2)).containsExactly("a");
    }

    @Test
    @DisplayName("M3 (Alg. 2 l.26–33): n = 5, first() → next acceptor → coordinator; a 2B ahead of its 2A waits until the retransmitted 2A")
    void chainWaitsForThe2A() {
        RingCluster c = started(mRing(5).build());
        assertThat(c.core(0).ring().order()).containsExactly(1, 2, 0);
        c.propose(0, batch("a"));
        assertThat(deliverLosing(c, twoA(2), 1)).isEqualTo(1);
        assertThat(lines(c, "1 send ->2 Phase2B")).hasSize(1);
        assertThat(lines(c, "2 send ->0 Phase2B")).as("2 has not voted: holds the 2B").isEmpty();
        assertThat(c.texts(0)).isEmpty();
        assertThat(events(c.core(2))).containsEntry("mring.2b.held", 1L);
        c.tick(25 * MS); // mring.retransmit = 20 ms
        c.deliverAll(1000);
        assertThat(lines(c, "2 send ->0 Phase2B")).as("the held 2B, then again for first()'s repeated one").hasSize(2);
        assertThat(events(c.core(0))).containsEntry("mring.2a.retransmits", 1L);
        c.settle(50, 4);
        for (int i = 0; i < 5; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
    }

    @Test
    @DisplayName("M3: a lost 2B is repaired: the retransmitted 2A makes first() send it again")
    void lost2BRepaired() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        assertThat(deliverLosing(c, e -> e.message() instanceof MRingMessage.Phase2B, 1)).isEqualTo(1);
        assertThat(c.texts(0)).isEmpty();
        c.tick(25 * MS);
        c.deliverAll(1000);
        assertThat(lines(c, "1 send ->0 Phase2B")).hasSize(2);
        assertThat(lines(c, "1 persist VoteRecord")).as("no second vote record").hasSize(1);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
    }

    @Test
    @DisplayName("M4 (Alg. 2 l.34): the coordinator decides on the 2B from predecessor(c) and multicasts the id-only decision")
    void coordinatorMulticastsTheDecision() {
        RingCluster c = started(mRing(3).build());
        c.propose(1, batch("a"));
        c.deliverAll(1000);
        assertThat(lines(c, "0 mcast 0 MPacket")).hasSize(2);
        assertThat(lines(c, "0 mcast 0 MPacket").get(1)).contains("decisions=[InstanceVid[instance=0").contains("proposals=[]");
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
    }

    @Test
    @DisplayName("§3.3.4 (a): the 2A arrived, the decision was lost: the learner catches up from its preferential acceptor (M8)")
    void lostDecision() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        assertThat(deliverLosing(c, decision(2), 1)).isEqualTo(1);
        assertThat(c.texts(2)).isEmpty();
        c.settle(50, 4);
        assertThat(lines(c, "2 send ->1 CatchUpQuery")).as("preferential acceptor of 2: ring.order[2 mod 2] = 1").isNotEmpty();
        assertThat(c.texts(2)).containsExactly("a");
    }

    @Test
    @DisplayName("§3.3.4 (b): the decision arrived, the 2A was lost: the body comes by catch-up")
    void lost2A() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        assertThat(deliverLosing(c, twoA(2), 1)).isEqualTo(1);
        assertThat(c.texts(2)).isEmpty();
        c.settle(50, 4);
        assertThat(c.texts(2)).containsExactly("a");
        assertThat(c.texts(0)).containsExactly("a");
    }

    @Test
    @DisplayName("§3.3.4 (c): both lost: the decision and the body come by catch-up")
    void lostBoth() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        assertThat(deliverLosing(c, e -> e.datagram() && e.to() == 2, 2)).isEqualTo(2);
        assertThat(c.texts(2)).isEmpty();
        c.settle(50, 4);
        assertThat(c.texts(2)).containsExactly("a");
    }

    @Test
    @DisplayName("M5 (§3.3.4 ¶2): a 2A lost to the ring acceptor is multicast again after mring.retransmit")
    void retransmitted2A() {
        RingCluster c = started(mRing(3).build());
        c.propose(0, batch("a"));
        deliverLosing(c, twoA(1), 1);
        assertThat(c.texts(0)).isEmpty();
        c.tick(10 * MS);
        assertThat(lines(c, "0 mcast")).as("not yet").hasSize(1);
        c.tick(15 * MS);
        assertThat(lines(c, "0 mcast")).hasSize(2);
        c.deliverAll(1000);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
    }

    @Test
    @DisplayName("M1: a value too big for a datagram goes as Phase2AUnicast to the ring acceptors; the spare fetches it")
    void oversizedValue() {
        RingCluster c = started(mRing(3).mringPacketBytes(512).build());
        c.propose(0, bytes(600, 'x'));
        assertThat(lines(c, "0 send ->1 Phase2AUnicast")).hasSize(1);
        assertThat(lines(c, "0 send ->2 Phase2AUnicast")).isEmpty();
        assertThat(lines(c, "0 mcast")).isEmpty();
        c.deliverAll(1000);
        assertThat(c.delivered(0)).hasSize(1);
        c.settle(50, 4);
        for (int i = 0; i < 3; i++) {
            assertThat(c.delivered(i)).singleElement().satisfies(v ->
                    assertThat(((RingValue.Chosen) v).bytes().remaining()).isEqualTo(600));
        }
        assertThat(events(c.core(0))).containsEntry("mring.2a.unicast", 1L);
    }

    @Test
    @DisplayName("M6 (§3.3.6): a learner's backlog report halves the coordinator's window; it regrows once the learner caught up")
    void flowControl() {
        RingCluster c = started(mRing(3).mringFcThreshold(2).build());
        int max = c.core(0).window();
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, batch(s));
        }
        c.deliverAll(1000);
        c.delivered(1, 3);
        c.delivered(2, 0); // backlog 3 ≥ threshold 2: an Alive at once
        assertThat(lines(c, "2 send ->0 Alive")).singleElement().asString().contains("backlog=3");
        c.deliverAll(1000);
        assertThat(c.core(0).window()).isEqualTo(max / 2);
        c.delivered(2, 3);
        c.settle(50, 4);
        assertThat(c.core(0).window()).isEqualTo(max);
        assertThat(events(c.core(0))).containsEntry("fc.decreases", 1L);
    }

    @Test
    @DisplayName("M6 (§3.3.6, B6): a learner reporting a high backlog on every heartbeat keeps the window at the minimum until it reports a low one")
    void highBacklogOnEveryHeartbeatHoldsTheMinimum() {
        RingConfig config = mRing(3).window(8).mringFcThreshold(2).build();
        RingCluster c = started(config);
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, batch(s));
        }
        c.deliverAll(1000);
        c.delivered(1, 3);
        c.delivered(2, 0); // backlog 3 ≥ threshold 2: an Alive at once, then one per heartbeat
        c.deliverAll(1000);
        assertThat(c.core(0).window()).isEqualTo(4);
        long heartbeatMs = config.heartbeatNanos() / MS;
        for (int beat = 0; beat < 20; beat++) {
            c.settle(heartbeatMs, 1);
            assertThat(c.core(0).window()).as("heartbeat %d", beat).isEqualTo(Math.max(1, 2 >> beat));
        }
        assertThat(lines(c, "2 send ->0 Alive")).hasSizeGreaterThanOrEqualTo(20)
                .allSatisfy(l -> assertThat(l).contains("backlog=3"));
        assertThat(events(c.core(0))).containsEntry("fc.decreases", 3L).containsEntry("fc.increases", 0L);
        c.delivered(2, 3);
        c.settle(heartbeatMs, 1);
        assertThat(lines(c, "2 send ->0 Alive").get(lines(c, "2 send ->0 Alive").size() - 1)).contains("backlog=0");
        c.settle(heartbeatMs, 1);
        assertThat(c.core(0).window()).as("the low report releases the window; it regrows").isEqualTo(8);
        assertThat(events(c.core(0))).containsEntry("fc.decreases", 3L).containsEntry("fc.increases", 7L);
    }

    @Test
    @DisplayName("C5: bodies beyond mring.learner.buffer are dropped, counted, and fetched by catch-up")
    void learnerBufferBound() {
        RingCluster c = started(mRing(3).window(4).mringLearnerBuffer(1).build());
        for (String s : List.of("a", "b", "c", "d")) {
            c.propose(0, batch(s));
        }
        // every 2A reaches the spare before any decision
        List<Envelope<RingWire>> first = c.queued();
        assertThat(first).hasSize(8);
        c.deliverAll(1000);
        c.settle(50, 4);
        assertThat(events(c.core(2)).get("values.beyond.buffer")).isPositive();
        assertThat(c.texts(2)).containsExactly("a", "b", "c", "d");
    }

    @Test
    @DisplayName("M7 (§3.3.2, spares): a suspected ring acceptor is replaced by the spare through re-formation")
    void spareReplacesACrashedAcceptor() {
        RingCluster c = started(mRing(3).build());
        c.isolate(1);
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        assertThat(c.texts(0)).isEmpty();
        c.suspectMember(0, 1, c.core(0).watchedEpoch());
        c.deliverAll(1000);
        assertThat(c.core(0).ring().order()).containsExactly(2, 0);
        assertThat(c.core(0).reformations()).isEqualTo(1);
        c.settle(50, 2);
        assertThat(c.texts(0)).as("re-proposed from the coordinator's own round-0 vote, once").containsExactly("a");
        assertThat(c.texts(2)).isEqualTo(c.texts(0));
        c.heal();
        c.settle(50, 6);
        assertThat(c.texts(1)).as("the old acceptor, now a spare, learns too").isEqualTo(c.texts(0));
    }

    @Test
    @DisplayName("M2 (R1: datagrams are lost, duplicated, reordered): a spare given decisions before 2As, each twice, decides each instance once, in order")
    void duplicatedAndReorderedDatagrams() {
        RingConfig config = mRing(3).build();
        RingPaxosCore spare = new RingPaxosCore(config, 2, List.of(), false, 0, 0, RingPaxosCore.Observer.NONE);
        dev.parallax.core.protocol.EffectBuffer<RingWire, RingRecord, RingValue> out = new dev.parallax.core.protocol.EffectBuffer<>();
        Ring ring = Ring.mRing(0, new int[] {1});
        ValueId a = new ValueId(1, 5, 1);
        ValueId b = new ValueId(1, 5, 2);
        MPacket twoAs = new MPacket(0, ring, List.of(), List.of(
                new Phase2Entry(0, a, batch("a").bytes()), new Phase2Entry(1, b, batch("b").bytes())));
        MPacket decisions = new MPacket(0, ring, List.of(new InstanceVid(1, b), new InstanceVid(0, a)), List.of());
        List<Long> decided = new java.util.ArrayList<>();
        for (MPacket p : List.of(decisions, twoAs, decisions, twoAs)) {
            spare.onMessage(0, p, MS, out);
            out.decisions().forEach(d -> decided.add(d.instance()));
            assertThat(out.records()).noneMatch(r -> r instanceof RingRecord.VoteRecord);
            out.clear();
        }
        spare.onTick(2 * MS, out);
        out.decisions().forEach(d -> decided.add(d.instance()));
        assertThat(decided).containsExactly(0L, 1L);
        assertThat(spare.firstUndecided()).isEqualTo(2);
    }

    @Test
    @DisplayName("C8 with M-Ring: the coordinator is cut off; the next one lays out [f responders after it, itself] and the open value is decided there")
    void coordinatorCrash() {
        RingCluster c = started(mRing(3).build());
        c.propose(1, batch("a"));
        c.deliverNext(); // the Proposal reaches 0, which opens instance 0
        c.isolate(0);
        c.deliverAll(1000);
        assertThat(c.texts(1)).isEmpty();
        for (int i = 0; i < 30 && !c.core(1).isCoordinator() && !c.core(2).isCoordinator(); i++) {
            c.tick(50 * MS);
            c.deliverAll(1000);
        }
        c.settle(50, 4);
        int coordinator = c.core(1).isCoordinator() ? 1 : 2;
        int other = 3 - coordinator;
        assertThat(c.core(coordinator).ring().order()).containsExactly(other, coordinator);
        assertThat(c.texts(coordinator)).containsExactly("a");
        assertThat(c.texts(other)).containsExactly("a");
        c.heal();
        c.settle(50, 10);
        assertThat(c.texts(0)).as("the old coordinator learns it after the heal").containsExactly("a");
    }

    @Test
    @DisplayName("re-formation (one-way cut): the 2Bs of the ring acceptor never reach the coordinator; the ring is "
            + "re-formed around the spare")
    void oneWayCutIntoTheCoordinator() {
        RingCluster c = started(mRing(3).build());
        c.cutLink(1, 0);
        c.propose(0, batch("a"));
        c.deliverAll(1000);
        assertThat(c.texts(0)).isEmpty();
        for (int i = 0; i < 60 && c.texts(0).isEmpty(); i++) {
            c.tick(50 * MS);
            c.deliverAll(1000);
        }
        assertThat(c.texts(0)).containsExactly("a");
        assertThat(c.core(0).ring().order()).containsExactly(2, 0);
        c.settle(50, 4);
        assertThat(c.texts(2)).containsExactly("a");
        assertThat(c.texts(1)).as("1 still hears the coordinator's datagrams").containsExactly("a");
    }

    @Test
    @DisplayName("n = 1 (f = 0): the coordinator is the whole ring; its own vote decides and no datagram is sent")
    void singleMember() {
        RingCluster c = new RingCluster(mRing(1).build());
        c.start();
        c.propose(0, batch("a"));
        c.propose(0, batch("b"));
        c.deliverAll(100);
        assertThat(c.texts(0)).containsExactly("a", "b");
        assertThat(lines(c, "mcast")).isEmpty();
    }

    @Test
    @DisplayName("B4: bodies at or beyond firstUndecided + mring.learner.buffer are dropped and counted "
            + "values.beyond.buffer (decisions kept); C6 fetches them once the gap closes")
    void learnerBufferBoundsDecidedAhead() {
        RingCluster c = started(mRing(3).mringLearnerBuffer(4).build());
        RingEngine e = c.core(2).engine();
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        long first = e.firstUndecided();
        for (int k = 1; k <= 10; k++) {
            e.learn(first + k, new ValueId(1, 0, 100 + k), ByteBuffer.wrap(new byte[]{(byte) k}), out);
        }
        assertThat(e.learner().buffered()).isEqualTo(3);
        long[] beyond = new long[1];
        c.core(2).reportEvents((k, v) -> {
            if (k.equals("values.beyond.buffer")) {
                beyond[0] = v;
            }
        });
        assertThat(beyond[0]).isEqualTo(7);
        assertThat(e.learner().knownDecidedBelow()).isEqualTo(first + 11);
        assertThat(e.isDecided(first + 10)).as("the decision is kept, its body fetched later").isTrue();
    }

    @Test
    @DisplayName("C1/C8 (E1): a first candidate whose Phase 1A reached nobody (members started later) tries again after the ranked time-out; an M-Ring forms (its coordinator 0, or a member that suspected 0 meanwhile: before any round the ticks suspect the first candidate)")
    void firstPhaseOneLostThenARingForms() {
        RingConfig config = mRing(3).build();
        RingCluster c = new RingCluster(config);
        for (int m = 0; m < 3; m++) {
            c.core(m).detectFailuresExternally();
        }
        c.tick(MS);
        for (int t = 0; t < 7; t++) {   // member 0's Phase 1A and its re-sends: the others are not up yet
            c.dropAll();
            c.tick(100 * MS);
        }
        c.dropAll();
        c.settle(100, 30);
        assertThat(java.util.stream.IntStream.range(0, 3).filter(m -> c.core(m).isCoordinator()).count())
                .as("one member leads").isEqualTo(1);
        c.propose(2, batch("late"));
        c.settle(10, 3);
        for (int m = 0; m < 3; m++) {
            assertThat(c.texts(m)).as("member %d", m).containsExactly("late");
        }
    }

    @Test
    @DisplayName("M6 (§3.3.6, B6 learner side): a backlog that stays at or above mring.fc.threshold is re-reported every mring.fc.decrease; a drop below is reported at once")
    void highBacklogIsReportedEveryDecrease() {
        RingConfig config = mRing(3).mringFcThreshold(2).mringFcDecrease(Duration.ofMillis(10)).build();
        RingCluster c = started(config);
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, batch(s));
        }
        c.deliverAll(1000);
        c.delivered(1, 3);
        c.delivered(2, 0);          // backlog 3: an Alive at once
        c.deliverAll(1000);
        int before = lines(c, "2 send ->0 Alive").size();
        c.settle(10, 10);           // 100 ms, two heartbeats: about ten reports
        assertThat(lines(c, "2 send ->0 Alive").size() - before).isGreaterThanOrEqualTo(9);
        c.delivered(2, 3);          // caught up: reported at once, no heartbeat wait
        List<String> alive = lines(c, "2 send ->0 Alive");
        assertThat(alive.get(alive.size() - 1)).contains("backlog=0");
    }
}
