package dev.parallax.paxos.spaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DisseminationRecordCodecTest {
    private final DisseminationRecordCodec codec = new DisseminationRecordCodec();

    @Test
    @DisplayName("body and incarnation records round trip with tags 1 and 2 (the composite codec's)")
    void roundTrip() {
        List<DisseminationRecord> records = List.of(
                new DisseminationRecord.BodyRecord(new BatchId(1, 1L << 41, 9), ByteBuffer.wrap(new byte[] {4, 5, 6})),
                new DisseminationRecord.BodyRecord(new BatchId(0, 0, 1), ByteBuffer.allocate(0)),
                new DisseminationRecord.IncarnationRecord(123456789L));
        for (DisseminationRecord r : records) {
            ByteBuffer bytes = codec.encode(r);
            assertThat(bytes.position()).isZero();
            assertThat(bytes.get(0)).isEqualTo(r instanceof DisseminationRecord.BodyRecord ? (byte) 1 : (byte) 2);
            assertThat(codec.decode(bytes)).isEqualTo(r);
            assertThat(bytes.position()).as("decode leaves the caller's buffer alone").isZero();
        }
    }

    @Test
    @DisplayName("truncated, extended, unknown-tag or negative records are refused with IllegalArgumentException")
    void malformed() {
        for (DisseminationRecord r : List.of(
                new DisseminationRecord.BodyRecord(new BatchId(1, 2, 3), ByteBuffer.wrap(new byte[] {1, 2})),
                new DisseminationRecord.IncarnationRecord(5))) {
            byte[] full = new byte[codec.encode(r).remaining()];
            codec.encode(r).get(full);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(cut))).as("%s cut to %d", r, len)
                        .isInstanceOf(IllegalArgumentException.class);
            }
            byte[] longer = Arrays.copyOf(full, full.length + 1);
            assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(longer))).isInstanceOf(IllegalArgumentException.class);
            byte[] otherTag = full.clone();
            otherTag[0] = 0;
            assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(otherTag))).isInstanceOf(IllegalArgumentException.class);
        }
        ByteBuffer negative = ByteBuffer.allocate(9).put((byte) 2).putLong(-1).flip();
        assertThatThrownBy(() -> codec.decode(negative)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer snZero = codec.encode(new DisseminationRecord.BodyRecord(new BatchId(1, 2, 1), ByteBuffer.allocate(1)));
        snZero.putLong(1 + 4 + 8, 0);
        assertThatThrownBy(() -> codec.decode(snZero)).isInstanceOf(IllegalArgumentException.class);
    }
}
