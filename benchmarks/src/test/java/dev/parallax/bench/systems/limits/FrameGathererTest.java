package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameGathererTest {

    /** {@code count} frames of 0..99 random bytes each, framed {@code [int length][bytes]}. */
    private static byte[] stream(Random rnd, int count) {
        ByteBuf b = Unpooled.buffer();
        for (int i = 0; i < count; i++) {
            byte[] body = new byte[rnd.nextInt(100)];
            rnd.nextBytes(body);
            b.writeInt(body.length).writeBytes(body);
        }
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    @Test
    void passesOnEveryFrameWholeAndInOrderWhereverTheReadsSplitTheStream() {
        Random rnd = new Random(11);
        for (int trial = 0; trial < 200; trial++) {
            byte[] stream = stream(rnd, 1 + rnd.nextInt(40));
            int frames = 0;
            for (int pos = 0; pos < stream.length; pos += 4 + ((stream[pos] & 0xFF) << 24 | (stream[pos + 1] & 0xFF) << 16
                    | (stream[pos + 2] & 0xFF) << 8 | (stream[pos + 3] & 0xFF))) {
                frames++;
            }
            FrameGatherer g = new FrameGatherer();
            ByteBuf out = Unpooled.buffer();
            int[] counted = new int[1];
            List<ByteBuf> passed = new ArrayList<>();
            int pos = 0;
            while (pos < stream.length) {
                int n = Math.min(stream.length - pos, 1 + rnd.nextInt(trial % 2 == 0 ? 7 : 300));
                ByteBuf read = Unpooled.copiedBuffer(stream, pos, n);
                g.read(read, ByteBufAllocator.DEFAULT, (f, c) -> {
                    counted[0] += c;
                    passed.add(f);
                });
                assertThat(read.isReadable()).isFalse();
                read.release();
                pos += n;
            }
            for (ByteBuf f : passed) {
                out.writeBytes(f);
                assertThat(f.release()).isTrue();
            }
            byte[] got = new byte[out.readableBytes()];
            out.readBytes(got);
            assertThat(got).isEqualTo(stream);
            assertThat(counted[0]).isEqualTo(frames);
            g.release();
        }
    }

    @Test
    void aLengthOutsideTheLimitIsRejected() {
        FrameGatherer g = new FrameGatherer();
        ByteBuf bad = Unpooled.buffer().writeInt(-1).writeInt(0);
        assertThatThrownBy(() -> g.read(bad, ByteBufAllocator.DEFAULT, (f, c) -> f.release()))
                .isInstanceOf(IllegalArgumentException.class);
        bad.release();
    }
}
