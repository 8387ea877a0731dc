package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RespEncodingTest {

    private static String written(Consumer<ByteBuf> writer) {
        ByteBuf out = Unpooled.buffer();
        try {
            writer.accept(out);
            return out.toString(StandardCharsets.ISO_8859_1);
        } finally {
            out.release();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 9, 10, 99, 100, -1, -10, 1234567890123L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1})
    void numberLinesAreDecimal(long value) {
        assertThat(written(out -> RespEncoding.writeNumberLine(out, ':', value))).isEqualTo(":" + value + "\r\n");
    }

    @Test
    void stateMachineRepliesTranslateToResp() {
        assertThat(written(out -> RespEncoding.writeKvReply(out, KvReply.OK.encode()))).isEqualTo("+OK\r\n");
        assertThat(written(out -> RespEncoding.writeKvReply(out, KvReply.NIL.encode()))).isEqualTo("$-1\r\n");
        assertThat(written(out -> RespEncoding.writeKvReply(out, new KvReply.Int(-42).encode()))).isEqualTo(":-42\r\n");
        assertThat(written(out -> RespEncoding.writeKvReply(out, new KvReply.Bulk(new byte[] {'a', '\r', '\n'}).encode())))
                .isEqualTo("$3\r\na\r\n\r\n");
        KvReply multi = new KvReply.Multi(List.of(new KvReply.Bulk(new byte[0]), KvReply.NIL));
        assertThat(written(out -> RespEncoding.writeKvReply(out, multi.encode()))).isEqualTo("*2\r\n$0\r\n\r\n$-1\r\n");
    }

    @Test
    void translationReadsFromThePositionWithoutMovingIt() {
        ByteBuffer reply = ByteBuffer.allocate(20);
        reply.position(5).put(new KvReply.Int(7).encode()).flip().position(5);
        assertThat(written(out -> RespEncoding.writeKvReply(out, reply))).isEqualTo(":7\r\n");
        assertThat(reply.position()).isEqualTo(5);
    }

    @Test
    void malformedStateMachineRepliesWriteNothing() {
        List<byte[]> malformed = List.of(new byte[0], new byte[] {9}, new byte[] {KvReplyFormat.INTEGER, 1},
                new byte[] {KvReplyFormat.BULK, 0, 0, 0, 5, 'a'}, new byte[] {KvReplyFormat.OK, 0},
                new byte[] {KvReplyFormat.ARRAY, 0, 0, 0, 1, KvReplyFormat.ARRAY, 0, 0, 0, 0},
                new byte[] {KvReplyFormat.ARRAY, 0, 0, 0, 2, KvReplyFormat.OK});
        for (byte[] bad : malformed) {
            ByteBuf out = Unpooled.buffer();
            out.writeByte('x');
            assertThatThrownBy(() -> RespEncoding.writeKvReply(out, ByteBuffer.wrap(bad)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(out.readableBytes()).isEqualTo(1);
            out.release();
        }
    }

    @Test
    void errorsHaveNoLineBreaksAndEchoArgumentBytes() {
        assertThat(written(out -> RespEncoding.writeError(out, "ERR a\r\nb \u00ff"))).isEqualTo("-ERR a  b \u00ff\r\n");
    }

    @Test
    void localRepliesEncode() {
        RespReply nested = new RespReply.Array(List.of(RespReply.Bulk.of("k"), new RespReply.Int(3), RespReply.NIL,
                RespReply.EMPTY_ARRAY, new RespReply.Error("ERR x"), RespReply.PONG));
        assertThat(written(out -> RespEncoding.writeLocal(out, nested)))
                .isEqualTo("*6\r\n$1\r\nk\r\n:3\r\n$-1\r\n*0\r\n-ERR x\r\n+PONG\r\n");
    }

    @Test
    void rejectionMessagesLoseTheExceptionNameAndGainAnErrorCode() {
        assertThat(RespErrors.rejection("KvCommandException: ERR value is not an integer or out of range"))
                .isEqualTo("ERR value is not an integer or out of range");
        assertThat(RespErrors.rejection("IllegalArgumentException: malformed KV command: x"))
                .isEqualTo("ERR malformed KV command: x");
        assertThat(RespErrors.rejection("WRONGTYPE Operation against a key")).isEqualTo("WRONGTYPE Operation against a key");
        assertThat(RespErrors.rejection("IllegalStateException")).isEqualTo("ERR IllegalStateException");
        assertThat(RespErrors.rejection(null)).isEqualTo("ERR command rejected");
    }
}
