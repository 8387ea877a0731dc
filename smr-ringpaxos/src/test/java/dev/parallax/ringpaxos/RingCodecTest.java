package dev.parallax.ringpaxos;

import dev.parallax.core.spi.MalformedMessageException;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.parallax.ringpaxos.RingSamples.M;
import static dev.parallax.ringpaxos.RingSamples.N;
import static dev.parallax.ringpaxos.RingSamples.U;
import static dev.parallax.ringpaxos.RingSamples.V1;
import static dev.parallax.ringpaxos.RingSamples.bytes;
import static dev.parallax.ringpaxos.RingSamples.empty;
import static dev.parallax.ringpaxos.RingSamples.writeInt;
import static dev.parallax.ringpaxos.RingSamples.writeLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The TCP wire codec of Ring Paxos: every message survives a round trip, and bad input
 * (truncated, trailing bytes, lying counts, numbers outside {@link RingWireBounds}, malformed rings)
 * ends in {@link MalformedMessageException}, the codec's one exception for bad input, never in a
 * partial message or a huge allocation.
 */
class RingCodecTest {
    private final RingCodec codec = new RingCodec(N);

    private byte[] body(RingUnicast m) {
        return RingSamples.body(codec, m);
    }

    private RingUnicast decode(int type, byte[] body) {
        return RingSamples.decode(codec, type, body);
    }

    private void refused(RingUnicast m, byte[] body, String why) {
        assertThatThrownBy(() -> decode(codec.type(m), body)).as("%s", m)
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining(why);
    }

    @Property
    @Label("every RingUnicast round-trips over its whole valid range")
    void everyMessageRoundTrips(@ForAll("messages") RingUnicast m) {
        assertThat(RingSamples.roundTrip(codec, m)).isEqualTo(m);
    }

    @Provide
    Arbitrary<RingUnicast> messages() {
        return RingSamples.unicast();
    }

