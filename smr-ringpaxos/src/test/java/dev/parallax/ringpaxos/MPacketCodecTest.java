package dev.parallax.ringpaxos;

import dev.parallax.core.spi.MalformedMessageException;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.parallax.ringpaxos.RingSamples.M;
import static dev.parallax.ringpaxos.RingSamples.N;
import static dev.parallax.ringpaxos.RingSamples.V1;
import static dev.parallax.ringpaxos.RingSamples.V2;
import static dev.parallax.ringpaxos.RingSamples.bytes;
import static dev.parallax.ringpaxos.RingSamples.empty;
import static dev.parallax.ringpaxos.RingSamples.writeInt;
import static dev.parallax.ringpaxos.RingSamples.writeLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * M-Ring's datagram codec (frame type 40): round trips, {@code size} equal to the encoded
 * length (so the coordinator fills a datagram exactly; seed 003 (Ring Paxos) §3.5.2), and bad input
 * refused with {@link MalformedMessageException}.
 */
class MPacketCodecTest {
    private final MPacketCodec codec = new MPacketCodec(N);

    private static final MPacket SAMPLE = new MPacket(9, M,
            List.of(new InstanceVid(3, V1), new InstanceVid(4, ValueId.NOOP)),
            List.of(new Phase2Entry(5, V2, bytes(1, 2, 3)), new Phase2Entry(6, ValueId.NOOP, empty())));

    private byte[] body(MPacket p) {
        return RingSamples.body(codec, p);
    }

    private void refused(byte[] body, String why) {
        assertThatThrownBy(() -> RingSamples.decode(codec, MPacketCodec.TYPE, body))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining(why);
    }

    @Property
    @Label("every MPacket round-trips, and size() is its encoded length, entry by entry too (seed 003 (Ring Paxos) §3.5.2)")
    void roundTripAndSize(@ForAll("packets") MPacket p) {
        assertThat(RingSamples.roundTrip(codec, p)).isEqualTo(p);
        int encoded = body(p).length;
        assertThat(MPacketCodec.size(p)).isEqualTo(encoded);
        int incremental = MPacketCodec.emptySize(p.ring()) + p.decisions().size() * MPacketCodec.DECISION_BYTES
                + p.proposals().stream().mapToInt(MPacketCodec::proposalSize).sum();
        assertThat(incremental).isEqualTo(encoded);
        assertThat(MPacketCodec.size(p.ring(), p.decisions().size(), p.proposals())).isEqualTo(encoded);
    }

    @Provide
    Arbitrary<MPacket> packets() {
        return RingSamples.mPacket();
    }

    @Test
    @DisplayName("skips ride as id-only decisions and as 2As without bytes; size stays exact")
    void skips() {
        MPacket p = new MPacket(2, M, List.of(new InstanceVid(7, ValueId.skip(40))),
                List.of(new Phase2Entry(8, ValueId.skip(41), empty())));
        assertThat(RingSamples.roundTrip(codec, p)).isEqualTo(p);
        assertThat(body(p)).hasSize(MPacketCodec.size(p));
        refused(body(new MPacket(1, M, List.of(), List.of(new Phase2Entry(1, ValueId.skip(3), bytes(5))))), "SKIP(3) with 1 bytes");
    }

    @Test
    @DisplayName("the frame type is 40; any other type is a bad datagram")
    void type() {
        assertThat(codec.type(SAMPLE)).isEqualTo(40).isEqualTo(MPacketCodec.TYPE);
        assertThat(RingSamples.roundTrip(codec, SAMPLE)).isEqualTo(SAMPLE);
        for (int t : new int[]{0, 20, 30, 39, 41, 255}) {
            assertThatThrownBy(() -> RingSamples.decode(codec, t, body(SAMPLE))).isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("unknown ring datagram type " + t);
        }
    }

