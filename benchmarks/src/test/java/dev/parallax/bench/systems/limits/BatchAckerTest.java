package dev.parallax.bench.systems.limits;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BatchAckerTest {

    /** A batch as the leader sends it: header, then {@code commands} framed commands of {@code size} bytes. */
    private static ByteBuf batch(long id, int commands, int size) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(BatchWire.HEADER_BYTES - Integer.BYTES + commands * (Integer.BYTES + size)).writeLong(id).writeInt(commands);
        for (int i = 0; i < commands; i++) {
            b.writeInt(size).writeZero(size);
        }
        return b;
    }

    private static List<Long> acks(EmbeddedChannel ch) {
        List<Long> ids = new ArrayList<>();
        ByteBuf out;
        while ((out = ch.readOutbound()) != null) {
            while (out.isReadable()) {
                ids.add(out.readLong());
            }
            out.release();
        }
        return ids;
    }

    @Test
    void acknowledgesEachWholeBatchOnceWhateverTheReadBoundaries() {
        EmbeddedChannel ch = new EmbeddedChannel(new BatchAcker());
        ByteBuf stream = Unpooled.buffer();
        for (long id = 1; id <= 50; id++) {
            ByteBuf b = batch(id, (int) (id % 7), (int) (id % 40));
            stream.writeBytes(b);
            b.release();
        }
        List<Long> seen = new ArrayList<>();
        int step = 1;
        while (stream.isReadable()) {
            ch.writeInbound(stream.readRetainedSlice(Math.min(step, stream.readableBytes())));
            seen.addAll(acks(ch));
            step = step % 97 + 5;
        }
        stream.release();
        List<Long> expected = new ArrayList<>();
        for (long id = 1; id <= 50; id++) {
            expected.add(id);
        }
        assertThat(seen).isEqualTo(expected);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void theAcknowledgementsOfOneReadGoOutInOneBuffer() {
        EmbeddedChannel ch = new EmbeddedChannel(new BatchAcker());
        ByteBuf both = Unpooled.buffer();
        ByteBuf a = batch(7, 2, 16);
        ByteBuf b = batch(8, 1, 16);
        both.writeBytes(a).writeBytes(b);
        a.release();
        b.release();
        ch.writeInbound(both);
        ByteBuf out = ch.readOutbound();
        assertThat(out.readableBytes()).isEqualTo(2 * BatchWire.ACK_BYTES);
        assertThat(out.readLong()).isEqualTo(7);
        assertThat(out.readLong()).isEqualTo(8);
        out.release();
        ByteBuf none = ch.readOutbound();
        assertThat(none).isNull();
        ch.finish();
    }
}
