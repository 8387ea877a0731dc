package dev.parallax.bench.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jctools.queues.MessagePassingQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HandoffQueueTest {

    private static final int ITEMS_PER_PRODUCER = 200_000;

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void reportsFullAtCapacityAndEmptyAfterDrainingInFifoOrder(QueueKind kind) {
        HandoffQueue queue = kind.create(16, 4);
        for (int i = 0; i < 16; i++) {
            assertThat(queue.offer(i)).isTrue();
        }
        assertThat(queue.offer(99)).isFalse();

        RecordingSink sink = new RecordingSink();
        int drained = 0;
        int batches = 0;
        int n;
        while ((n = queue.drain(sink)) > 0) {
            drained += n;
            batches++;
        }
        assertThat(drained).isEqualTo(16);
        assertThat(sink.items).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        assertThat(batches).isEqualTo(kind == QueueKind.RING_SINGLE || kind == QueueKind.RING_MULTI ? 1 : 4);
        assertThat(queue.drain(sink)).isZero();
        assertThat(queue.offer(16)).isTrue();
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    @Timeout(60)
    void concurrentProducersLoseNothingAndKeepPerProducerOrder(QueueKind kind) throws Exception {
        int producers = kind.multiProducer() ? 2 : 1;
        HandoffQueue queue = kind.create(64, 8);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long base = (long) p << 32;
            Thread producer = new Thread(() -> {
                for (long i = 0; i < ITEMS_PER_PRODUCER; i++) {
                    Long item = base | i;
                    while (!queue.offer(item)) {
                        Thread.onSpinWait();
                    }
                }
            });
            producer.setUncaughtExceptionHandler((t, e) -> failure.set(e));
            threads.add(producer);
        }
        threads.forEach(Thread::start);

        long[] next = new long[producers];
        long total = (long) producers * ITEMS_PER_PRODUCER;
        long received = 0;
        CheckingSink sink = new CheckingSink(next);
        while (received < total) {
            received += queue.drain(sink);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(sink.outOfOrder).isZero();
        assertThat(next).containsOnly(ITEMS_PER_PRODUCER);
        assertThat(queue.drain(sink)).isZero();
    }

    @Test
    void rejectsCapacityThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> QueueKind.ARRAY_BLOCKING.create(1000, 256))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static final class RecordingSink implements MessagePassingQueue.Consumer<Object> {
        final List<Object> items = new ArrayList<>();

        @Override
        public void accept(Object item) {
            items.add(item);
        }
    }

    private static final class CheckingSink implements MessagePassingQueue.Consumer<Object> {
        final long[] next;
        int outOfOrder;

        CheckingSink(long[] next) {
            this.next = next;
        }

        @Override
        public void accept(Object item) {
            long value = (Long) item;
            int producer = (int) (value >>> 32);
            long sequence = value & 0xFFFF_FFFFL;
            if (sequence != next[producer]) {
                outOfOrder++;
            }
            next[producer] = sequence + 1;
        }
    }
}
