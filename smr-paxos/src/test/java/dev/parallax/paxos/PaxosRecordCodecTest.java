package dev.parallax.paxos;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PaxosRecordCodecTest {
    private final PaxosRecordCodec codec = new PaxosRecordCodec();

    @Property
    void votesRoundTrip(@ForAll long instance, @ForAll long view, @ForAll byte[] value) {
        PaxosRecord r = new PaxosRecord.Vote(instance, view, value.length == 0 ? Value.NOOP : Value.of(value.clone()));
        assertThat(codec.decode(codec.encode(r))).isEqualTo(r);
    }

    @Property
    void promisesAndTrimsRoundTrip(@ForAll long view) {
        assertThat(codec.decode(codec.encode(new PaxosRecord.Promise(view)))).isEqualTo(new PaxosRecord.Promise(view));
        assertThat(codec.decode(codec.encode(new PaxosRecord.Trim(view)))).isEqualTo(new PaxosRecord.Trim(view));
    }

    @Test
    void garbageIsRejectedWithAClearError() {
        assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(new byte[]{'X', 1, 2})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown record type");
        assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(new byte[]{'V', 1, 2})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        ByteBuffer lying = codec.encode(new PaxosRecord.Vote(1, 1, Value.of(new byte[]{1, 2, 3})));
        lying.putInt(17, 99);
        assertThatThrownBy(() -> codec.decode(lying)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length");
        assertThatThrownBy(() -> codec.decode(ByteBuffer.allocate(0))).isInstanceOf(IllegalArgumentException.class);
    }
}
