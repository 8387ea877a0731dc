package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MalformedMessageException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Wire input that lies, for the dissemination layer: numbers out of
 * {@link DisseminationWireBounds} are refused by the codec ({@link MalformedMessageException}) and
 * ignored, counted, by the core (transports without a codec), which then emits nothing.
 */
class DisseminationLyingInputTest {
    private static final int N = 3;
    /** Outside the id space: no membership change can make it a member. */
    private static final int OUT = dev.parallax.core.membership.Membership.ID_SPACE;
    private static final long BIG = DisseminationWireBounds.MAX_NUMBER + 1;

    private static List<DisseminationMessage> lies() {
        List<AckVector.Entry> many = new ArrayList<>();
        for (int i = 0; i <= DisseminationWireBounds.MAX_ACK_ENTRIES; i++) {
            many.add(new AckVector.Entry(0, i, 1));
        }
        ByteBuffer b = ByteBuffer.wrap(new byte[] {1});
        return List.of(
                new DisseminationMessage.Forward(new BatchId(OUT, 0, 1), b, AckVector.EMPTY),
                new DisseminationMessage.Forward(new BatchId(-1, 0, 1), b, AckVector.EMPTY),
                new DisseminationMessage.Forward(new BatchId(0, -1, 1), b, AckVector.EMPTY),
                new DisseminationMessage.Forward(new BatchId(0, 0, 0), b, AckVector.EMPTY),
                new DisseminationMessage.Forward(new BatchId(0, 0, BIG), b, AckVector.EMPTY),
                new DisseminationMessage.Forward(new BatchId(0, 0, 1), b, new AckVector(List.of(new AckVector.Entry(OUT + 7, 0, 1)))),
                new DisseminationMessage.Ack(new AckVector(List.of(new AckVector.Entry(0, 0, -1)))),
                new DisseminationMessage.Ack(new AckVector(List.of(new AckVector.Entry(0, BIG, 1)))),
                new DisseminationMessage.Ack(new AckVector(many)),
                new DisseminationMessage.ResendForward(0, 0, 5, 4),
                new DisseminationMessage.ResendForward(0, 0, 1, 1 + DisseminationWireBounds.MAX_RESEND_SPAN),
                new DisseminationMessage.ResendForward(0, 0, -3, 2),
                new DisseminationMessage.ResendForward(OUT, 0, 1, 2),
                new DisseminationMessage.BodyGone(new BatchId(0, 0, 1), -1),
                new DisseminationMessage.BodyGone(new BatchId(0, BIG, 1), 1));
    }

    @Test
    @DisplayName("out-of-bounds ids, ranges and vectors are refused by the codec")
    void codecRefuses() {
        DisseminationCodec codec = new DisseminationCodec(N);
        for (DisseminationMessage m : lies()) {
            ByteBufferWire.Encoded e = ByteBufferWire.encode(codec, m);
            assertThatThrownBy(() -> ByteBufferWire.decode(codec, e.type(), e.body())).as("%s", m)
                    .isInstanceOf(MalformedMessageException.class);
            assertThat(DisseminationWireBounds.violation(m)).as("%s", m).isNotNull();
        }
    }

    @Test
    @DisplayName("the core ignores them (and messages from no member), counts them, emits nothing, and goes on")
    void coreIgnores() {
        DisseminationCore c = new DisseminationCore(SPaxosConfig.builder(N).build(), 1, List.of(), 0, 0);
        EffectBuffer<DisseminationMessage, DisseminationRecord, Batch> out = new EffectBuffer<>();
        List<DisseminationMessage> lies = lies();
        for (DisseminationMessage m : lies) {
            c.onMessage(0, m, 0, out);
            assertThat(out.isEmpty()).as("%s", m).isTrue();
        }
        DisseminationMessage good = new DisseminationMessage.Forward(new BatchId(0, 0, 1), ByteBuffer.wrap(new byte[] {1}), AckVector.EMPTY);
        c.onMessage(N, good, 0, out);
        c.onMessage(-1, good, 0, out);
        c.onMessage(1, good, 0, out);
        assertThat(out.isEmpty()).isTrue();
        Map<String, Long> events = new HashMap<>();
        c.reportEvents(events::put);
        assertThat(events).containsEntry("dissemination.ignored", (long) lies.size() + 3);
        c.onMessage(0, good, 0, out);
        assertThat(c.body(new BatchId(0, 0, 1))).as("a correct message still works").isNotNull();
    }
}
