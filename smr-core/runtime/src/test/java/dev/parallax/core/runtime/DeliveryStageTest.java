package dev.parallax.core.runtime;

import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The delivery stage publishes how far delivery got (over no-ops too) and counts the bytes delivered. */
class DeliveryStageTest {

    private static final ProtocolRuntime.ValueAdapter<String> VALUES = new ProtocolRuntime.ValueAdapter<>() {
        @Override
        public String fromBytes(ByteBuffer bytes) {
            return StandardCharsets.UTF_8.decode(bytes).toString();
        }

        @Override
        public ByteBuffer toDelivery(String value) {
            return value.equals("-") ? null : ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
        }
    };

    @Test
    @DisplayName("deliveredBelow advances past each decision handled, no-ops included; bytes count only what the listener got")
    void progressAndBytes() {
        BoundedQueue<Decision<String>> queue = Queues.spsc(16);
        List<String> got = new ArrayList<>();
        DeliveryStage<String> stage = new DeliveryStage<>("delivery-test", queue, VALUES,
                (seq, bytes) -> got.add(seq + ":" + StandardCharsets.UTF_8.decode(bytes)));
        assertThat(stage.deliveredBelow()).isZero();
        assertThat(stage.deliveredBytes()).isZero();

        queue.offer(new Decision<>(0, "abc"));
        queue.offer(new Decision<>(1, "-"));
        assertThat(stage.doWork()).isEqualTo(2);
        assertThat(got).containsExactly("0:abc");
        assertThat(stage.deliveredBelow()).isEqualTo(2);
        assertThat(stage.deliveredBytes()).isEqualTo(3);

        queue.offer(new Decision<>(2, "-"));
        stage.doWork();
        assertThat(stage.deliveredBelow()).as("a trailing no-op advances progress too").isEqualTo(3);
        assertThat(stage.deliveredBytes()).isEqualTo(3);

        queue.offer(new Decision<>(3, "hello"));
        stage.doWork();
        assertThat(got).containsExactly("0:abc", "3:hello");
        assertThat(stage.deliveredBelow()).isEqualTo(4);
        assertThat(stage.deliveredBytes()).isEqualTo(8);
    }

    @Test
    @DisplayName("an interrupted listener does not count the decision as delivered")
    void interruptedDeliveryDoesNotAdvance() {
        BoundedQueue<Decision<String>> queue = Queues.spsc(16);
        DeliveryStage<String> stage = new DeliveryStage<>("delivery-test", queue, VALUES, (seq, bytes) -> {
            throw new InterruptedException("stopping");
        });
        queue.offer(new Decision<>(0, "abc"));
        stage.doWork();
        assertThat(Thread.interrupted()).isTrue(); // clears the flag for the next test
        assertThat(stage.deliveredBelow()).isZero();
        assertThat(stage.deliveredBytes()).isZero();
    }

    @Test
    @DisplayName("speculation (seed 003 §4.2.1): tentatives and revocations reach the listener in queue order without moving progress; a decided no-op is skipped()")
    void tentativesRevocationsAndSkips() {
        BoundedQueue<Decision<String>> queue = Queues.spsc(16);
        List<String> got = new ArrayList<>();
        DeliveryStage<String> stage = new DeliveryStage<>("delivery-test", queue, VALUES,
                new dev.parallax.core.spi.DeliveryListener() {
                    @Override
                    public void deliver(long seq, ByteBuffer bytes) {
                        got.add("d" + seq + ":" + StandardCharsets.UTF_8.decode(bytes));
                    }

                    @Override
                    public void skipped(long seq) {
                        got.add("s" + seq);
                    }

                    @Override
                    public void tentative(long seq, ByteBuffer bytes) {
                        got.add("t" + seq + ":" + (bytes == null ? "null" : StandardCharsets.UTF_8.decode(bytes)));
                    }

                    @Override
                    public void revoked(long from) {
                        got.add("r" + from);
                    }
                });
        queue.offer(new Decision<>(0, "a", Decision.TENTATIVE));
        queue.offer(new Decision<>(1, "-", Decision.TENTATIVE));
        queue.offer(new Decision<>(0, "a"));
        queue.offer(new Decision<>(1, null, Decision.REVOKED));
        queue.offer(new Decision<>(1, "-"));
        stage.doWork();
        assertThat(got).containsExactly("t0:a", "t1:null", "d0:a", "r1", "s1");
        assertThat(stage.deliveredBelow()).isEqualTo(2);
        assertThat(stage.deliveredBytes()).isEqualTo(1);
    }
}
