package dev.parallax.examples.volery;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ZkReply}'s wire encoding: round trips, and every unreadable input decodes to MARSHALLINGERROR. */
class VoleryReplyEncodingTest {
    private static final Stat STAT = new Stat(1L << 32, (1L << 32) + 7, 1_700_000_000_000L, 1_700_000_000_123L, 3, 2,
            0, 0, 4, 2, 1L << 33);
    private static final List<ZkReply> SAMPLES = List.of(
            ZkReply.ok(),
            ZkReply.error(ZkCode.NONODE),
            ZkReply.error(ZkCode.BADVERSION),
            ZkReply.malformed(),
            ZkReply.created("/a/q-0000000001"),
            ZkReply.created("/ü", STAT),
            ZkReply.stat(STAT),
            ZkReply.data(new byte[] {1, 2, 3, 4}, STAT),
            ZkReply.data(new byte[0], STAT),
            ZkReply.children(List.of("a", "b", "ü"), STAT),
            ZkReply.children(List.of(), STAT));

    @Test
    void everyKindOfReplyRoundTripsAndEqualRepliesEncodeEqually() {
        for (ZkReply reply : SAMPLES) {
            byte[] bytes = reply.encode();
            assertThat(bytes[0]).isEqualTo(ZkReply.FORMAT_VERSION);
            assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(reply.code().code());
            assertThat(ZkReply.decode(bytes)).as("%s", reply).isEqualTo(reply);
            assertThat(ZkReply.decode(bytes).encode()).isEqualTo(bytes);
        }
    }

    @Test
    void decodingReadsFromPositionToLimitAndMovesNeither() {
        byte[] reply = ZkReply.data(new byte[] {9}, STAT).encode();
        byte[] framed = new byte[reply.length + 5];
        System.arraycopy(reply, 0, framed, 3, reply.length);
        ByteBuffer buffer = ByteBuffer.wrap(framed, 3, reply.length);
        assertThat(ZkReply.decode(buffer)).isEqualTo(ZkReply.data(new byte[] {9}, STAT));
        assertThat(buffer.position()).isEqualTo(3);
        assertThat(buffer.limit()).isEqualTo(3 + reply.length);
    }

    @Test
    void everyTruncationAndAnyTrailingByteIsMalformed() {
        for (ZkReply reply : SAMPLES) {
            byte[] bytes = reply.encode();
            for (int length = 0; length < bytes.length; length++) {
                assertThat(ZkReply.decode(Arrays.copyOf(bytes, length))).as("%s cut at %d", reply, length)
                        .isEqualTo(ZkReply.malformed());
            }
            assertThat(ZkReply.decode(Arrays.copyOf(bytes, bytes.length + 1))).isEqualTo(ZkReply.malformed());
        }
        assertThat(ZkReply.decode((byte[]) null)).isEqualTo(ZkReply.malformed());
        assertThat(ZkReply.decode((ByteBuffer) null)).isEqualTo(ZkReply.malformed());
        assertThat(ZkReply.malformed().code()).isEqualTo(ZkCode.MARSHALLINGERROR);
        assertThat(ZkCode.MARSHALLINGERROR.code()).isEqualTo(-5);
    }

    @Test
    void unknownVersionCodeOrFieldCombinationAndBadLengthsAreMalformed() {
        byte[] ok = ZkReply.stat(STAT).encode();
        byte[] version = ok.clone();
        version[0] = 2;
        assertThat(ZkReply.decode(version)).isEqualTo(ZkReply.malformed());
        byte[] code = ok.clone();
        ByteBuffer.wrap(code).putInt(1, -999);
        assertThat(ZkReply.decode(code)).isEqualTo(ZkReply.malformed());
        byte[] errorWithStat = ok.clone();
        ByteBuffer.wrap(errorWithStat).putInt(1, ZkCode.NONODE.code());
        assertThat(ZkReply.decode(errorWithStat)).isEqualTo(ZkReply.malformed());
        byte[] dataWithoutStat = ZkReply.error(ZkCode.NONODE).encode();
        ByteBuffer.wrap(dataWithoutStat).putInt(1, 0).put(5, (byte) 2);
        assertThat(ZkReply.decode(dataWithoutStat)).isEqualTo(ZkReply.malformed());
        byte[] negativeLength = ZkReply.created("/a").encode();
        ByteBuffer.wrap(negativeLength).putInt(6, -1);
        assertThat(ZkReply.decode(negativeLength)).isEqualTo(ZkReply.malformed());
        byte[] notUtf8 = ZkReply.created("/a").encode();
        notUtf8[notUtf8.length - 1] = (byte) 0xff;
        assertThat(ZkReply.decode(notUtf8)).isEqualTo(ZkReply.malformed());
        byte[] hugeChildCount = ZkReply.children(List.of("x"), STAT).encode();
        ByteBuffer.wrap(hugeChildCount).putInt(6 + 68, Integer.MAX_VALUE);
        assertThat(ZkReply.decode(hugeChildCount)).isEqualTo(ZkReply.malformed());
    }

    @Property(tries = 300)
    void randomRepliesRoundTrip(@ForAll("replies") ZkReply reply) {
        assertThat(ZkReply.decode(reply.encode())).isEqualTo(reply);
    }

    @Property(tries = 500)
    void garbageNeverThrowsAndDecodesToAReplyThatReEncodesToItself(@ForAll @Size(max = 120) byte[] garbage) {
        ZkReply decoded = ZkReply.decode(garbage);
        assertThat(decoded).isNotNull();
        if (!decoded.equals(ZkReply.malformed())) {
            assertThat(decoded.encode()).isEqualTo(garbage);
        }
    }

    @Property(tries = 300)
    void corruptedEncodingsNeverThrow(@ForAll("replies") ZkReply reply, @ForAll int index, @ForAll byte value) {
        byte[] bytes = reply.encode();
        bytes[Math.floorMod(index, bytes.length)] = value;
        ZkReply decoded = ZkReply.decode(bytes);
        if (!decoded.equals(ZkReply.malformed())) {
            assertThat(decoded.encode()).isEqualTo(bytes);
        }
    }

    @Provide
    Arbitrary<ZkReply> replies() {
        Arbitrary<Stat> stats = Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.integers(),
                Arbitraries.integers(), Arbitraries.integers().between(0, 1000))
                .as((zxid, time, version, cversion, children) -> new Stat(zxid, zxid + 1, time, time + 1, version,
                        cversion, 0, 0, Math.abs(version % 100), children, zxid + 2));
        Arbitrary<String> names = Arbitraries.strings().withCharRange('a', 'z').withChars('ü', '€', '-')
                .ofMinLength(1).ofMaxLength(12);
        Arbitrary<byte[]> data = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        return Arbitraries.oneOf(
                Arbitraries.of(ZkCode.values()).filter(c -> c != ZkCode.OK).map(ZkReply::error),
                Arbitraries.just(ZkReply.ok()),
                names.map(n -> ZkReply.created("/" + n)),
                Combinators.combine(names, stats).as((n, s) -> ZkReply.created("/" + n, s)),
                stats.map(ZkReply::stat),
                Combinators.combine(data, stats).as(ZkReply::data),
                Combinators.combine(names.list().ofMaxSize(8), stats).as(ZkReply::children));
    }
}