    @Test
    @DisplayName("a packer filling 8192 bytes with size() never produces a longer datagram (mring.packet.bytes)")
    void packingToTheLimit() {
        int limit = 8192;
        List<InstanceVid> decisions = new ArrayList<>();
        List<Phase2Entry> proposals = new ArrayList<>();
        int size = MPacketCodec.emptySize(M);
        long instance = 0;
        while (true) {
            Phase2Entry e = new Phase2Entry(instance, new ValueId(1, 1, instance + 1), bytes(new int[(int) (instance % 97)]));
            if (size + MPacketCodec.proposalSize(e) + MPacketCodec.DECISION_BYTES > limit) {
                break;
            }
            proposals.add(e);
            decisions.add(new InstanceVid(instance, e.vid()));
            size += MPacketCodec.proposalSize(e) + MPacketCodec.DECISION_BYTES;
            instance++;
        }
        MPacket full = new MPacket(1, M, decisions, proposals);
        assertThat(body(full).length).isEqualTo(size).isLessThanOrEqualTo(limit).isGreaterThan(limit - 200);
    }

    @Test
    @DisplayName("every truncation and any trailing byte is a bad datagram")
    void truncationAndTrailingBytes() {
        byte[] full = body(SAMPLE);
        for (int len = 0; len < full.length; len++) {
            byte[] cut = Arrays.copyOf(full, len);
            assertThatThrownBy(() -> RingSamples.decode(codec, MPacketCodec.TYPE, cut)).as("cut to %d", len)
                    .isInstanceOf(MalformedMessageException.class);
        }
        refused(Arrays.copyOf(full, full.length + 1), "trailing");
    }

    @Test
    @DisplayName("counts beyond the bytes left or above 4096 are refused before allocating")
    void hugeCounts() {
        byte[] b = body(SAMPLE); // round:8 ring(3+3) count:4
        for (int count : new int[]{Integer.MAX_VALUE, -1, 100}) {
            byte[] lying = b.clone();
            writeInt(lying, 14, count);
            refused(lying, "count " + count);
        }
        byte[] oneTooMany = b.clone();
        writeInt(oneTooMany, 14, 3);
        assertThatThrownBy(() -> RingSamples.decode(codec, MPacketCodec.TYPE, oneTooMany))
                .as("the third decision reads into the proposals").isInstanceOf(MalformedMessageException.class);
        List<InstanceVid> many = new ArrayList<>();
        for (int i = 0; i <= RingWireBounds.MAX_LIST; i++) {
            many.add(new InstanceVid(i, V1));
        }
        refused(body(new MPacket(1, M, many, List.of())), "more than 4096");
    }

    @Test
    @DisplayName("out-of-range rounds, instances and origins are refused (RingWireBounds)")
    void outOfRange() {
        refused(body(new MPacket(-1, M, List.of(), List.of())), "round -1 outside");
        refused(body(new MPacket(RingWireBounds.MAX_NUMBER + 1, M, List.of(), List.of())), "round");
        refused(body(new MPacket(1, M, List.of(new InstanceVid(-3, V1)), List.of())), "instance -3 outside");
        refused(body(new MPacket(1, M, List.of(), List.of(new Phase2Entry(Long.MIN_VALUE, V1, bytes(1))))), "instance");
        refused(body(new MPacket(1, M, List.of(new InstanceVid(1, new ValueId(N, 0, 1))), List.of())), "origin 5 outside");
        byte[] seq = body(new MPacket(1, M, List.of(new InstanceVid(1, V1)), List.of())); // ...count:4 instance:8 origin:2 inc:8 seq:8
        writeLong(seq, 18 + 8 + 2 + 8, -4);
        refused(seq, "not a value id");
        refused(body(new MPacket(1, M, List.of(), List.of(new Phase2Entry(1, ValueId.NOOP, bytes(5))))), "NOOP with 1 bytes");
    }

    @Test
    @DisplayName("a ring with a duplicate member or a member outside [0, n) is refused")
    void rings() {
        byte[] b = body(new MPacket(1, Ring.mRing(2, new int[]{0, 1}), List.of(), List.of())); // round:8 kind count acc ids@11
        byte[] duplicate = b.clone();
        duplicate[12] = 0;
        refused(duplicate, "ring member 0 twice");
        byte[] outside = b.clone();
        outside[13] = (byte) 200;
        refused(outside, "ring member 200 outside [0, 5)");
        byte[] kind = b.clone();
        kind[8] = 0;
        refused(kind, "no ring kind 0");
    }
}
