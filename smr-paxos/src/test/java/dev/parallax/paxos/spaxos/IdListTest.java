package dev.parallax.paxos.spaxos;

import dev.parallax.paxos.Value;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdListTest {

    @Test
    @DisplayName("the ordered value is a list of ids, 20 bytes each (seed 002 (S-Paxos) §IV-A, Alg. 1 l.16-18)")
    void roundTrip() {
        List<BatchId> ids = List.of(new BatchId(2, 1L << 40, 7), new BatchId(0, 3, 1), new BatchId(1, 3, Long.MAX_VALUE));
        Value v = IdList.encode(ids);
        assertThat(v.size()).isEqualTo(4 + 3 * 20).isEqualTo(IdList.encodedSize(3));
        assertThat(IdList.decode(v)).containsExactlyElementsOf(ids);
        assertThat(v.isNoop()).isFalse();
    }

    @Test
    @DisplayName("never empty; malformed values are refused with IllegalArgumentException")
    void malformed() {
        assertThatThrownBy(() -> IdList.encode(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdList.decode(Value.NOOP)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdList.decode(Value.of(new byte[] {0, 0}))).isInstanceOf(IllegalArgumentException.class);
        Value good = IdList.encode(List.of(new BatchId(0, 1, 1), new BatchId(0, 1, 2)));
        byte[] bytes = new byte[good.size()];
        good.bytes().get(bytes);
        for (int cut = 1; cut < bytes.length; cut++) {
            byte[] shorter = java.util.Arrays.copyOf(bytes, cut);
            assertThatThrownBy(() -> IdList.decode(Value.of(shorter))).isInstanceOf(IllegalArgumentException.class);
        }
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> IdList.decode(Value.of(longer))).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer zero = ByteBuffer.allocate(4 + 20).putInt(0);
        assertThatThrownBy(() -> IdList.decode(Value.of(zero.array()))).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer negative = ByteBuffer.allocate(4 + 20).putInt(1).putInt(-1);
        assertThatThrownBy(() -> IdList.decode(Value.of(negative.array()))).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer snZero = ByteBuffer.allocate(4 + 20).putInt(1).putInt(0).putLong(1).putLong(0);
        assertThatThrownBy(() -> IdList.decode(Value.of(snZero.array()))).as("sn starts at 1").isInstanceOf(IllegalArgumentException.class);
        ByteBuffer huge = ByteBuffer.allocate(4 + 20).putInt(Integer.MAX_VALUE);
        assertThatThrownBy(() -> IdList.decode(Value.of(huge.array()))).isInstanceOf(IllegalArgumentException.class);
    }
}
