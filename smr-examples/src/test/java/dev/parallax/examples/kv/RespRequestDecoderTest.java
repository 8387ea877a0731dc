package dev.parallax.examples.kv;

import static dev.parallax.examples.kv.KvTesting.b;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RespRequestDecoderTest {
    private static final RespLimits SMALL = new RespLimits(4, 10, 20);

    private static List<Object> decode(RespLimits limits, byte[]... chunks) {
        EmbeddedChannel channel = new EmbeddedChannel(new RespRequestDecoder(limits));
        for (byte[] chunk : chunks) {
            channel.writeInbound(Unpooled.wrappedBuffer(chunk));
        }
        List<Object> out = new ArrayList<>();
        Object msg;
        while ((msg = channel.readInbound()) != null) {
            out.add(msg);
        }
        channel.finishAndReleaseAll();
        return out;
    }

    private static List<Object> decode(String input) {
        return decode(RespLimits.DEFAULTS, b(input));
    }

    private static RespRequest req(String... args) {
        byte[][] bytes = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            bytes[i] = b(args[i]);
        }
        return new RespRequest(bytes);
    }

    @Test
    void decodesAnArrayOfBulkStrings() {
        assertThat(decode("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n")).containsExactly(req("SET", "key", "value"));
    }

    @Test
    void decodesPipelinedRequestsInOrder() {
        assertThat(decode("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nECHO hi\r\n"))
                .containsExactly(req("PING"), req("GET", "k"), req("ECHO", "hi"));
    }

    @Test
    void bulkStringsAreBinarySafe() {
        byte[] value = {0, '\r', '\n', (byte) 0xff, '$', '*'};
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(b("*2\r\n$3\r\nGET\r\n$6\r\n"));
        in.writeBytes(value);
        in.writeBytes(b("\r\n"));
        List<Object> out = decode(RespLimits.DEFAULTS, in.toByteArray());
        assertThat(out).hasSize(1);
        assertThat(((RespRequest) out.get(0)).arg(1)).isEqualTo(value);
    }

    @Test
    void emptyBulkStringIsAnEmptyArgument() {
        assertThat(decode("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n")).containsExactly(req("ECHO", ""));
    }

    @Test
    void decodesInlineCommandsWithLfOrCrLf() {
        assertThat(decode("PING\r\nset  k\tv\nGET k\r\n"))
                .containsExactly(req("PING"), req("set", "k", "v"), req("GET", "k"));
    }

    @Test
    void inlineCommandsHonourQuotesAndEscapes() {
        assertThat(decode("SET \"a b\" 'it\\'s' \"\\x41\\n\\t\"\r\n"))
                .containsExactly(req("SET", "a b", "it's", "A\n\t"));
    }

    @Test
    void skipsBlankLinesAndEmptyOrNullArrays() {
        assertThat(decode("\r\n   \r\n*0\r\n*-1\r\nPING\r\n")).containsExactly(req("PING"));
    }

    @Test
    void incompleteRequestsWaitForMoreBytes() {
        assertThat(decode("*2\r\n$3\r\nGET\r\n$1\r\n")).isEmpty();
        assertThat(decode("PING")).isEmpty();
        assertThat(decode("*2\r")).isEmpty();
    }

    @Test
    void splittingTheStreamAtAnyByteGivesTheSameRequests() {
        byte[] stream = b("*3\r\n$3\r\nSET\r\n$2\r\n\r\n\r\n$10\r\n0123456789\r\n"
                + "PING\r\n*0\r\nSET \"q q\" 'x'\n"
                + "*2\r\n$4\r\nMGET\r\n$0\r\n\r\n");
        List<Object> whole = decode(RespLimits.DEFAULTS, stream);
        assertThat(whole).containsExactly(req("SET", "\r\n", "0123456789"), req("PING"), req("SET", "q q", "x"),
                req("MGET", ""));
        for (int cut = 1; cut < stream.length; cut++) {
            assertThat(decode(RespLimits.DEFAULTS, Arrays.copyOf(stream, cut), Arrays.copyOfRange(stream, cut, stream.length)))
                    .as("split at %d", cut).isEqualTo(whole);
        }
        byte[][] bytes = new byte[stream.length][];
        for (int i = 0; i < stream.length; i++) {
            bytes[i] = new byte[] {stream[i]};
        }
        assertThat(decode(RespLimits.DEFAULTS, bytes)).isEqualTo(whole);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "*5\\r\\n|invalid multibulk length",
        "*3\\r\\n$11\\r\\n|invalid bulk length",
        "*1\\r\\n$-1\\r\\n|invalid bulk length",
        "*1x\\r\\n|invalid multibulk length",
        "*\\r\\n|invalid multibulk length",
        "*1\\n|invalid multibulk length",
        "*1\\r\\n$1x\\r\\n|invalid bulk length",
        "*1\\r\\n:1\\r\\n|expected '$', got ':'",
        "*1\\r\\n$1\\r\\nab\\r\\n|expected CRLF after a bulk string of 1 bytes",
        "*11111111111111111111111111111111111|too big mbulk count string",
        "*1\\r\\n$11111111111111111111111111111111111|too big bulk count string",
        "*99999999999999999999\\r\\n|invalid multibulk length",
        "GET \"unclosed\\r\\n|unbalanced quotes in request",
        "GET \"closed\"x\\r\\n|unbalanced quotes in request",
        "GET 'x'y\\r\\n|unbalanced quotes in request",
        "123456789012345678901|too big inline request",
        "12345678901234567890123\\r\\n|too big inline request",
        "a b c d e\\r\\n|invalid multibulk length",
    })
    void malformedOrOversizedInputIsAProtocolError(String input, String reason) {
        List<Object> out = decode(SMALL, b(input.replace("\\r", "\r").replace("\\n", "\n")));
        assertThat(out).containsExactly(new RespProtocolError(reason));
    }

    @Test
    void requestsBeforeAnErrorAreDeliveredAndEverythingAfterItIsDiscarded() {
        List<Object> out = decode(SMALL, b("PING\r\n*1\r\n$1\r\nab"), b("\r\nPING\r\n"), b("*1\r\n$4\r\nPING\r\n"));
        assertThat(out).containsExactly(req("PING"), new RespProtocolError("expected CRLF after a bulk string of 1 bytes"));
    }

    @Test
    void requestsAtTheLimitsAreAccepted() {
        assertThat(decode(SMALL, b("*4\r\n$10\r\n0123456789\r\n$0\r\n\r\n$1\r\na\r\n$1\r\nb\r\n"),
                b("12345678901234567890\r\n")))
                .containsExactly(req("0123456789", "", "a", "b"), req("12345678901234567890"));
    }

    @Test
    void largeArraysGrowTheirArgumentTable() {
        StringBuilder in = new StringBuilder("*100\r\n");
        String[] expected = new String[100];
        for (int i = 0; i < 100; i++) {
            expected[i] = Integer.toString(i);
            in.append('$').append(expected[i].length()).append("\r\n").append(expected[i]).append("\r\n");
        }
        assertThat(decode(in.toString())).containsExactly(req(expected));
    }
}
