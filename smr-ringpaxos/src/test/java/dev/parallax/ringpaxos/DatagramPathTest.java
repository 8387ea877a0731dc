package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.ringpaxos.MRingMessage.Phase2AUnicast;
import dev.parallax.ringpaxos.MRingMessage.Phase2B;
import dev.parallax.ringpaxos.RingMessage.Alive;
import dev.parallax.ringpaxos.RingMessage.Proposal;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DatagramPath} alone, over an {@link EngineDouble}: rules M1–M8 (docs/protocols/ring-paxos.md; seed 003
 * (Ring Paxos) §3.3.2, Alg. 2 Tasks 3–5, §3.3.4, §3.3.6), one test each. Members: n = 3 with round
 * 2 (coordinator 2, ring [0, 2], spare 1) and n = 5 with round 4 (coordinator 4, ring [0, 1, 4],
 * spares 2 and 3).
 */
class DatagramPathTest {
    private static final long MS = 1_000_000L;
    private static final RingConfig THREE = RingConfig.builder(3, Ring.Kind.M_RING).mringPacketBytes(1024)
            .mringRetransmit(Duration.ofMillis(20)).build();
    private static final RingConfig FIVE = RingConfig.builder(5, Ring.Kind.M_RING).mringPacketBytes(1024)
            .mringRetransmit(Duration.ofMillis(20)).build();
    private static final Ring RING3 = Ring.mRing(2, new int[] {0});
    private static final Ring RING5 = Ring.mRing(4, new int[] {0, 1});

    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
    private final Map<Integer, EngineDouble> engines = new HashMap<>();

    private DatagramPath path(RingConfig config, int self, long round, Ring ring, boolean leading) {
        EngineDouble e = new EngineDouble(config, self);
        e.rnd = round;
        e.ring = ring;
        e.leading = leading;
        engines.put(self, e);
        DatagramPath p = new DatagramPath(e, config, self);
        p.roundChanged(ring, leading, 0);
        return p;
    }

    private static ValueId vid(int seq) {
        return new ValueId(1, 7, seq);
    }

    private static ByteBuffer body(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
    }

    private static Phase2Entry entry(long instance, int seq, String body) {
        return new Phase2Entry(instance, vid(seq), body(body));
    }

    private static Phase2Entry entry(long instance, int seq, int bytes) {
        return new Phase2Entry(instance, vid(seq), ByteBuffer.allocate(bytes).asReadOnlyBuffer());
    }

    /** The coordinator's own vote, as the engine casts it before {@code open} (C3). */
    private void ownVotes(int coordinator, long round, Ring ring, List<Phase2Entry> entries) {
        EffectBuffer<RingWire, RingRecord, RingValue> scratch = new EffectBuffer<>();
        for (Phase2Entry e : entries) {
            engines.get(coordinator).vote(e.instance(), round, ring, e.vid(), e.value(), scratch);
        }
    }

    private List<MPacket> multicasts() {
        List<MPacket> l = new ArrayList<>();
        for (EffectBuffer.GroupSend<RingWire> g : out.datagrams()) {
            assertThat(g.group()).isEqualTo(DatagramPath.GROUP);
            l.add((MPacket) g.message());
        }
        return l;
    }

    private List<Object> sentTo(int to) {
        List<Object> l = new ArrayList<>();
        for (EffectBuffer.Outgoing<RingWire> o : out.sends()) {
            if (o.to() == to) {
                l.add(o.message());
            }
        }
        return l;
    }

    private static Map<String, Long> events(DatagramPath p) {
        Map<String, Long> m = new HashMap<>();
        p.reportEvents(m::put);
        return m;
    }

    @Test
    @DisplayName("M7 (§3.3.2 ¶1, \"the coordinator is the last process on the ring\"): [f responders cyclically after c, c]; the rest are spares")
    void layout() {
        DatagramPath p5 = path(FIVE, 3, 8, null, false); // coordinator(8) = 3
        assertThat(p5.layout(8, List.of(0, 1, 4), List.of(2)).order()).containsExactly(4, 0, 3);
        assertThat(p5.layout(8, List.of(1), List.of(0, 2)).order()).as("completed from live members")
                .containsExactly(1, 0, 3);
        assertThat(p5.layout(8, List.of(), List.of(1))).as("fewer than f eligible: no ring").isNull();
        DatagramPath p3 = path(THREE, 2, 2, null, false);
        assertThat(p3.layout(2, List.of(1), List.of()).order()).containsExactly(1, 2);
        assertThat(p3.layout(2, List.of(0, 1), List.of()).order()).containsExactly(0, 2);
    }

