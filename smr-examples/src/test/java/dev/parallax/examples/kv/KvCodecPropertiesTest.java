package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class KvCodecPropertiesTest {

    @Property
    void commandsRoundTrip(@ForAll("commands") KvCommand command) {
        ByteBuffer encoded = command.encode();
        KvCommand decoded = KvCommand.decode(encoded);
        assertThat(decoded).isEqualTo(command);
        assertThat(decoded.encode()).isEqualTo(encoded);
    }

    @Property
    void commandsDecodeAtAnyBufferOffset(@ForAll("commands") KvCommand command, @ForAll @IntRange(max = 9) int offset) {
        ByteBuffer encoded = command.encode();
        ByteBuffer shifted = ByteBuffer.allocate(offset + encoded.remaining() + 3);
        shifted.position(offset).put(encoded.duplicate()).flip().position(offset);
        assertThat(KvCommand.decode(shifted)).isEqualTo(command);
        assertThat(shifted.position()).isEqualTo(offset);
    }

    @Property
    void everyTruncationOrExtensionIsRejected(@ForAll("commands") KvCommand command) {
        byte[] bytes = command.encode().array();
        for (int n = 0; n < bytes.length; n++) {
            byte[] truncated = Arrays.copyOf(bytes, n);
            assertThatThrownBy(() -> KvCommand.decode(ByteBuffer.wrap(truncated)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> KvCommand.decode(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length + 1))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void randomBytesDecodeOrFailWithIllegalArgument(@ForAll @Size(max = 40) byte[] bytes) {
        try {
            KvCommand command = KvCommand.decode(ByteBuffer.wrap(bytes));
            assertThat(command.encode().array()).isEqualTo(bytes);
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageStartingWith("malformed KV command: ");
        }
    }

    @Property
    void repliesRoundTrip(@ForAll("replies") KvReply reply) {
        ByteBuffer encoded = reply.encode();
        assertThat(KvReply.decode(encoded)).isEqualTo(reply);
    }

    @Property
    void randomBytesDecodeAsAReplyOrFailWithIllegalArgument(@ForAll @Size(max = 30) byte[] bytes) {
        try {
            KvReply reply = KvReply.decode(ByteBuffer.wrap(bytes));
            assertThat(reply.encode().array()).isEqualTo(bytes);
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageStartingWith("malformed KV reply: ");
        }
    }

    @Provide
    Arbitrary<KvCommand> commands() {
        Arbitrary<byte[]> arg = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        return Arbitraries.of(KvOp.class).flatMap(op -> {
            Arbitrary<Integer> count = Arbitraries.integers().between(0, 6)
                    .filter(op::acceptsArgCount);
            return count.flatMap(n -> arg.list().ofSize(n))
                    .map(args -> KvCommand.of(op, args.toArray(new byte[0][])));
        });
    }

    @Provide
    Arbitrary<KvReply> replies() {
        Arbitrary<KvReply> scalar = Arbitraries.oneOf(
                Arbitraries.just(KvReply.OK),
                Arbitraries.just(KvReply.NIL),
                Arbitraries.longs().map(KvReply.Int::new),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20).map(KvReply.Bulk::new));
        Arbitrary<KvReply> multi = scalar.list().ofMaxSize(5).map(l -> new KvReply.Multi(List.copyOf(l)));
        return Arbitraries.oneOf(scalar, multi);
    }

}
