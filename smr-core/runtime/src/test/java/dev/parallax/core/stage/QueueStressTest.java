package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Producers push (producer, sequence) pairs as fast as they can through a small queue into a stage
 * on a {@link StageRunner}; the stage checks that it receives every item exactly once and each
 * producer's items in order.
 */
class QueueStressTest {

    private static final int ITEMS_PER_PRODUCER = 100_000;

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void everyItemArrivesOnceAndInPerProducerOrder(QueueKind kind) throws Exception {
        int producers = kind.multiProducer() ? 4 : 1;
        BoundedQueue<Long> queue = kind.create(1024);
        CheckingStage stage = new CheckingStage("stress-" + kind, queue, producers);
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int p = 0; p < producers; p++) {
            long producer = p;
            threads.add(new Thread(() -> {
                try {
                    go.await();
                    for (long seq = 0; seq < ITEMS_PER_PRODUCER; seq++) {
                        Long item = (producer << 32) | seq;
                        // Mix both producer paths: offer (retrying) and blocking put.
                        if ((seq & 1) == 0) {
                            queue.put(item);
                        } else {
                            while (!queue.offer(item)) {
                                Thread.onSpinWait();
                            }
                        }
                    }
                } catch (Throwable t) {
                    producerFailure.set(t);
                }
            }, "stress-producer-" + p));
        }

        StageRunner runner = StageRunner.builder(stage).waitStrategy(WaitStrategies.yieldPark()).build();
        runner.start();
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(producerFailure.get()).isNull();
        assertThat(stage.done.await(60, TimeUnit.SECONDS)).as("all items consumed").isTrue();
        runner.close();

        assertThat(stage.outOfOrder).isZero();
        assertThat(stage.received).isEqualTo((long) producers * ITEMS_PER_PRODUCER);
        for (int p = 0; p < producers; p++) {
            assertThat(stage.nextSequence[p]).as("items of producer %d", p).isEqualTo(ITEMS_PER_PRODUCER);
        }
        assertThat(runner.counters().itemsProcessed()).isEqualTo(stage.received);
        assertThat(runner.counters().exceptions()).isZero();
        assertThat(queue.isEmpty()).isTrue();
    }

    /** Confined to the runner thread; read by the test after {@code close()} joined it. */
    private static final class CheckingStage implements Stage {
        private final String name;
        private final BoundedQueue<Long> input;
        private final long[] nextSequence;
        private final long expected;
        private final CountDownLatch done = new CountDownLatch(1);
        private final Consumer<Long> sink = this::accept;
        private long received;
        private long outOfOrder;

        CheckingStage(String name, BoundedQueue<Long> input, int producers) {
            this.name = name;
            this.input = input;
            this.nextSequence = new long[producers];
            this.expected = (long) producers * ITEMS_PER_PRODUCER;
        }

        @Override
        public int doWork() {
            return input.drain(sink, 256);
        }

        private void accept(Long item) {
            int producer = (int) (item >>> 32);
            long seq = item & 0xFFFF_FFFFL;
            if (seq != nextSequence[producer]) {
                outOfOrder++;
            }
            nextSequence[producer] = seq + 1;
            if (++received == expected) {
                done.countDown();
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<BoundedQueue<Long>> inputQueues() {
            return List.of(input);
        }
    }
}
