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

    @Property
    void decisionsRoundTrip(@ForAll long instance, @ForAll long view, @ForAll byte[] value) {
        PaxosRecord decided = new PaxosRecord.Decided(instance, view);
        assertThat(codec.decode(codec.encode(decided))).isEqualTo(decided);
        PaxosRecord decision = new PaxosRecord.Decision(instance, value.length == 0 ? Value.NOOP : Value.of(value.clone()));
        assertThat(codec.decode(codec.encode(decision))).isEqualTo(decision);
    }

    @Test
    void malformedDecisionsAreRejectedWithAClearError() {
        ByteBuffer decided = codec.encode(new PaxosRecord.Decided(1, 2));
        ByteBuffer shortDecided = ByteBuffer.wrap(java.util.Arrays.copyOf(decided.array(), 16));
        assertThatThrownBy(() -> codec.decode(shortDecided))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad length");
        ByteBuffer lying = codec.encode(new PaxosRecord.Decision(1, Value.of(new byte[]{1, 2, 3})));
        lying.putInt(9, 99);
        assertThatThrownBy(() -> codec.decode(lying))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("decision record length 99");
        assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(new byte[]{'C', 0, 0, 0, 0, 0, 0, 0, 1, 0})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
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