    @Test
    @DisplayName("M1 (Alg. 2 l.18; §3.3.2 last ¶): 2As go by multicast to group 0 in packets ≤ mring.packet.bytes − 16, decisions of the round first")
    void openPacksDatagrams() {
        DatagramPath c = path(THREE, 2, 2, RING3, true);
        List<Phase2Entry> entries = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            entries.add(entry(i, i + 1, 280));
        }
        ownVotes(2, 2, RING3, entries);
        c.open(RING3, 2, entries, out);
        List<MPacket> packets = multicasts();
        assertThat(packets).hasSize(2);
        assertThat(packets).allSatisfy(p -> {
            assertThat(MPacketCodec.size(p)).isLessThanOrEqualTo(1024 - DatagramPath.DATAGRAM_HEADER_BYTES);
            assertThat(p.round()).isEqualTo(2);
            assertThat(p.ring()).isEqualTo(RING3);
        });
        assertThat(packets.stream().flatMap(p -> p.proposals().stream()).toList()).isEqualTo(entries);
        assertThat(out.sends()).as("nothing by TCP").isEmpty();

        // instance 0 decided: its decision rides in front of the next 2A
        out.clear();
        engines.get(2).onOpenMore = o -> {
            Phase2Entry next = entry(6, 7, "g");
            ownVotes(2, 2, RING3, List.of(next));
            c.open(RING3, 2, List.of(next), o);
        };
        c.onMessage(0, new Phase2B(2, List.of(new InstanceVid(0, vid(1)))), MS, out);
        assertThat(multicasts()).singleElement().satisfies(p -> {
            assertThat(p.decisions()).containsExactly(new InstanceVid(0, vid(1)));
            assertThat(p.proposals()).extracting(Phase2Entry::instance).containsExactly(6L);
        });
    }

    @Test
    @DisplayName("M1: a value too big for a datagram goes as Phase2AUnicast to the other ring acceptors only")
    void oversizedGoesByUnicast() {
        DatagramPath c = path(FIVE, 4, 4, RING5, true);
        Phase2Entry big = entry(0, 1, 2000);
        Phase2Entry small = entry(1, 2, "s");
        ownVotes(4, 4, RING5, List.of(big, small));
        c.open(RING5, 4, List.of(big, small), out);
        assertThat(sentTo(0)).containsExactly(new Phase2AUnicast(4, RING5, List.of(big)));
        assertThat(sentTo(1)).containsExactly(new Phase2AUnicast(4, RING5, List.of(big)));
        assertThat(sentTo(2)).as("spares fetch it by catch-up").isEmpty();
        assertThat(multicasts()).singleElement().satisfies(p -> assertThat(p.proposals()).containsExactly(small));
        assertThat(events(c)).containsEntry("mring.2a.unicast", 1L);

        out.clear();
        DatagramPath a0 = path(FIVE, 0, 4, null, false);
        a0.onMessage(4, new Phase2AUnicast(4, RING5, List.of(big)), MS, out);
        assertThat(engines.get(0).votedVid(0, 4)).as("ring acceptors vote on it as on a datagram").isEqualTo(vid(1));
        assertThat(sentTo(1)).containsExactly(new Phase2B(4, List.of(new InstanceVid(0, vid(1)))));
    }

    @Test
    @DisplayName("M2 (Alg. 2 l.19–25): a ring acceptor votes on ip-delivery (vote synced); spares and learners only buffer the body")
    void acceptorsVoteSparesBuffer() {
        DatagramPath a = path(THREE, 0, 2, null, false);
        DatagramPath spare = path(THREE, 1, 2, null, false);
        MPacket p = new MPacket(2, RING3, List.of(), List.of(entry(0, 1, "x")));
        a.onMessage(2, p, MS, out);
        assertThat(out.records()).containsExactly(new RingRecord.VoteRecord(0, 2, vid(1), body("x")));
        assertThat(out.syncRequested()).isTrue();
        out.clear();
        spare.onMessage(2, p, MS, out);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).isEmpty();
        assertThat(engines.get(1).valueOf(vid(1))).isEqualTo(body("x"));
        assertThat(engines.get(1).votedVid(0, 2)).isNull();
    }

    @Test
    @DisplayName("M2/M8: a packet from this member itself, or not from coordinator(round) of an M-Ring it leads, is ignored")
    void misroutedPacketsIgnored() {
        DatagramPath a = path(THREE, 0, 2, null, false);
        MPacket p = new MPacket(2, RING3, List.of(new InstanceVid(0, vid(1))), List.of(entry(1, 2, "x")));
        a.onMessage(0, p, MS, out);
        a.onMessage(1, p, MS, out);
        a.onMessage(2, new MPacket(4, RING3, List.of(), List.of(entry(1, 2, "x"))), MS, out); // coordinator(4) = 1
        a.onMessage(2, new MPacket(2, Ring.uRing(2, 1, new int[] {2, 0, 1}), List.of(), List.of(entry(1, 2, "x"))), MS, out);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).isEmpty();
        assertThat(engines.get(0).learned).isEmpty();
        assertThat(events(a)).containsEntry("packets.misrouted", 3L);
    }

    @Test
    @DisplayName("M3 (Alg. 2 l.26–27): first() sends one Phase2B per input to its successor")
    void firstStartsTheChain() {
        DatagramPath a = path(FIVE, 0, 4, null, false);
        a.onMessage(4, new MPacket(4, RING5, List.of(), List.of(entry(0, 1, "x"), entry(1, 2, "y"))), MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::to).containsExactly(1);
        assertThat(sentTo(1)).containsExactly(new Phase2B(4, List.of(new InstanceVid(0, vid(1)), new InstanceVid(1, vid(2)))));
        assertThat(a.lastSeen()).as("M8: highest instance voted and 2B-sent").isEqualTo(1);
        engines.get(0).rnd = 9;
        assertThat(a.lastSeen()).as("of the current round only").isEqualTo(-1);
    }

    @Test
    @DisplayName("M3 (Alg. 2 l.30, \"can only vote if it has received the value\"): a 2B ahead of its 2A waits; forwarded once the 2A arrives")
    void middleAcceptorWaitsForThe2A() {
        DatagramPath a1 = path(FIVE, 1, 4, null, false);
        // the 2A is needed to know the round's ring: 2A of instance 0 seen, instance 1's lost
        a1.onMessage(4, new MPacket(4, RING5, List.of(), List.of(entry(0, 1, "x"))), MS, out);
        assertThat(out.sends()).as("not first(): no 2B of its own").isEmpty();
        a1.onMessage(0, new Phase2B(4, List.of(new InstanceVid(0, vid(1)), new InstanceVid(1, vid(2)))), MS, out);
        assertThat(sentTo(4)).containsExactly(new Phase2B(4, List.of(new InstanceVid(0, vid(1)))));
        assertThat(events(a1)).containsEntry("mring.2b.held", 1L);
        out.clear();
        a1.onMessage(4, new MPacket(4, RING5, List.of(), List.of(entry(1, 2, "y"))), 2 * MS, out);
        assertThat(sentTo(4)).containsExactly(new Phase2B(4, List.of(new InstanceVid(1, vid(2)))));
    }

    @Test
    @DisplayName("M3: a 2B not from predecessor(self) in the round's ring is ignored")
    void phase2BFromTheWrongMember() {
        DatagramPath a1 = path(FIVE, 1, 4, null, false);
        a1.onMessage(4, new MPacket(4, RING5, List.of(), List.of(entry(0, 1, "x"))), MS, out);
        a1.onMessage(2, new Phase2B(4, List.of(new InstanceVid(0, vid(1)))), MS, out);
        a1.onMessage(0, new Phase2B(9, List.of(new InstanceVid(0, vid(1)))), MS, out);
        assertThat(out.sends()).isEmpty();
        assertThat(events(a1)).containsEntry("packets.misrouted", 2L);
    }

    @Test
    @DisplayName("M3 (broken 2B chain): a duplicate 2A makes first() send its 2B again, with no second vote record")
    void duplicate2ARepairsTheChain() {
        DatagramPath a = path(THREE, 0, 2, null, false);
        MPacket p = new MPacket(2, RING3, List.of(), List.of(entry(0, 1, "x")));
        a.onMessage(2, p, MS, out);
        out.clear();
        a.onMessage(2, p, 2 * MS, out);
        assertThat(out.records()).as("idempotent vote").isEmpty();
        assertThat(sentTo(2)).containsExactly(new Phase2B(2, List.of(new InstanceVid(0, vid(1)))));
    }

    @Test
    @DisplayName("M4 (Alg. 2 l.34): the coordinator decides on a matching 2B from predecessor(c) and multicasts the decision alone if no 2A follows")
    void coordinatorDecides() {
        DatagramPath c = path(FIVE, 4, 4, RING5, true);
        Phase2Entry e = entry(0, 1, "x");
        ownVotes(4, 4, RING5, List.of(e));
        c.open(RING5, 4, List.of(e), out);
        out.clear();
        c.onMessage(0, new Phase2B(4, List.of(new InstanceVid(0, vid(1)))), MS, out);
        assertThat(engines.get(4).learned).as("from first(), not predecessor(c) = 1").isEmpty();
        c.onMessage(1, new Phase2B(4, List.of(new InstanceVid(0, vid(2)))), MS, out);
        assertThat(engines.get(4).learned).as("another id than its own vote").isEmpty();
        c.onMessage(1, new Phase2B(4, List.of(new InstanceVid(0, vid(1)))), MS, out);
        assertThat(engines.get(4).learned).containsExactly(new EngineDouble.Learned(0, vid(1), body("x")));
        assertThat(engines.get(4).openMoreCalls).as("a decision frees the window").isPositive();
        assertThat(multicasts()).containsExactly(new MPacket(4, RING5, List.of(new InstanceVid(0, vid(1))), List.of()));
        out.clear();
        c.onMessage(1, new Phase2B(4, List.of(new InstanceVid(0, vid(1)))), 2 * MS, out);
        assertThat(out.datagrams()).as("decided once").isEmpty();
        c.onTick(100 * MS, out);
        assertThat(out.datagrams()).as("decided: never re-sent").isEmpty();
    }

    @Test
    @DisplayName("M4/C5 (§3.3.2): a learner matches the multicast decision with the body it buffered from the 2A")
    void learnerMatchesBufferedBody() {
        DatagramPath l = path(THREE, 1, 2, null, false);
        l.onMessage(2, new MPacket(2, RING3, List.of(), List.of(entry(0, 1, "x"))), MS, out);
        l.onMessage(2, new MPacket(2, RING3, List.of(new InstanceVid(0, vid(1))), List.of()), 2 * MS, out);
        assertThat(engines.get(1).learned).containsExactly(new EngineDouble.Learned(0, vid(1), body("x")));
    }

    @Test
    @DisplayName("§3.3.4 (b): a decision whose 2A was lost is learned id-only (the engine fetches the body, C6)")
    void decisionWithoutBody() {
        DatagramPath l = path(THREE, 1, 2, null, false);
        l.onMessage(2, new MPacket(2, RING3, List.of(new InstanceVid(0, vid(1))), List.of()), 2 * MS, out);
        assertThat(engines.get(1).learned).containsExactly(new EngineDouble.Learned(0, vid(1), null));
    }

    @Test
    @DisplayName("M5 (§3.3.4 ¶2): 2As open longer than mring.retransmit are multicast again; a new round drops them")
    void retransmission() {
        DatagramPath c = path(THREE, 2, 2, RING3, true);
        List<Phase2Entry> es = List.of(entry(0, 1, "x"), entry(1, 2, "y"));
        ownVotes(2, 2, RING3, es);
        c.window(0);
        c.open(RING3, 2, es, out);
        out.clear();
        c.onTick(19 * MS, out);
        assertThat(out.datagrams()).isEmpty();
        engines.get(2).decided.put(0L, vid(1));
        c.onTick(20 * MS, out);
        assertThat(multicasts()).singleElement().satisfies(p -> assertThat(p.proposals()).containsExactly(es.get(1)));
        assertThat(events(c)).containsEntry("mring.2a.retransmits", 1L);
        out.clear();
        c.roundChanged(null, false, 25 * MS);
        c.onTick(100 * MS, out);
        assertThat(out.datagrams()).isEmpty();
    }

    @Test
    @DisplayName("M6 (§3.3.6): a backlog report halves the coordinator's window; it regrows without reports")
    void flowControl() {
        DatagramPath c = path(THREE, 2, 2, RING3, true);
        assertThat(c.window(0)).isEqualTo(THREE.window());
        c.alive(1, new Alive(2, 300, 300 - THREE.mringFcThreshold(), THREE.mringFcThreshold(), 9, false), MS);
        assertThat(c.window(MS)).isEqualTo(THREE.window() / 2);
        assertThat(c.window(MS + 1_000 * THREE.mringFcIncreaseNanos())).isEqualTo(THREE.window());
        assertThat(events(c)).containsEntry("fc.decreases", 1L);
    }

    @Test
    @DisplayName("M8 (§3.3.4, \"preferential acceptor\"): ask ring.order[self mod (f+1)], then the coordinator, then the others in turn")
    void catchUpTargets() {
        DatagramPath spare3 = path(FIVE, 3, 4, RING5, false); // 3 mod 3 = 0 -> member 0
        assertThat(spare3.catchUpTarget(0)).isEqualTo(0);
        assertThat(spare3.catchUpTarget(1)).isEqualTo(4);
        assertThat(List.of(spare3.catchUpTarget(2), spare3.catchUpTarget(3), spare3.catchUpTarget(4), spare3.catchUpTarget(5)))
                .doesNotContain(3).containsExactlyInAnyOrder(0, 1, 2, 4);
        DatagramPath a1 = path(FIVE, 1, 4, RING5, false); // 1 mod 3 = 1 -> itself -> the next one
        assertThat(a1.catchUpTarget(0)).isEqualTo(4);
    }

    @Test
    @DisplayName("Alg. 2 Task 1: a proposer sends its proposal to coordinator(rnd) over TCP")
    void forwardProposal() {
        DatagramPath p = path(THREE, 0, 2, RING3, false);
        ProposalEntry e = new ProposalEntry(vid(1), body("x"));
        p.forwardProposal(e, out);
        assertThat(out.sends()).singleElement().satisfies(o -> {
            assertThat(o.to()).isEqualTo(2);
            assertThat(o.message()).isEqualTo(new Proposal(2, List.of(e)));
        });
    }

    @Test
    @DisplayName("M2: duplicated and reordered datagrams change nothing: one vote, one decision")
    void duplicatesAndReorders() {
        DatagramPath l = path(THREE, 1, 2, null, false);
        MPacket a = new MPacket(2, RING3, List.of(), List.of(entry(0, 1, "x"), entry(1, 2, "y")));
        MPacket d = new MPacket(2, RING3, List.of(new InstanceVid(1, vid(2)), new InstanceVid(0, vid(1))), List.of());
        l.onMessage(2, d, MS, out);
        l.onMessage(2, a, MS, out);
        l.onMessage(2, d, MS, out);
        l.onMessage(2, a, MS, out);
        assertThat(engines.get(1).learned).extracting(EngineDouble.Learned::instance).containsExactly(1L, 0L);
        assertThat(engines.get(1).decided).containsEntry(0L, vid(1)).containsEntry(1L, vid(2)).hasSize(2);
        assertThat(out.records()).isEmpty();
    }

    @Test
    @DisplayName("f = 0 (n = 1): the coordinator is the whole ring and its own vote decides")
    void singleMember() {
        RingConfig one = RingConfig.builder(1, Ring.Kind.M_RING).build();
        DatagramPath c = path(one, 0, 0, Ring.mRing(0, new int[0]), true);
        Phase2Entry e = entry(0, 1, "x");
        ownVotes(0, 0, Ring.mRing(0, new int[0]), List.of(e));
        c.open(Ring.mRing(0, new int[0]), 0, List.of(e), out);
        assertThat(engines.get(0).learned).extracting(EngineDouble.Learned::instance).containsExactly(0L);
    }
}
