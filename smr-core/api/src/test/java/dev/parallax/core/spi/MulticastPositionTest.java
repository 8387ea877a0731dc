package dev.parallax.core.spi;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MulticastPositionTest {

    @Test
    void streamsNotNamedAreAtZeroAndEqualityIgnoresExplicitZeros() {
        MulticastPosition p = MulticastPosition.START.with(3, 7).with(MulticastPosition.GLOBAL_STREAM, 2).with(0, 0);
        assertThat(p.next(3)).isEqualTo(7);
        assertThat(p.next(MulticastPosition.GLOBAL_STREAM)).isEqualTo(2);
        assertThat(p.next(5)).isZero();
        assertThat(p.streamCount()).isEqualTo(3);
        assertThat(p.stream(0)).isZero();
        assertThat(p.stream(2)).isEqualTo(MulticastPosition.GLOBAL_STREAM);
        MulticastPosition q = MulticastPosition.START.with(MulticastPosition.GLOBAL_STREAM, 2).with(3, 7);
        assertThat(p).isEqualTo(q).hasSameHashCodeAs(q);
        assertThat(p.with(3, 8)).isNotEqualTo(p);
        assertThat(p.with(3, 7)).isSameAs(p);
        assertThat(MulticastPosition.START.with(1, 0)).isEqualTo(MulticastPosition.START);
        assertThat(p.toString()).isEqualTo("[0:0,3:7,64:2]");
    }

    @Test
    void theEncodingRoundTripsAndBadBytesAreRefused() {
        MulticastPosition p = MulticastPosition.START.with(0, 5).with(1, 1L << 40).with(64, 9);
        ByteBuffer b = ByteBuffer.allocate(p.encodedSize());
        p.writeTo(b);
        assertThat(b.hasRemaining()).isFalse();
        b.flip();
        assertThat(MulticastPosition.readFrom(b)).isEqualTo(p);

        ByteBuffer truncated = ByteBuffer.allocate(p.encodedSize());
        p.writeTo(truncated);
        truncated.flip().limit(truncated.limit() - 1);
        assertThatThrownBy(() -> MulticastPosition.readFrom(truncated)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer unordered = ByteBuffer.allocate(28).putInt(2).putInt(4).putLong(1).putInt(2).putLong(1).flip();
        assertThatThrownBy(() -> MulticastPosition.readFrom(unordered)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer negative = ByteBuffer.allocate(16).putInt(1).putInt(4).putLong(-1).flip();
        assertThatThrownBy(() -> MulticastPosition.readFrom(negative)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MulticastPosition.readFrom(ByteBuffer.allocate(4).putInt(-3).flip()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRecordTravelsWithThePositionAndCountsInEquality() {
        MulticastPosition p = MulticastPosition.START.with(0, 5).with(64, 9);
        byte[] record = {1, 2, 3};
        MulticastPosition r = p.withRecord(record);
        record[0] = 9; // copied in
        assertThat(r.record()).containsExactly(1, 2, 3);
        assertThat(r.next(0)).isEqualTo(5);
        assertThat(r).isNotEqualTo(p);
        assertThat(r.with(0, 6).record()).as("kept by with()").containsExactly(1, 2, 3);
        assertThat(p.record()).isEmpty();
        ByteBuffer b = ByteBuffer.allocate(r.encodedSize());
        r.writeTo(b);
        b.flip();
        assertThat(MulticastPosition.readFrom(b)).isEqualTo(r);
        ByteBuffer lying = ByteBuffer.allocate(8).putInt(0).putInt(100).flip();
        assertThatThrownBy(() -> MulticastPosition.readFrom(lying)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("record length");
        assertThatThrownBy(() -> p.withRecord(new byte[MulticastPosition.MAX_RECORD_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void outOfRangeStreamsAndNegativeSequencesAreRefused() {
        assertThatThrownBy(() -> MulticastPosition.START.with(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MulticastPosition.START.with(MulticastPosition.MAX_STREAM + 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MulticastPosition.START.with(2, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
