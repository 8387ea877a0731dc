package dev.parallax.ringpaxos;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.parallax.ringpaxos.RingSamples.V1;
import static dev.parallax.ringpaxos.RingSamples.V2;
import static dev.parallax.ringpaxos.RingSamples.bytes;
import static dev.parallax.ringpaxos.RingSamples.empty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The durable log form of {@link RingRecord}s (tags 1..6): round trips, and a record
 * that is not one refused with {@link IllegalArgumentException}, the {@code RecordCodec} contract.
 */
class RingRecordCodecTest {
    private final RingRecordCodec codec = new RingRecordCodec();

    private static final List<RingRecord> SAMPLES = List.of(
            new RingRecord.Promise(7),
            new RingRecord.VoteRecord(3, 7, V1, bytes(1, 2, 3)),
            new RingRecord.Decided(3, V2),
            new RingRecord.Decision(4, V2, bytes(9)),
            new RingRecord.Trim(2),
            new RingRecord.Incarnation(1_700_000_000_000L),
            new RingRecord.Members(membersHistory()));

    /** A history with one decided change (replace 0 by 3, effective at 12). */
    private static byte[] membersHistory() {
        dev.parallax.core.membership.MembershipHistory h = new dev.parallax.core.membership.MembershipHistory(
                dev.parallax.core.membership.Membership.initial(3), 2);
        h.apply(9, false, null);
        h.apply(10, true, ByteBuffer.wrap(dev.parallax.core.membership.MembershipChange.addLearner(3, "h:1", 2).encode()));
        return h.encode();
    }

    private byte[] encode(RingRecord r) {
        ByteBuffer b = codec.encode(r);
        assertThat(b.position()).isZero();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private RingRecord decode(byte[] b) {
        return codec.decode(ByteBuffer.wrap(b));
    }

    @Property
    @Label("every record round-trips")
    void roundTrip(@ForAll("records") RingRecord r) {
        assertThat(codec.decode(codec.encode(r))).isEqualTo(r);
    }

    @Provide
    Arbitrary<RingRecord> records() {
        Arbitrary<Long> n = RingSamples.number();
        Arbitrary<ProposalEntry> valued = RingSamples.valued();
        return Arbitraries.oneOf(
                n.map(RingRecord.Promise::new),
                Combinators.combine(n, n, valued).as((i, r, v) -> new RingRecord.VoteRecord(i, r, v.vid(), v.value())),
                Combinators.combine(n, RingSamples.vid()).as(RingRecord.Decided::new),
                Combinators.combine(n, valued).as((i, v) -> new RingRecord.Decision(i, v.vid(), v.value())),
                n.map(RingRecord.Trim::new),
                n.map(RingRecord.Incarnation::new));
    }

    @Test
    @DisplayName("tags 1..7 in the order Promise, VoteRecord, Decided, Decision, Trim, Incarnation, Members")
    void tags() {
        Set<Class<?>> kinds = new HashSet<>();
        for (int i = 0; i < SAMPLES.size(); i++) {
            RingRecord r = SAMPLES.get(i);
            kinds.add(r.getClass());
            assertThat(encode(r)[0]).as("%s", r).isEqualTo((byte) (i + 1));
            assertThat(decode(encode(r))).isEqualTo(r);
        }
        assertThat(kinds).containsExactlyInAnyOrder(RingRecord.class.getPermittedSubclasses());
    }

    @Test
    @DisplayName("decoding neither moves the log's buffer nor returns a writable body")
    void buffers() {
        ByteBuffer b = codec.encode(SAMPLES.get(1));
        RingRecord.VoteRecord v = (RingRecord.VoteRecord) codec.decode(b);
        assertThat(b.position()).isZero();
        assertThat(v.value().isReadOnly()).isTrue();
        ByteBuffer value = ByteBuffer.wrap(new byte[]{0, 5, 6});
        value.position(1);
        RingRecord.Decision d = (RingRecord.Decision) codec.decode(codec.encode(new RingRecord.Decision(1, V1, value)));
        assertThat(value.position()).isEqualTo(1);
        assertThat(d.value()).isEqualTo(ByteBuffer.wrap(new byte[]{5, 6}));
    }

    @Test
    @DisplayName("a truncated record, trailing bytes or an unknown tag is refused with a clear error")
    void malformed() {
        for (RingRecord r : SAMPLES) {
            byte[] full = encode(r);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> decode(cut)).as("%s cut to %d", r, len).isInstanceOf(IllegalArgumentException.class);
            }
            assertThatThrownBy(() -> decode(Arrays.copyOf(full, full.length + 1))).as("%s", r)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trailing");
        }
        for (int tag : new int[]{0, 8, 'P', 255}) {
            assertThatThrownBy(() -> decode(new byte[]{(byte) tag, 0, 0, 0, 0, 0, 0, 0, 1}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no ring record with tag " + tag);
        }
        byte[] lyingLength = encode(SAMPLES.get(1)); // tag:1 instance:8 round:8 vid:18 len:4
        ByteBuffer.wrap(lyingLength).putInt(35, 1 << 30);
        assertThatThrownBy(() -> decode(lyingLength)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not fit");
    }

    @Test
    @DisplayName("a decided skip is logged id-only and round-trips; a skip with a negative target is refused")
    void skips() {
        RingRecord decided = new RingRecord.Decided(4, ValueId.skip(1000));
        assertThat(decode(encode(decided))).isEqualTo(decided);
        RingRecord vote = new RingRecord.VoteRecord(4, 2, ValueId.skip(1000), empty());
        assertThat(decode(encode(vote))).isEqualTo(vote);
        byte[] negative = encode(decided); // tag:1 instance:8 origin:2 incarnation:8 seq:8
        ByteBuffer.wrap(negative).putLong(19, -1000);
        assertThatThrownBy(() -> decode(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a value id");
    }

    @Test
    @DisplayName("negative or out-of-range rounds, instances, incarnations and malformed value ids are refused")
    void outOfRange() {
        for (long bad : new long[]{-1, RingWireBounds.MAX_NUMBER + 1, Long.MIN_VALUE}) {
            for (RingRecord r : List.<RingRecord>of(new RingRecord.Promise(bad), new RingRecord.Trim(bad), new RingRecord.Incarnation(bad),
                    new RingRecord.Decided(bad, V1), new RingRecord.VoteRecord(1, bad, V1, bytes(1)))) {
                assertThatThrownBy(() -> codec.decode(codec.encode(r))).as("%s", r)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad + " outside");
            }
        }
        byte[] origin = encode(new RingRecord.Decided(1, V1)); // tag:1 instance:8 origin:2
        origin[9] = (byte) 0xFF;
        origin[10] = (byte) 0xF0;
        assertThatThrownBy(() -> decode(origin)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a value id");
        byte[] incarnation = encode(new RingRecord.Decided(1, V1));
        ByteBuffer.wrap(incarnation).putLong(11, RingWireBounds.MAX_NUMBER + 1);
        assertThatThrownBy(() -> decode(incarnation)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("incarnation");
    }
}
