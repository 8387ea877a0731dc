package dev.parallax.paxos;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.spi.ByteBufferWire;

import java.nio.ByteBuffer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Paxos wire codec: every message survives a round trip, and malformed bodies end in
 * {@link MalformedMessageException} (the codec's one documented exception for bad input), never in a
 * partial message or a huge allocation.
 */
class PaxosMessageCodecTest {
    private final PaxosMessageCodec codec = new PaxosMessageCodec();

    /** One message of every kind, with values and lists that are not empty. */
    private static final List<PaxosMessage> SAMPLES = List.of(
            new PaxosMessage.Prepare(3, 17),
            new PaxosMessage.PrepareOk(3, 2, List.of(new PaxosMessage.Accepted(5, 1, Value.of(new byte[]{1, 2})),
                    new PaxosMessage.Accepted(6, 2, Value.NOOP)), 9),
            new PaxosMessage.Propose(4, 8, Value.of(new byte[]{7, 7, 7})),
            new PaxosMessage.Propose(4, 9, Value.membership(MembershipChange.addLearner(3, "h:7003", 10))),
            new PaxosMessage.Accept(4, 8),
            new PaxosMessage.Heartbeat(4, 9),
            new PaxosMessage.CatchUpQuery(4, 1, 9),
            new PaxosMessage.CatchUpReply(4, 1, List.of(new PaxosMessage.Decided(1, Value.of(new byte[]{9})),
                    new PaxosMessage.Decided(2, Value.NOOP))),
            new PaxosMessage.RecoveryQuery(5),
            new PaxosMessage.RecoveryReply(6, 5, true, 41),
            new PaxosMessage.HeartbeatAck(4, 10),
            new PaxosMessage.PreVote(4, 11),
            new PaxosMessage.PreVoteReply(5, 4, true),
            new PaxosMessage.StepDown(4),
            new PaxosMessage.TimeoutNow(4, 12),
            new PaxosMessage.ReadConfirm(4, 13),
            new PaxosMessage.ReadConfirmAck(4, 13),
            new PaxosMessage.ReadIndexRequest(4, -77),
            new PaxosMessage.ReadIndexReply(4, -77, 30),
            new PaxosMessage.ReadIndexReply(4, 78, PaxosMessage.ReadIndexReply.REFUSED));

    private PaxosMessage roundTrip(PaxosMessage m) {
        ByteBufferWire.Encoded e = ByteBufferWire.encode(codec, m);
        return ByteBufferWire.decode(codec, e.type(), e.body());
    }

    private byte[] body(PaxosMessage m) {
        ByteBuffer b = ByteBufferWire.encode(codec, m).body();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    private PaxosMessage decode(int type, byte[] body) {
        return ByteBufferWire.decode(codec, type, ByteBuffer.wrap(body));
    }

    @Property
    void everyMessageRoundTrips(@ForAll("messages") PaxosMessage m) {
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Provide
    Arbitrary<PaxosMessage> messages() {
        // Views and instances span their whole valid range (WireBounds); LyingWireInputTest covers the rest.
        Arbitrary<Long> n = Arbitraries.longs().between(0, WireBounds.MAX_INSTANCE);
        Arbitrary<Value> value = Arbitraries.bytes().array(byte[].class).ofMaxSize(40)
                .map(b -> b.length == 0 ? Value.NOOP : Value.of(b));
        Arbitrary<PaxosMessage.Accepted> accepted = Combinators.combine(n, n, value).as(PaxosMessage.Accepted::new);
        Arbitrary<PaxosMessage.Decided> decided = Combinators.combine(n, value).as(PaxosMessage.Decided::new);
        Arbitrary<Long> continueFrom = Arbitraries.oneOf(Arbitraries.just(PaxosMessage.PrepareOk.COMPLETE), n);
        return Arbitraries.oneOf(
                Combinators.combine(n, n).as((v, i) -> (PaxosMessage) new PaxosMessage.Prepare(v, i)),
                Combinators.combine(n, n, accepted.list().ofMaxSize(6), continueFrom)
                        .as((v, t, a, c) -> (PaxosMessage) new PaxosMessage.PrepareOk(v, t, a, c)),
                Combinators.combine(n, n, value).as((v, i, x) -> (PaxosMessage) new PaxosMessage.Propose(v, i, x)),
                Combinators.combine(n, n).as((v, i) -> (PaxosMessage) new PaxosMessage.Accept(v, i)),
                Combinators.combine(n, n).as((v, i) -> (PaxosMessage) new PaxosMessage.Heartbeat(v, i)),
                Combinators.combine(n, n, n).as((v, f, t) -> (PaxosMessage) new PaxosMessage.CatchUpQuery(v, Math.min(f, t), Math.max(f, t))),
                Combinators.combine(n, n, decided.list().ofMaxSize(6))
                        .as((v, f, d) -> (PaxosMessage) new PaxosMessage.CatchUpReply(v, f, d)),
                n.map(v -> (PaxosMessage) new PaxosMessage.RecoveryQuery(v)),
                Combinators.combine(n, n, Arbitraries.of(true, false), Arbitraries.oneOf(Arbitraries.just(-1L), n))
                        .as((v, f, fenced, h) -> (PaxosMessage) new PaxosMessage.RecoveryReply(v, f, fenced, h)),
                Combinators.combine(n, n).as((v, i) -> (PaxosMessage) new PaxosMessage.HeartbeatAck(v, i)),
                Combinators.combine(n, n).as((v, i) -> (PaxosMessage) new PaxosMessage.PreVote(v, i)),
                Combinators.combine(n, n, Arbitraries.of(true, false))
                        .as((v, c, g) -> (PaxosMessage) new PaxosMessage.PreVoteReply(v, c, g)),
                n.map(v -> (PaxosMessage) new PaxosMessage.StepDown(v)),
                Combinators.combine(n, n).as((v, r) -> (PaxosMessage) new PaxosMessage.ReadConfirm(v, r)),
                Combinators.combine(n, n).as((v, r) -> (PaxosMessage) new PaxosMessage.ReadConfirmAck(v, r)),
                Combinators.combine(n, Arbitraries.longs()).as((v, r) -> (PaxosMessage) new PaxosMessage.ReadIndexRequest(v, r)),
                Combinators.combine(n, Arbitraries.longs(), Arbitraries.oneOf(Arbitraries.just(-1L), n))
                        .as((v, r, p) -> (PaxosMessage) new PaxosMessage.ReadIndexReply(v, r, p)));
    }

    @Test
    void everyMessageTypeHasItsOwnFrameTypeAndRoundTrips() {
        Set<Class<?>> kinds = new HashSet<>();
        Set<Integer> types = new HashSet<>();
        for (PaxosMessage m : SAMPLES) {
            kinds.add(m.getClass());
            types.add(codec.type(m));
            assertThat(roundTrip(m)).isEqualTo(m);
        }
        assertThat(kinds).as("a sample of every message kind").containsExactlyInAnyOrder(PaxosMessage.class.getPermittedSubclasses());
        assertThat(types).hasSize(kinds.size()).allMatch(t -> t >= 0 && t <= 255);
    }

    @Test
    void anUnknownTypeIsABadFrame() {
        byte[] body = body(new PaxosMessage.Accept(1, 2));
        for (int type : new int[]{0, 19, 99, 255}) {
            assertThatThrownBy(() -> decode(type, body)).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("unknown paxos message type " + type);
        }
    }

    @Test
    void everyTruncationOfEveryMessageIsABadFrame() {
        for (PaxosMessage m : SAMPLES) {
            byte[] full = body(m);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> decode(codec.type(m), cut)).as("%s cut to %d bytes", m, len)
                        .isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    @Test
    void trailingBytesAreABadFrame() {
        for (PaxosMessage m : SAMPLES) {
            byte[] longer = Arrays.copyOf(body(m), body(m).length + 1);
            assertThatThrownBy(() -> decode(codec.type(m), longer)).as("%s", m)
                    .isInstanceOf(MalformedMessageException.class).hasMessageContaining("trailing");
        }
    }

    @Test
    void aCountOrLengthLargerThanTheBytesLeftIsABadFrameNotAnAllocation() {
        // PrepareOk: view:8 trimmedBelow:8 continueFrom:8 count:4 ...
        PaxosMessage ok = SAMPLES.get(1);
        for (int count : new int[]{Integer.MAX_VALUE, 3, -1}) {
            byte[] lying = body(ok);
            writeInt(lying, 24, count);
            assertThatThrownBy(() -> decode(codec.type(ok), lying)).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("count " + count);
        }
        // CatchUpReply: view:8 firstAvailable:8 count:4 ...
        PaxosMessage reply = SAMPLES.get(7);
        byte[] lyingReply = body(reply);
        writeInt(lyingReply, 16, Integer.MAX_VALUE);
        assertThatThrownBy(() -> decode(codec.type(reply), lyingReply)).isInstanceOf(MalformedMessageException.class);
        // Propose: view:8 instance:8 kind:1 length:4 bytes
        PaxosMessage propose = SAMPLES.get(2);
        byte[] lyingValue = body(propose);
        writeInt(lyingValue, 17, 1 << 30);
        assertThatThrownBy(() -> decode(codec.type(propose), lyingValue)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("does not fit");
        // A value kind other than commands (0) or a membership change (1)
        byte[] lyingKind = body(propose);
        lyingKind[16] = 7;
        assertThatThrownBy(() -> decode(codec.type(propose), lyingKind)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("value kind 7");
        // An empty membership value
        byte[] emptyMembership = body(new PaxosMessage.Propose(4, 8, Value.NOOP));
        emptyMembership[16] = 1;
        assertThatThrownBy(() -> decode(codec.type(propose), emptyMembership)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("empty membership value");
    }

    @Test
    void aPreVoteReplyWhoseGrantFlagIsNeitherZeroNorOneIsABadFrame() {
        // PreVoteReply: view:8 candidateView:8 granted:1
        PaxosMessage reply = new PaxosMessage.PreVoteReply(5, 4, true);
        byte[] lying = body(reply);
        lying[16] = 2;
        assertThatThrownBy(() -> decode(codec.type(reply), lying)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("flag byte 2");
    }

    private static void writeInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
