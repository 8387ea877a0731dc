package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BoundedQueueTest {

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void capacityIsRoundedUpToAPowerOfTwoOfAtLeastFour(QueueKind kind) {
        assertThat(kind.create(1).capacity()).isEqualTo(4);
        assertThat(kind.create(4).capacity()).isEqualTo(4);
        assertThat(kind.create(5).capacity()).isEqualTo(8);
        assertThat(kind.create(1000).capacity()).isEqualTo(1024);
        assertThatThrownBy(() -> kind.create(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> kind.create(Queues.MAX_CAPACITY + 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void pollReturnsElementsInFifoOrder(QueueKind kind) {
        BoundedQueue<Integer> queue = kind.create(64);
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.poll()).isNull();
        for (int i = 0; i < 64; i++) {
            assertThat(queue.offer(i)).isTrue();
        }
        assertThat(queue.size()).isEqualTo(64);
        assertThat(queue.isEmpty()).isFalse();
        for (int i = 0; i < 64; i++) {
            assertThat(queue.poll()).isEqualTo(i);
        }
        assertThat(queue.poll()).isNull();
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.size()).isZero();
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void offerRefusesWhenFullAndDropsNothing(QueueKind kind) {
        BoundedQueue<Integer> queue = kind.create(8);
        for (int i = 0; i < 8; i++) {
            assertThat(queue.offer(i)).isTrue();
        }
        assertThat(queue.offer(8)).isFalse();
        assertThat(queue.offer(9)).isFalse();
        assertThat(queue.size()).isEqualTo(8);
        assertThat(queue.remainingCapacity()).isZero();

        List<Integer> drained = new ArrayList<>();
        assertThat(queue.drain(drained::add, Integer.MAX_VALUE)).isEqualTo(8);
        assertThat(drained).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(queue.remainingCapacity()).isEqualTo(8);
        assertThat(queue.offer(10)).isTrue();
        assertThat(queue.poll()).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void orderSurvivesManyWrapArounds(QueueKind kind) {
        BoundedQueue<Integer> queue = kind.create(8);
        List<Integer> drained = new ArrayList<>();
        int next = 0;
        for (int round = 0; round < 1000; round++) {
            int batch = 1 + round % 8;
            for (int i = 0; i < batch; i++) {
                assertThat(queue.offer(next++)).isTrue();
            }
            queue.drain(drained::add, batch);
        }
        assertThat(queue.isEmpty()).isTrue();
        assertThat(drained).isEqualTo(IntStream.range(0, next).boxed().toList());
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void drainTakesAtMostLimitElements(QueueKind kind) {
        BoundedQueue<Integer> queue = kind.create(16);
        for (int i = 0; i < 10; i++) {
            queue.offer(i);
        }
        List<Integer> drained = new ArrayList<>();
        assertThat(queue.drain(drained::add, 3)).isEqualTo(3);
        assertThat(drained).containsExactly(0, 1, 2);
        assertThat(queue.size()).isEqualTo(7);
        assertThat(queue.drain(drained::add, 0)).isZero();
        assertThat(queue.drain(drained::add, 100)).isEqualTo(7);
        assertThat(drained).isEqualTo(IntStream.range(0, 10).boxed().toList());
        assertThat(queue.drain(drained::add, 100)).isZero();
        assertThatThrownBy(() -> queue.drain(drained::add, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void aThrowingSinkConsumesOnlyTheElementItWasGiven(QueueKind kind) {
        BoundedQueue<Integer> queue = kind.create(8);
        for (int i = 0; i < 5; i++) {
            queue.offer(i);
        }
        List<Integer> seen = new ArrayList<>();
        assertThatThrownBy(() -> queue.drain(e -> {
            seen.add(e);
            if (e == 2) {
                throw new IllegalStateException("bad element");
            }
        }, 10)).isInstanceOf(IllegalStateException.class);
        assertThat(seen).containsExactly(0, 1, 2);
        assertThat(queue.size()).isEqualTo(2);
        List<Integer> rest = new ArrayList<>();
        assertThat(queue.drain(rest::add, 10)).isEqualTo(2);
        assertThat(rest).containsExactly(3, 4);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void nullElementsAreRejected(QueueKind kind) {
        BoundedQueue<Integer> queue = kind.create(4);
        assertThatThrownBy(() -> queue.offer(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.put(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.drain(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> queue.setConsumerWakeup(null)).isInstanceOf(NullPointerException.class);
        assertThat(queue.isEmpty()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void consumerWakeupRunsAfterEverySuccessfulOfferAndPutOnly(QueueKind kind) throws InterruptedException {
        BoundedQueue<Integer> queue = kind.create(4);
        AtomicInteger wakeups = new AtomicInteger();
        queue.setConsumerWakeup(wakeups::incrementAndGet);
        for (int i = 0; i < 4; i++) {
            queue.offer(i);
        }
        assertThat(wakeups).hasValue(4);
        assertThat(queue.offer(99)).isFalse();
        assertThat(wakeups).hasValue(4);
        queue.poll();
        queue.put(4);
        assertThat(wakeups).hasValue(5);
        queue.setConsumerWakeup(Wakeup.NONE);
        queue.poll();
        queue.offer(5);
        assertThat(wakeups).hasValue(5);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void putBlocksWhileFullAndCompletesOnceTheConsumerDrains(QueueKind kind) throws InterruptedException {
        BoundedQueue<Integer> queue = kind.create(4);
        for (int i = 0; i < 4; i++) {
            queue.offer(i);
        }
        CountDownLatch putReturned = new CountDownLatch(1);
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                queue.put(4);
                putReturned.countDown();
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        }, "put-producer");
        producer.start();

        TestThreads.awaitParked(producer);
        assertThat(putReturned.getCount()).as("put returned while the queue was full").isEqualTo(1);
        assertThat(queue.size()).isEqualTo(4);

        List<Integer> drained = new ArrayList<>();
        queue.drain(drained::add, 1);
        assertThat(putReturned.await(30, TimeUnit.SECONDS)).isTrue();
        producer.join();
        assertThat(producerFailure.get()).isNull();
        queue.drain(drained::add, 10);
        assertThat(drained).containsExactly(0, 1, 2, 3, 4);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void putOnAFullQueueThrowsWhenInterruptedAndAddsNothing(QueueKind kind) throws InterruptedException {
        BoundedQueue<Integer> queue = kind.create(4);
        for (int i = 0; i < 4; i++) {
            queue.offer(i);
        }
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                queue.put(4);
                outcome.set(new AssertionError("put returned"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "interrupted-producer");
        producer.start();
        producer.interrupt();
        producer.join();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        List<Integer> drained = new ArrayList<>();
        queue.drain(drained::add, 10);
        assertThat(drained).containsExactly(0, 1, 2, 3);
    }

    @Test
    void factoriesReturnDistinctEmptyQueues() {
        BoundedQueue<String> a = Queues.mpsc(4);
        BoundedQueue<String> b = Queues.mpsc(4);
        a.offer("x");
        assertThat(b.isEmpty()).isTrue();
        assertThat(a.toString()).contains("size=1", "capacity=4");
    }
}
