package dev.parallax.paxos.spaxos;

import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MalformedMessageException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The dissemination wire codec (seed 002 (S-Paxos) §IV-A, Alg. 1 messages; §IV-C acks): every
 * message survives a round trip, and malformed bodies end in {@link MalformedMessageException},
 * never in a partial message or a huge allocation.
 */
class DisseminationCodecTest {
    private static final int N = 5;
    private final DisseminationCodec codec = new DisseminationCodec(N);

    private static final AckVector ACKS = new AckVector(List.of(new AckVector.Entry(0, 7, 12), new AckVector.Entry(3, 1, 0)));
    private static final List<DisseminationMessage> SAMPLES = List.of(
            new DisseminationMessage.Forward(new BatchId(2, 9, 4), ByteBuffer.wrap(new byte[] {1, 2, 3}), ACKS),
            new DisseminationMessage.Ack(ACKS),
            new DisseminationMessage.ResendForward(1, 9, 3, 8),
            new DisseminationMessage.BodyGone(new BatchId(4, 1, 1), 77));

    private DisseminationMessage roundTrip(DisseminationMessage m) {
        ByteBufferWire.Encoded e = ByteBufferWire.encode(codec, m);
        return ByteBufferWire.decode(codec, e.type(), e.body());
    }

    private byte[] body(DisseminationMessage m) {
        ByteBuffer b = ByteBufferWire.encode(codec, m).body();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    private DisseminationMessage decode(int type, byte[] body) {
        return ByteBufferWire.decode(codec, type, ByteBuffer.wrap(body));
    }

    @Property
    void everyMessageRoundTrips(@ForAll("messages") DisseminationMessage m) {
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Provide
    Arbitrary<DisseminationMessage> messages() {
        Arbitrary<Long> n = Arbitraries.longs().between(0, DisseminationWireBounds.MAX_NUMBER);
        Arbitrary<Long> sn = Arbitraries.longs().between(1, DisseminationWireBounds.MAX_NUMBER);
        Arbitrary<Integer> origin = Arbitraries.integers().between(0, N - 1);
        Arbitrary<BatchId> id = Combinators.combine(origin, n, sn).as(BatchId::new);
        Arbitrary<AckVector> acks = Combinators.combine(origin, n, n).as(AckVector.Entry::new)
                .list().ofMaxSize(DisseminationWireBounds.MAX_ACK_ENTRIES).map(AckVector::new);
        Arbitrary<ByteBuffer> body = Arbitraries.bytes().array(byte[].class).ofMaxSize(40).map(ByteBuffer::wrap);
        Arbitrary<Long> width = Arbitraries.longs().between(0, DisseminationWireBounds.MAX_RESEND_SPAN - 1);
        return Arbitraries.oneOf(
                Combinators.combine(id, body, acks).as((i, b, a) -> (DisseminationMessage) new DisseminationMessage.Forward(i, b, a)),
                acks.map(a -> (DisseminationMessage) new DisseminationMessage.Ack(a)),
                Combinators.combine(origin, n, Arbitraries.longs().between(0, DisseminationWireBounds.MAX_NUMBER - 1024), width)
                        .as((o, inc, from, w) -> (DisseminationMessage) new DisseminationMessage.ResendForward(o, inc, from, from + w)),
                Combinators.combine(id, n).as((i, t) -> (DisseminationMessage) new DisseminationMessage.BodyGone(i, t)));
    }

    @Test
    @DisplayName("every message kind has its own frame type and round trips")
    void everyKind() {
        Set<Class<?>> kinds = new HashSet<>();
        Set<Integer> types = new HashSet<>();
        for (DisseminationMessage m : SAMPLES) {
            kinds.add(m.getClass());
            types.add(codec.type(m));
            assertThat(roundTrip(m)).isEqualTo(m);
        }
        assertThat(kinds).containsExactlyInAnyOrder(DisseminationMessage.class.getPermittedSubclasses());
        assertThat(types).hasSize(SAMPLES.size()).allMatch(t -> t >= 0 && t <= 255);
        DisseminationMessage.Forward f = (DisseminationMessage.Forward) roundTrip(SAMPLES.get(0));
        assertThat(f.body().isReadOnly()).as("a decoded body is a read-only view").isTrue();
    }

    @Test
    @DisplayName("an unknown type is a bad frame")
    void unknownType() {
        byte[] body = body(SAMPLES.get(1));
        for (int type : new int[] {0, 5, 255}) {
            assertThatThrownBy(() -> decode(type, body)).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("unknown dissemination message type " + type);
        }
    }

    @Test
    @DisplayName("every truncation of every message is a bad frame")
    void everyTruncation() {
        for (DisseminationMessage m : SAMPLES) {
            byte[] full = body(m);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> decode(codec.type(m), cut)).as("%s cut to %d bytes", m, len)
                        .isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    @Test
    @DisplayName("trailing bytes are a bad frame")
    void trailingBytes() {
        for (DisseminationMessage m : SAMPLES) {
            byte[] longer = Arrays.copyOf(body(m), body(m).length + 1);
            assertThatThrownBy(() -> decode(codec.type(m), longer)).as("%s", m)
                    .isInstanceOf(MalformedMessageException.class).hasMessageContaining("trailing");
        }
    }

    @Test
    @DisplayName("a count or length larger than the bytes left is a bad frame, not an allocation")
    void hugeCounts() {
        // Ack: count:4 ...
        for (int count : new int[] {Integer.MAX_VALUE, 3, -1}) {
            byte[] lying = body(SAMPLES.get(1));
            writeInt(lying, 0, count);
            assertThatThrownBy(() -> decode(2, lying)).isInstanceOf(MalformedMessageException.class);
        }
        // Forward: origin:4 incarnation:8 sn:8 length:4 body ...
        byte[] lyingBody = body(SAMPLES.get(0));
        writeInt(lyingBody, 20, 1 << 30);
        assertThatThrownBy(() -> decode(1, lyingBody)).isInstanceOf(MalformedMessageException.class);
        // An ack vector longer than 4 entries per id of the id space, with the bytes present.
        List<AckVector.Entry> many = new java.util.ArrayList<>();
        for (int i = 0; i <= DisseminationWireBounds.MAX_ACK_ENTRIES; i++) {
            many.add(new AckVector.Entry(0, i, 1));
        }
        byte[] tooMany = body(new DisseminationMessage.Ack(new AckVector(many)));
        assertThatThrownBy(() -> decode(2, tooMany)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("ack vector");
    }

    static void writeInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