    @Test
    @DisplayName("every message kind has the frame type docs/protocols/ring-paxos.md lists: 1-15, 20, 30, 31")
    void frameTypes() {
        Set<Class<?>> kinds = new HashSet<>();
        List<Integer> types = new ArrayList<>();
        for (RingUnicast m : RingSamples.unicastSamples()) {
            kinds.add(m.getClass());
            types.add(codec.type(m));
            RingUnicast back = RingSamples.roundTrip(codec, m);
            assertThat(back).isEqualTo(m);
        }
        assertThat(kinds).containsExactlyInAnyOrderElementsOf(RingSamples.unicastKinds());
        assertThat(types).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 30, 31);
        assertThat(RingCodec.PHASE_2B).isEqualTo(30);
        assertThat(RingCodec.PHASE_2A_UNICAST).isEqualTo(31);
    }

    @Test
    @DisplayName("a Heartbeat before a ring is formed carries none (kind 0, count 0, acceptors 0)")
    void heartbeatWithoutRing() {
        RingMessage.Heartbeat h = new RingMessage.Heartbeat(7, null, 3, 2);
        assertThat(RingSamples.roundTrip(codec, h)).isEqualTo(h);
        byte[] b = body(h);
        assertThat(Arrays.copyOfRange(b, 8, 11)).containsExactly(0, 0, 0);
        b[9] = 1;
        refused(h, b, "no ring with count 1");
    }

    @Test
    @DisplayName("encoding reads byte buffers without moving them; decoded buffers are read-only copies")
    void buffersAreViewsNeverMoved() {
        ByteBuffer value = ByteBuffer.wrap(new byte[]{9, 1, 2, 3});
        value.position(1);
        RingMessage.Proposal p = new RingMessage.Proposal(1, List.of(new ProposalEntry(V1, value)));
        RingMessage.Proposal back = (RingMessage.Proposal) decode(codec.type(p), body(p));
        assertThat(value.position()).isEqualTo(1);
        assertThat(value.limit()).isEqualTo(4);
        ByteBuffer decoded = back.proposals().get(0).value();
        assertThat(decoded.isReadOnly()).isTrue();
        assertThat(decoded).isEqualTo(ByteBuffer.wrap(new byte[]{1, 2, 3}));
    }

    @Test
    @DisplayName("an unknown frame type is a bad frame")
    void unknownType() {
        byte[] b = body(new RingMessage.StepDown(1));
        for (int type : new int[]{0, 17, 19, 21, 29, 32, 40, 255}) {
            assertThatThrownBy(() -> decode(type, b)).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("unknown ring message type " + type);
        }
    }

    @Test
    @DisplayName("every truncation of every message is a bad frame")
    void truncation() {
        for (RingUnicast m : RingSamples.unicastSamples()) {
            byte[] full = body(m);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> decode(codec.type(m), cut)).as("%s cut to %d bytes", m, len)
                        .isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    @Test
    @DisplayName("trailing bytes after any message are a bad frame")
    void trailingBytes() {
        for (RingUnicast m : RingSamples.unicastSamples()) {
            byte[] longer = Arrays.copyOf(body(m), body(m).length + 1);
            refused(m, longer, "trailing");
        }
    }

    @Test
    @DisplayName("a count or length larger than the bytes left is a bad frame, not an allocation")
    void hugeCounts() {
        RingUnicast phase1b = RingSamples.unicastSamples().get(1); // round:8 trimmedBelow:8 decidedBelow:8 count:4
        for (int count : new int[]{Integer.MAX_VALUE, 3, -1}) {
            byte[] lying = body(phase1b);
            writeInt(lying, 24, count);
            refused(phase1b, lying, "count " + count);
        }
        RingUnicast proposal = new RingMessage.Proposal(1, List.of(new ProposalEntry(V1, bytes(1, 2))));
        byte[] lyingValue = body(proposal); // round:8 count:4 origin:2 incarnation:8 seq:8 len:4
        writeInt(lyingValue, 30, 1 << 30);
        refused(proposal, lyingValue, "does not fit");
        RingUnicast packet = RingSamples.unicastSamples().get(16); // UPacket: round:8 ring(3+5) count:4
        byte[] lyingPacket = body(packet);
        writeInt(lyingPacket, 16, Integer.MAX_VALUE);
        refused(packet, lyingPacket, "count");
    }

    @Test
    @DisplayName("a list of more than 4096 entries is refused even when the bytes are there (RingWireBounds.MAX_LIST)")
    void longLists() {
        List<InstanceVid> votes = new ArrayList<>();
        for (int i = 0; i <= RingWireBounds.MAX_LIST; i++) {
            votes.add(new InstanceVid(i, V1));
        }
        MRingMessage.Phase2B tooMany = new MRingMessage.Phase2B(1, votes);
        refused(tooMany, body(tooMany), "more than 4096");
        MRingMessage.Phase2B justRight = new MRingMessage.Phase2B(1, votes.subList(0, RingWireBounds.MAX_LIST));
        assertThat(RingSamples.roundTrip(codec, justRight)).isEqualTo(justRight);
        List<DecisionEntry> decisions = votes.stream().map(v -> new DecisionEntry(v.instance(), v.vid(), null)).toList();
        assertThat(RingWireBounds.violation(new UPacket(1, U, List.of(), decisions, List.of()), N))
                .contains("more than 4096");
    }

    @Test
    @DisplayName("rounds and instances outside [0, 2^62-1] are refused; -1 only where a field allows it (RingWireBounds)")
    void outOfRangeNumbers() {
        for (long bad : new long[]{-1, RingWireBounds.MAX_NUMBER + 1, Long.MIN_VALUE, Long.MAX_VALUE}) {
            refused(new RingMessage.Phase1A(1, 2), body(new RingMessage.Phase1A(bad, 2)), "round " + bad + " outside");
            refused(new RingMessage.Phase1A(1, 2), body(new RingMessage.Phase1A(1, bad)), "from " + bad + " outside");
            RingUnicast p2b = new MRingMessage.Phase2B(1, List.of(new InstanceVid(bad, V1)));
            refused(p2b, body(p2b), "instance " + bad + " outside");
            RingUnicast hb = new RingMessage.Heartbeat(1, U, 2, bad);
            refused(hb, body(hb), "versionFloor " + bad);
            RingUnicast q = new RingMessage.RecoveryQuery(bad);
            refused(q, body(q), "fence " + bad);
        }
        RingMessage.Phase1A max = new RingMessage.Phase1A(RingWireBounds.MAX_NUMBER, RingWireBounds.MAX_NUMBER);
        assertThat(RingSamples.roundTrip(codec, max)).isEqualTo(max);
        RingUnicast complete = new RingMessage.Phase1B(1, 0, 0, List.of(), RingMessage.Phase1B.COMPLETE);
        assertThat(RingSamples.roundTrip(codec, complete)).isEqualTo(complete);
        RingUnicast notAPage = new RingMessage.Phase1B(1, 0, 0, List.of(), -2);
        refused(notAPage, body(notAPage), "continueFrom -2");
        RingUnicast neverSeen = new RingMessage.Alive(1, 0, 0, 0, -1, false);
        assertThat(RingSamples.roundTrip(codec, neverSeen)).isEqualTo(neverSeen);
        RingUnicast badSeen = new RingMessage.Alive(1, 0, 0, 0, -2, false);
        refused(badSeen, body(badSeen), "lastSeen -2");
        RingUnicast badBacklog = new RingMessage.Alive(1, 0, 0, -1, 0, false);
        refused(badBacklog, body(badBacklog), "backlog -1");
        RingUnicast nothing = new RingMessage.RecoveryReply(1, 1, false, -1);
        assertThat(RingSamples.roundTrip(codec, nothing)).isEqualTo(nothing);
        RingUnicast badHighest = new RingMessage.RecoveryReply(1, 1, false, -2);
        refused(badHighest, body(badHighest), "highest -2");
        RingUnicast reversed = new RingMessage.CatchUpQuery(1, 9, 3);
        refused(reversed, body(reversed), "reversed");
        RingUnicast refusedRead = new RingMessage.ReadIndexReply(-1, 5, -1);
        assertThat(RingSamples.roundTrip(codec, refusedRead)).as("a refusal from a member without a round").isEqualTo(refusedRead);
        RingUnicast badPosition = new RingMessage.ReadIndexReply(1, 5, -2);
        refused(badPosition, body(badPosition), "position -2");
        RingUnicast ackWithoutRound = new RingMessage.ReadConfirmAck(-1, 1);
        refused(ackWithoutRound, body(ackWithoutRound), "round -1");
        RingUnicast vote = new RingMessage.Phase1B(1, 0, 0, List.of(new Vote(1, -1, V1, bytes(1))), -1);
        refused(vote, body(vote), "vote round -1");
    }

    @Test
    @DisplayName("origins outside [-1, n) and malformed value ids are refused; NOOP carries no bytes and is never proposed")
    void origins() {
        RingUnicast foreign = new RingMessage.Proposal(1, List.of(new ProposalEntry(new ValueId(N, 1, 1), bytes(1))));
        refused(foreign, body(foreign), "origin 5 outside [-1, 5)");
        byte[] minusTwo = body(foreign); // round:8 count:4 origin:2
        minusTwo[12] = (byte) 0xFF;
        minusTwo[13] = (byte) 0xFE;
        refused(foreign, minusTwo, "not a value id");
        byte[] seqZero = body(new RingMessage.Proposal(1, List.of(new ProposalEntry(V1, bytes(1)))));
        writeLong(seqZero, 22, 0);
        refused(foreign, seqZero, "not a value id");
        RingUnicast noopProposal = new RingMessage.Proposal(1, List.of(new ProposalEntry(ValueId.NOOP, empty())));
        refused(noopProposal, body(noopProposal), "a proposal of NOOP");
        RingUnicast fatNoop = new MRingMessage.Phase2AUnicast(1, M, List.of(new Phase2Entry(1, ValueId.NOOP, bytes(1))));
        refused(fatNoop, body(fatNoop), "NOOP with 1 bytes");
        RingUnicast idOnly = new RingMessage.CatchUpReply(1, 0, List.of(new DecisionEntry(1, new ValueId(7, 0, 1), null)), List.of());
        refused(idOnly, body(idOnly), "origin 7");
        RingUnicast noopDecision = new RingMessage.CatchUpReply(1, 0, List.of(new DecisionEntry(1, ValueId.NOOP, null)), List.of());
        assertThat(RingSamples.roundTrip(codec, noopDecision)).isEqualTo(noopDecision);
    }

    @Test
    @DisplayName("a skip id round-trips in every place an id goes and carries no body; a malformed one is refused "
            + "(seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 Alg. 1 l.13-20)")
    void skips() {
        ValueId skip = ValueId.skip(RingWireBounds.MAX_NUMBER);
        List<RingUnicast> carrying = List.of(
                new MRingMessage.Phase2AUnicast(1, M, List.of(new Phase2Entry(3, skip, empty()))),
                new MRingMessage.Phase2B(1, List.of(new InstanceVid(3, skip))),
                new UPacket(1, U, List.of(new Phase2Entry(3, ValueId.skip(7), empty())),
                        List.of(new DecisionEntry(2, ValueId.skip(6), null), new DecisionEntry(3, ValueId.skip(7), empty())), List.of()),
                new RingMessage.Phase1B(1, 0, 0, List.of(new Vote(3, 1, skip, empty())), -1),
                new RingMessage.CatchUpReply(1, 0, List.of(new DecisionEntry(3, skip, null)), List.of()));
        for (RingUnicast m : carrying) {
            assertThat(RingSamples.roundTrip(codec, m)).as("%s", m).isEqualTo(m);
        }
        RingUnicast fat = new MRingMessage.Phase2AUnicast(1, M, List.of(new Phase2Entry(1, ValueId.skip(9), bytes(1))));
        refused(fat, body(fat), "SKIP(9) with 1 bytes");
        RingUnicast proposed = new RingMessage.Proposal(1, List.of(new ProposalEntry(ValueId.skip(9), empty())));
        refused(proposed, body(proposed), "a proposal of SKIP(9)");
        RingUnicast decision = new RingMessage.CatchUpReply(1, 0, List.of(new DecisionEntry(3, ValueId.skip(9), null)), List.of());
        byte[] wire = body(decision);   // round:8 firstAvailable:8 count:4 instance:8 origin:2 incarnation:8 seq:8
        for (long bad : new long[]{0, -1, Long.MIN_VALUE}) {
            byte[] b = wire.clone();
            writeLong(b, 38, bad);
            refused(decision, b, "not a value id");
        }
        byte[] beyond = wire.clone();
        writeLong(beyond, 38, RingWireBounds.MAX_NUMBER + 1);
        refused(decision, beyond, "seq " + (RingWireBounds.MAX_NUMBER + 1) + " outside");
        byte[] incarnation = wire.clone();
        writeLong(incarnation, 30, 1);
        refused(decision, incarnation, "not a value id");
    }

    @Test
    @DisplayName("rings with duplicate members, members outside [0, n), an unknown kind or bad acceptor counts are refused; so is a hand-over to a successor outside [0, n)")
    void rings() {
        RingUnicast packet = new UPacket(1, Ring.uRing(0, 1, new int[]{0, 1, 2}), List.of(), List.of(), List.of());
        byte[] b = body(packet); // round:8 kind:1 count:1 acceptors:1 ids@11
        byte[] duplicate = b.clone();
        duplicate[13] = 1;
        refused(packet, duplicate, "ring member 1 twice");
        byte[] outside = b.clone();
        outside[13] = 7;
        refused(packet, outside, "ring member 7 outside [0, 5)");
        byte[] kind = b.clone();
        kind[8] = 9;
        refused(packet, kind, "no ring kind 9");
        byte[] noAcceptors = b.clone();
        noAcceptors[10] = 0;
        refused(packet, noAcceptors, "acceptors 0");
        byte[] mRingWithLearners = b.clone();
        mRingWithLearners[8] = (byte) Ring.Kind.M_RING.code();
        refused(packet, mRingWithLearners, "every M-Ring member is an acceptor");
        byte[] empty = Arrays.copyOf(b, 11 + 8);
        empty[9] = 0;
        System.arraycopy(b, 14, empty, 11, 8);
        refused(packet, empty, "1..254 members");
        RingUnicast sixOfFive = new UPacket(1, new Ring(Ring.Kind.U_RING, new int[]{0, 1, 2, 3, 4, 5}, 2), List.of(), List.of(), List.of());
        refused(sixOfFive, body(sixOfFive), "ring of 6 members among 5");
        RingUnicast heartbeat = new RingMessage.Heartbeat(1, Ring.mRing(0, new int[]{9}), 0, 0);
        refused(heartbeat, body(heartbeat), "ring member 9");
        RingUnicast handOver = new RingMessage.HandOver(1, 5);
        refused(handOver, body(handOver), "successor 5 outside [0, 5)");
        RingUnicast negative = new RingMessage.HandOver(1, -1);
        refused(negative, body(negative), "successor -1 outside [0, 5)");
    }

    @Test
    @DisplayName("a flag byte that is neither 0 nor 1 is a bad frame")
    void flags() {
        RingUnicast alive = new RingMessage.Alive(1, 0, 0, 0, 0, true);
        byte[] a = body(alive);
        a[40] = 2;
        refused(alive, a, "wantsRing is 2");
        RingUnicast reply = new RingMessage.RecoveryReply(1, 1, true, 5);
        byte[] r = body(reply);
        r[16] = (byte) 0x80;
        refused(reply, r, "fenced is 128");
        RingUnicast decided = new RingMessage.CatchUpReply(1, 0, List.of(new DecisionEntry(1, V1, null)), List.of());
        byte[] d = body(decided); // round:8 firstAvailable:8 count:4 instance:8 vid:18 has:1
        d[46] = 3;
        refused(decided, d, "has is 3");
    }

    @Test
    @DisplayName("the codec needs a cluster size of 1..255 members")
    void members() {
        assertThatThrownBy(() -> new RingCodec(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RingCodec(256)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new RingCodec(255).type(new RingMessage.StepDown(0))).isEqualTo(RingCodec.STEP_DOWN);
    }
}
