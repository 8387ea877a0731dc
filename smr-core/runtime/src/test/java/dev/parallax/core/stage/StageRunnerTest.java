package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StageRunnerTest {

    private static final long WAIT_SECONDS = 30;
    /** Longer than any test may take: a runner parked this long must be woken, not time out. */
    private static final WaitStrategy.Factory PARK_FOR_AN_HOUR = WaitStrategies.park(TimeUnit.HOURS.toNanos(1));

    @Test
    void runsOnANamedNonDaemonThreadAndCallsHooksThere() throws InterruptedException {
        BoundedQueue<String> input = Queues.mpsc(16);
        CountDownLatch processed = new CountDownLatch(1);
        ActionStage<String> stage = new ActionStage<>("runner-named", input, s -> processed.countDown());
        StageRunner runner = StageRunner.builder(stage).build();
        assertThat(runner.isRunning()).isFalse();
        runner.start();
        assertThat(runner.isRunning()).isTrue();
        Thread thread = TestThreads.liveThread("runner-named");
        assertThat(thread.isDaemon()).isFalse();

        input.offer("x");
        assertThat(processed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        runner.close();

        assertThat(runner.isRunning()).isFalse();
        assertThat(thread.isAlive()).isFalse();
        assertThat(stage.onStartThread).isEqualTo("runner-named");
        assertThat(stage.onCloseThread).isEqualTo("runner-named");
        assertThat(runner.failure()).isEmpty();
        assertThat(runner.name()).isEqualTo("runner-named");
    }

    @Test
    void manyStartCloseCyclesLeaveNoThreadBehind() throws InterruptedException {
        String prefix = "runner-cycle-";
        assertThat(TestThreads.liveThreads(prefix)).isEmpty();
        for (int cycle = 0; cycle < 100; cycle++) {
            BoundedQueue<Integer> input = Queues.spsc(4);
            CountDownLatch processed = new CountDownLatch(1);
            ActionStage<Integer> stage = new ActionStage<>(prefix + cycle, input, i -> processed.countDown());
            // Alternate strategies: each must let close() stop the thread.
            WaitStrategy.Factory strategy = switch (cycle % 3) {
                case 0 -> WaitStrategies.busySpin();
                case 1 -> WaitStrategies.yieldPark();
                default -> PARK_FOR_AN_HOUR;
            };
            StageRunner runner = StageRunner.builder(stage).waitStrategy(strategy).build();
            runner.start();
            if (cycle % 2 == 0) {
                input.offer(cycle);
                assertThat(processed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            }
            runner.close();
            assertThat(runner.isRunning()).isFalse();
        }
        assertThat(TestThreads.liveThreads(prefix)).isEmpty();
    }

    @Test
    void wakeUnparksARunnerThatIsParked() throws InterruptedException {
        BoundedQueue<String> input = Queues.mpsc(16);
        CountDownLatch processed = new CountDownLatch(1);
        ActionStage<String> stage = new ActionStage<>("runner-parked", input, s -> processed.countDown());
        StageRunner runner = StageRunner.builder(stage).waitStrategy(PARK_FOR_AN_HOUR).build();
        runner.start();
        TestThreads.awaitParked(TestThreads.liveThread("runner-parked"));

        input.offer("wake up");
        assertThat(processed.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("processed without waiting out the park").isTrue();
        runner.close();
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void noWakeupIsLostWhenOffersRaceTheRunnerGoingToSleep(QueueKind kind) throws InterruptedException {
        BoundedQueue<Integer> input = kind.create(16);
        Semaphore processed = new Semaphore(0);
        ActionStage<Integer> stage = new ActionStage<>("runner-race-" + kind, input, i -> processed.release());
        StageRunner runner = StageRunner.builder(stage).waitStrategy(PARK_FOR_AN_HOUR).build();
        runner.start();
        for (int i = 0; i < 10_000; i++) {
            input.offer(i);
            // A lost wakeup leaves the item queued behind an hour-long park.
            assertThat(processed.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("item %d processed", i).isTrue();
        }
        runner.close();
        assertThat(runner.counters().itemsProcessed()).isEqualTo(10_000);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void closeWakesAParkedRunner() {
        ActionStage<String> stage = new ActionStage<>("runner-close-parked", Queues.mpsc(4), s -> { });
        StageRunner runner = StageRunner.builder(stage).waitStrategy(PARK_FOR_AN_HOUR).build();
        runner.start();
        TestThreads.awaitParked(TestThreads.liveThread("runner-close-parked"));
        runner.close();
        assertThat(runner.isRunning()).isFalse();
        assertThat(stage.closed.getCount()).isZero();
    }

    @Test
    void anExceptionInDoWorkIsCountedAndTheStageGoesOn() throws InterruptedException {
        BoundedQueue<String> input = Queues.mpsc(16);
        CountDownLatch goodProcessed = new CountDownLatch(1);
        ActionStage<String> stage = new ActionStage<>("runner-exception", input, s -> {
            switch (s) {
                case "runtime" -> throw new IllegalStateException("bad input");
                case "assertion" -> throw new AssertionError("broken invariant");
                default -> goodProcessed.countDown();
            }
        });
        StageRunner runner = StageRunner.builder(stage).build();
        runner.start();
        input.offer("runtime");
        input.offer("assertion");
        input.offer("good");
        assertThat(goodProcessed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(runner.isRunning()).isTrue();
        runner.close();

        assertThat(runner.counters().exceptions()).isEqualTo(2);
        assertThat(runner.failure()).isEmpty();
    }

    @Test
    void anErrorStopsTheRunnerAndIsReported() throws InterruptedException {
        BoundedQueue<String> input = Queues.mpsc(16);
        Error fatal = new StackOverflowError("deep");
        ActionStage<String> stage = new ActionStage<>("runner-error", input, s -> {
            throw fatal;
        });
        StageRunner runner = StageRunner.builder(stage).build();
        runner.start();
        input.offer("boom");
        assertThat(stage.closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("stopped by itself").isTrue();
        int callsAtStop = stage.doWorkCalls.get();
        input.offer("after");
        runner.close();

        assertThat(runner.isRunning()).isFalse();
        assertThat(runner.failure()).containsSame(fatal);
        assertThat(runner.counters().exceptions()).isEqualTo(1);
        assertThat(stage.doWorkCalls.get()).isEqualTo(callsAtStop);
        assertThat(input.size()).isEqualTo(1);
    }

    @Test
    void aFailingOnStartStopsTheRunnerBeforeDoWorkAndStillCallsOnClose() throws InterruptedException {
        CountDownLatch closed = new CountDownLatch(1);
        RuntimeException cause = new IllegalStateException("cannot open");
        Stage stage = new Stage() {
            @Override
            public int doWork() {
                throw new AssertionError("doWork must not run");
            }

            @Override
            public String name() {
                return "runner-onstart";
            }

            @Override
            public void onStart() {
                throw cause;
            }

            @Override
            public void onClose() {
                closed.countDown();
            }
        };
        StageRunner runner = StageRunner.builder(stage).build();
        runner.start();
        assertThat(closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        runner.close();
        assertThat(runner.failure()).containsSame(cause);
        assertThat(runner.counters().exceptions()).isEqualTo(1);
    }

    @Test
    void closeThrowsIfTheThreadWillNotStopAndSucceedsOnceItDoes() throws InterruptedException {
        CountDownLatch inDoWork = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Stage blocking = new Stage() {
            @Override
            public int doWork() {
                inDoWork.countDown();
                try {
                    // Breaks the no-blocking contract on purpose.
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 0;
            }

            @Override
            public String name() {
                return "runner-stuck";
            }
        };
        StageRunner runner = StageRunner.builder(blocking).closeTimeout(Duration.ofMillis(50)).build();
        runner.start();
        assertThat(inDoWork.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        Thread thread = TestThreads.liveThread("runner-stuck");

        assertThatThrownBy(runner::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("runner-stuck");
        assertThat(runner.isRunning()).isTrue();

        release.countDown();
        thread.join();
        runner.close();
        assertThat(runner.isRunning()).isFalse();
        runner.close();
    }

    @Test
    void lifecycleMisuseIsRejected() {
        ActionStage<String> stage = new ActionStage<>("runner-lifecycle", Queues.mpsc(4), s -> { });
        StageRunner runner = StageRunner.builder(stage).build();
        runner.start();
        assertThatThrownBy(runner::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already");
        runner.close();
        runner.close();
        assertThatThrownBy(runner::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");

        ActionStage<String> neverStarted = new ActionStage<>("runner-never", Queues.mpsc(4), s -> { });
        StageRunner idle = StageRunner.builder(neverStarted).build();
        idle.close();
        assertThat(idle.isRunning()).isFalse();
        assertThat(neverStarted.onStartThread).isNull();
        assertThat(neverStarted.onCloseThread).isNull();
        assertThatThrownBy(idle::start).isInstanceOf(IllegalStateException.class);

        assertThatThrownBy(() -> StageRunner.builder(stage).closeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStageMayCloseItsOwnRunner() throws InterruptedException {
        BoundedQueue<String> input = Queues.mpsc(4);
        AtomicReference<StageRunner> self = new AtomicReference<>();
        ActionStage<String> stage = new ActionStage<>("runner-self-close", input, s -> self.get().close());
        StageRunner runner = StageRunner.builder(stage).build();
        self.set(runner);
        runner.start();
        input.offer("stop");
        assertThat(stage.closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        runner.close();
        assertThat(runner.isRunning()).isFalse();
        assertThat(runner.failure()).isEmpty();
    }

    @Test
    void metricsReportQueueDepthItemsBusyTimeAndExceptionsAndAreRemovedOnClose() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicLong virtualNanos = new AtomicLong();
        BoundedQueue<String> input = Queues.mpsc(16);
        CountDownLatch processed = new CountDownLatch(4);
        ActionStage<String> stage = new ActionStage<>("runner-metrics", input, s -> {
            processed.countDown();
            if (s.equals("bad")) {
                throw new IllegalArgumentException("bad");
            }
        });
        StageRunner runner = StageRunner.builder(stage)
                .meterRegistry(registry)
                .clock(() -> virtualNanos.addAndGet(1_000))
                .build();

        input.offer("a");
        input.offer("b");
        input.offer("bad");
        Gauge depth = registry.get(StageMetrics.QUEUE_DEPTH).tag(StageMetrics.STAGE_TAG, "runner-metrics")
                .tag(StageMetrics.QUEUE_TAG, "0").gauge();
        assertThat(depth.value()).isEqualTo(3.0);
        assertThat(registry.get(StageMetrics.QUEUE_CAPACITY).tag(StageMetrics.STAGE_TAG, "runner-metrics").gauge().value())
                .isEqualTo(16.0);
        FunctionCounter items = registry.get(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "runner-metrics").functionCounter();
        FunctionCounter exceptions = registry.get(StageMetrics.EXCEPTIONS).tag(StageMetrics.STAGE_TAG, "runner-metrics")
                .functionCounter();
        FunctionCounter busy = registry.get(StageMetrics.BUSY_TIME).tag(StageMetrics.STAGE_TAG, "runner-metrics")
                .functionCounter();

        runner.start();
        input.offer("c");
        assertThat(processed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        runner.close();

        // The call that drained a, b and bad threw at bad, so it counts as an exception and not
        // as work; only the later call that took c counts its item.
        assertThat(exceptions.count()).isEqualTo(1.0);
        assertThat(items.count()).isEqualTo((double) runner.counters().itemsProcessed());
        assertThat(runner.counters().itemsProcessed()).isEqualTo(1);
        assertThat(busy.count()).isPositive();
        assertThat(depth.value()).isZero();
        assertThat(registry.find(StageMetrics.ITEMS).meters()).isEmpty();
        assertThat(registry.getMeters()).isEmpty();
    }
}
