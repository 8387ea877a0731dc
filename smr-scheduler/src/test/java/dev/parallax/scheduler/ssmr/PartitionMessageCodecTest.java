package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link PartitionMessageCodec}: round trips, bounds, and garbage never throws. */
class PartitionMessageCodecTest {
    private final PartitionMessageCodec codec = new PartitionMessageCodec(128);
    private final CommandId id = new CommandId(-5, GroupSet.of(0, 3, 63), Long.MAX_VALUE);

    @Test
    void everyMessageKindRoundTrips() {
        for (PartitionMessage m : List.of(new PartitionMessage.Signal(id, 3), new PartitionMessage.Request(id, 63),
                new PartitionMessage.Values(id, 0, ByteBuffer.wrap(new byte[]{1, 2, 3})),
                new PartitionMessage.Values(id, 0, ByteBuffer.allocate(0)))) {
            assertThat(codec.decode(codec.encode(m))).isEqualTo(new PartitionMessageCodec.Decoded.Ok(m));
        }
        assertThat(codec.malformed()).isZero();
    }

    @Test
    void messagesBeyondTheBoundAreRefusedBothWays() {
        PartitionMessage big = new PartitionMessage.Values(id, 0, ByteBuffer.allocate(128));
        assertThatThrownBy(() -> codec.encode(big)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer encoded = new PartitionMessageCodec(1024).encode(big);
        assertThat(codec.decode(encoded)).isInstanceOf(PartitionMessageCodec.Decoded.Malformed.class);
    }

    @Test
    void garbageDecodesToMalformedAndIsCounted() {
        Random rnd = new Random(3);
        ByteBuffer valid = codec.encode(new PartitionMessage.Values(id, 3, ByteBuffer.wrap(new byte[]{9, 9})));
        int malformed = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] b;
            if (i % 2 == 0) {
                b = new byte[rnd.nextInt(60)];
                rnd.nextBytes(b);
            } else {
                b = new byte[valid.remaining()];
                valid.duplicate().get(b);
                b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                if (rnd.nextBoolean()) {
                    b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 4));
                }
            }
            if (codec.decode(ByteBuffer.wrap(b)) instanceof PartitionMessageCodec.Decoded.Malformed) {
                malformed++;
            }
        }
        assertThat(codec.malformed()).isEqualTo(malformed).isPositive();
        assertThat(codec.decode(null)).isInstanceOf(PartitionMessageCodec.Decoded.Malformed.class);
    }
}
