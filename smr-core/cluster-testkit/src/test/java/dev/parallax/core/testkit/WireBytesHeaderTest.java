package dev.parallax.core.testkit;

import dev.parallax.core.testkit.smr.WireBytes;
import dev.parallax.core.wire.Frames;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator counts wire bytes without the wire module (it has no Netty on its path), so it
 * keeps its own copy of the frame header size; this test ties the copy to the codec.
 */
class WireBytesHeaderTest {
    @Test
    void theSimulatorsFrameHeaderIsTheWireCodecs() {
        assertThat(WireBytes.FRAME_HEADER).isEqualTo(Frames.HEADER);
    }
}
