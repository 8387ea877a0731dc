package dev.parallax.paxos;

import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MalformedMessageException;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Wire form of the amnesia recovery messages, beyond what {@link PaxosMessageCodecTest} checks for
 * every message (round trips, truncations, trailing bytes): both flag values, edge numbers, and a
 * flag byte that is neither 0 nor 1.
 */
class RecoveryMessageCodecTest {
    private final PaxosMessageCodec codec = new PaxosMessageCodec();

    private PaxosMessage roundTrip(PaxosMessage m) {
        ByteBufferWire.Encoded e = ByteBufferWire.encode(codec, m);
        return ByteBufferWire.decode(codec, e.type(), e.body());
    }

    @Test
    void recoveryQueryAndReplyRoundTrip() {
        for (PaxosMessage m : new PaxosMessage[]{
                new PaxosMessage.RecoveryQuery(0),
                new PaxosMessage.RecoveryQuery(WireBounds.MAX_VIEW),
                new PaxosMessage.RecoveryReply(8, 7, true, 41),
                new PaxosMessage.RecoveryReply(9, 3, false, -1)}) {
            assertThat(roundTrip(m)).isEqualTo(m);
        }
        assertThat(codec.type(new PaxosMessage.RecoveryQuery(1))).isEqualTo(8);
        assertThat(codec.type(new PaxosMessage.RecoveryReply(1, 0, true, 0))).isEqualTo(9);
    }

    @Test
    void aFlagByteOtherThanZeroOrOneIsABadFrame() {
        ByteBuffer b = ByteBuffer.allocate(25).putLong(8).putLong(7).put((byte) 2).putLong(41).flip();
        assertThatThrownBy(() -> ByteBufferWire.decode(codec, 9, b)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("flag");
    }
}
