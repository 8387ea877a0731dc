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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
            ZkReply.children(List.of(), STAT),
            ZkReply.events(List.of(new WatchEvent(1, 5, WatchEvent.NODE_DATA_CHANGED, "/a"),
                    new WatchEvent(2, -7, WatchEvent.NODE_CHILDREN_CHANGED, "/ü"))),
            ZkReply.events(List.of()));

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
        version[0] = 3;
        assertThat(ZkReply.decode(version)).isEqualTo(ZkReply.malformed());
        byte[] code = ok.clone();
        ByteBuffer.wrap(code).putInt(1, -999);
        assertThat(ZkReply.decode(code)).isEqualTo(ZkReply.malformed());
        byte[] errorWithStat = ok.clone();
        ByteBuffer.wrap(errorWithStat).putInt(1, ZkCode.NONODE.code());
        assertThat(ZkReply.decode(errorWithStat)).isEqualTo(ZkReply.malformed());
        byte[] dataWithoutStat = ZkReply.error(ZkCode.NONODE).encode();
        ByteBuffer.wrap(dataWithoutStat).putInt(1, 0).put(13, (byte) 2);
        assertThat(ZkReply.decode(dataWithoutStat)).isEqualTo(ZkReply.malformed());
        byte[] negativeLength = ZkReply.created("/a").encode();
        ByteBuffer.wrap(negativeLength).putInt(14, -1);
        assertThat(ZkReply.decode(negativeLength)).isEqualTo(ZkReply.malformed());
        byte[] notUtf8 = ZkReply.created("/a").encode();
        notUtf8[notUtf8.length - 1] = (byte) 0xff;
        assertThat(ZkReply.decode(notUtf8)).isEqualTo(ZkReply.malformed());
        byte[] hugeChildCount = ZkReply.children(List.of("x"), STAT).encode();
        ByteBuffer.wrap(hugeChildCount).putInt(14 + 68, Integer.MAX_VALUE);
        assertThat(ZkReply.decode(hugeChildCount)).isEqualTo(ZkReply.malformed());
        byte[] negativeZxid = ZkReply.ok().encode();
        ByteBuffer.wrap(negativeZxid).putLong(5, -1L);
        assertThat(ZkReply.decode(negativeZxid)).isEqualTo(ZkReply.malformed());
        assertThatThrownBy(() -> ZkReply.ok().withZxid(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theZxidIsEncodedAfterTheCodeAndCountsInEquality() {
        ZkReply reply = ZkReply.stat(STAT).withZxid(0x1234_0000_0005L);
        byte[] bytes = reply.encode();
        assertThat(bytes[0]).isEqualTo((byte) 2);
        assertThat(ByteBuffer.wrap(bytes).getLong(5)).isEqualTo(0x1234_0000_0005L);
        assertThat(ZkReply.decode(bytes).zxid()).isEqualTo(0x1234_0000_0005L);
        assertThat(reply).isNotEqualTo(ZkReply.stat(STAT)).isEqualTo(ZkReply.stat(STAT).withZxid(0x1234_0000_0005L));
        assertThat(ZkReply.stat(STAT).zxid()).isZero();
        assertThat(reply.withZxid(reply.zxid())).isSameAs(reply);
    }

    @Property(tries = 300)
    void versionOneRepliesStillDecodeWithZxidZero(@ForAll("replies") ZkReply reply) {
        byte[] bytes = version1(reply.encode());
        assertThat(bytes[0]).isEqualTo(ZkReply.FORMAT_VERSION_1);
        assertThat(ZkReply.decode(bytes)).isEqualTo(reply.withZxid(0));
        for (int length = 0; length < bytes.length; length++) {
            assertThat(ZkReply.decode(Arrays.copyOf(bytes, length))).isEqualTo(ZkReply.malformed());
        }
        assertThat(ZkReply.decode(Arrays.copyOf(bytes, bytes.length + 1))).isEqualTo(ZkReply.malformed());
    }

    /** The version-1 bytes of a version-2 encoding: the version byte 1 and no zxid (bytes 5..12). */
    private static byte[] version1(byte[] v2) {
        ByteBuffer out = ByteBuffer.allocate(v2.length - 8);
        out.put(ZkReply.FORMAT_VERSION_1).put(v2, 1, 4).put(v2, 13, v2.length - 13);
        return out.array();
    }

    @Property(tries = 300)
    void randomRepliesRoundTrip(@ForAll("replies") ZkReply reply) {
        assertThat(ZkReply.decode(reply.encode())).isEqualTo(reply);
    }

    @Property(tries = 500)
    void garbageNeverThrowsAndDecodesToAReplyThatReEncodesToItself(@ForAll @Size(max = 120) byte[] garbage) {
        ZkReply decoded = ZkReply.decode(garbage);
        assertThat(decoded).isNotNull();
        reEncodes(decoded, garbage);
    }

    /** A decoded reply re-encodes to its bytes (version 2) or to the same reply (version 1, zxid 0). */
    private static void reEncodes(ZkReply decoded, byte[] bytes) {
        if (decoded.equals(ZkReply.malformed())) {
            return;
        }
        if (bytes[0] == ZkReply.FORMAT_VERSION) {
            assertThat(decoded.encode()).isEqualTo(bytes);
        } else {
            assertThat(bytes[0]).isEqualTo(ZkReply.FORMAT_VERSION_1);
            assertThat(decoded.zxid()).isZero();
            assertThat(version1(decoded.encode())).isEqualTo(bytes);
        }
    }

    @Property(tries = 300)
    void corruptedEncodingsNeverThrow(@ForAll("replies") ZkReply reply, @ForAll int index, @ForAll byte value) {
        byte[] bytes = reply.encode();
        bytes[Math.floorMod(index, bytes.length)] = value;
        reEncodes(ZkReply.decode(bytes), bytes);
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
        Arbitrary<ZkReply> fields = Arbitraries.oneOf(
                Arbitraries.of(ZkCode.values()).filter(c -> c != ZkCode.OK).map(ZkReply::error),
                Arbitraries.just(ZkReply.ok()),
                names.map(n -> ZkReply.created("/" + n)),
                Combinators.combine(names, stats).as((n, s) -> ZkReply.created("/" + n, s)),
                stats.map(ZkReply::stat),
                Combinators.combine(data, stats).as(ZkReply::data),
                Combinators.combine(names.list().ofMaxSize(8), stats).as(ZkReply::children));
        return Combinators.combine(fields, Arbitraries.longs().between(0, Long.MAX_VALUE))
                .as(ZkReply::withZxid);
    }
}
