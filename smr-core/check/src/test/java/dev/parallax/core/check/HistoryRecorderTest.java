package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HistoryRecorderTest {

    @Test
    void recordsTimesFromTheInjectedClock() {
        AtomicLong now = new AtomicLong(100);
        HistoryRecorder<CounterOp, Long> recorder = new HistoryRecorder<>(now::get);

        HistoryRecorder.Invocation<CounterOp, Long> first = recorder.invoke(1, CounterOp.add(1));
        now.set(110);
        HistoryRecorder.Invocation<CounterOp, Long> second = recorder.invoke(2, CounterOp.read());
        now.set(120);
        recorder.ok(second, 1L);
        now.set(130);
        recorder.ok(first, 1L);
        HistoryRecorder.Invocation<CounterOp, Long> lost = recorder.invoke(1, CounterOp.add(5));
        recorder.unknown(lost);
        HistoryRecorder.Invocation<CounterOp, Long> rejected = recorder.invoke(2, CounterOp.add(7));
        recorder.failed(rejected);
        now.set(140);
        recorder.invoke(3, CounterOp.add(9));

        assertThat(recorder.history().operations()).containsExactly(
                Operation.completed(1, CounterOp.add(1), 1L, 100, 130),
                Operation.completed(2, CounterOp.read(), 1L, 110, 120),
                Operation.unknown(1, CounterOp.add(5), 130),
                Operation.unknown(3, CounterOp.add(9), 140));
        assertThat(first.clientId()).isEqualTo(1);
        assertThat(first.input()).isEqualTo(CounterOp.add(1));
        assertThat(first.invokeNanos()).isEqualTo(100);
    }

    @Test
    void keepsCallOrderForEqualInvocationTimes() {
        HistoryRecorder<CounterOp, Long> recorder = new HistoryRecorder<>(() -> 7);
        for (int client = 0; client < 5; client++) {
            recorder.ok(recorder.invoke(client, CounterOp.read()), 0L);
        }

        assertThat(recorder.history().operations()).extracting(Operation::clientId).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void rejectsSecondCompletion() {
        HistoryRecorder<CounterOp, Long> recorder = new HistoryRecorder<>(() -> 5);
        HistoryRecorder.Invocation<CounterOp, Long> invocation = recorder.invoke(1, CounterOp.read());
        recorder.ok(invocation, 0L);

        assertThatThrownBy(() -> recorder.ok(invocation, 3L)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> recorder.unknown(invocation)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> recorder.failed(invocation)).isInstanceOf(IllegalStateException.class);
        assertThat(recorder.history().operations())
                .containsExactly(Operation.completed(1, CounterOp.read(), 0L, 5, 5));
    }

    @Test
    void rejectsHandleOfAnotherRecorderAndClockGoingBack() {
        AtomicLong now = new AtomicLong(10);
        HistoryRecorder<CounterOp, Long> recorder = new HistoryRecorder<>(now::get);
        HistoryRecorder<CounterOp, Long> other = new HistoryRecorder<>(now::get);
        HistoryRecorder.Invocation<CounterOp, Long> invocation = recorder.invoke(1, CounterOp.read());

        assertThatThrownBy(() -> other.ok(invocation, 0L)).isInstanceOf(IllegalArgumentException.class);
        now.set(9);
        assertThatThrownBy(() -> recorder.ok(invocation, 0L)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void concurrentClientsOfALinearizableCounterProduceALinearizableHistory() throws InterruptedException {
        int clients = 8;
        int perClient = 500;
        AtomicLong counter = new AtomicLong();
        HistoryRecorder<CounterOp, Long> recorder = new HistoryRecorder<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread thread = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < perClient; i++) {
                    boolean read = (i + client) % 3 == 0;
                    HistoryRecorder.Invocation<CounterOp, Long> call =
                            recorder.invoke(client, read ? CounterOp.read() : CounterOp.add(1));
                    long value = read ? counter.get() : counter.incrementAndGet();
                    if (i % 97 == 0) {
                        recorder.unknown(call);
                    } else {
                        recorder.ok(call, value);
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        History<CounterOp, Long> history = recorder.history();
        CheckResult result = LinearizabilityChecker.check(new CounterModel(), history);

        assertThat(history.size()).isEqualTo(clients * perClient);
        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
