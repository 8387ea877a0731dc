package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CompositeStageRunnerTest {

    private static final long WAIT_SECONDS = 30;
    /** Longer than any test may take: a thread parked this long must be woken, not time out. */
    private static final WaitStrategy.Factory PARK_FOR_AN_HOUR = WaitStrategies.park(TimeUnit.HOURS.toNanos(1));

    @Test
    void membersAttachedAndDetachedWhileRunningShareOneThreadAndTheOthersGoOn() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-live").waitStrategy(PARK_FOR_AN_HOUR).build();
        assertThat(runner.isRunning()).as("no thread before the first attach").isFalse();
        assertThat(TestThreads.liveThreads("composite-live")).isEmpty();

        BoundedQueue<String> inputA = Queues.mpsc(16);
        Semaphore doneA = new Semaphore(0);
        Set<Thread> threadsA = ConcurrentHashMap.newKeySet();
        ActionStage<String> a = new ActionStage<>("live-a", inputA, s -> {
            threadsA.add(Thread.currentThread());
            doneA.release();
        });
        StageHandle handleA = runner.attach(a);
        assertThat(runner.isRunning()).isTrue();
        Thread shared = TestThreads.liveThread("composite-live");
        assertThat(shared.isDaemon()).isFalse();
        inputA.offer("a1");
        assertThat(doneA.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        // B joins while A runs and the thread may be parked for an hour.
        BoundedQueue<String> inputB = Queues.spsc(16);
        Semaphore doneB = new Semaphore(0);
        Set<Thread> threadsB = ConcurrentHashMap.newKeySet();
        ActionStage<String> b = new ActionStage<>("live-b", inputB, s -> {
            threadsB.add(Thread.currentThread());
            doneB.release();
        });
        StageHandle handleB = runner.attach(b);
        assertThat(b.started.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("onStart without waiting out the park").isTrue();
        inputB.offer("b1");
        inputA.offer("a2");
        assertThat(doneB.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(doneA.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        // A leaves; B goes on.
        handleA.close();
        assertThat(a.closed.getCount()).as("onClose ran before close returned").isZero();
        assertThat(handleA.isRunning()).isFalse();
        assertThat(handleB.isRunning()).isTrue();
        int callsAfterDetach = a.doWorkCalls.get();
        inputA.offer("a3");
        inputB.offer("b2");
        assertThat(doneB.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(a.doWorkCalls.get()).as("a detached stage is not driven").isEqualTo(callsAfterDetach);
        assertThat(inputA.size()).isEqualTo(1);

        runner.close();
        assertThat(runner.isRunning()).isFalse();
        assertThat(handleB.isRunning()).isFalse();
        assertThat(b.closed.getCount()).isZero();
        assertThat(shared.isAlive()).isFalse();
        assertThat(threadsA).containsExactly(shared);
        assertThat(threadsB).containsExactly(shared);
        assertThat(List.of(a.onStartThread, a.onCloseThread, b.onStartThread, b.onCloseThread))
                .as("hooks run on the shared thread").containsOnly("composite-live");
        assertThat(handleA.failure()).isEmpty();
        assertThat(handleB.failure()).isEmpty();
        assertThat(handleA.name()).isEqualTo("live-a");
        assertThat(handleB.counters().itemsProcessed()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(QueueKind.class)
    void noWakeupIsLostWhenOffersRaceTheSharedThreadGoingToSleep(QueueKind kind) throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-race-" + kind)
                .waitStrategy(PARK_FOR_AN_HOUR).build();
        List<BoundedQueue<Integer>> inputs = new ArrayList<>();
        Semaphore processed = new Semaphore(0);
        List<StageHandle> handles = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            BoundedQueue<Integer> input = kind.create(16);
            inputs.add(input);
            handles.add(runner.attach(new ActionStage<>("race-" + kind + "-" + m, input, i -> processed.release())));
        }
        for (int i = 0; i < 10_000; i++) {
            inputs.get(i % inputs.size()).offer(i);
            // A lost wakeup leaves the item queued behind an hour-long park.
            assertThat(processed.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("item %d processed", i).isTrue();
        }
        runner.close();
        long total = 0;
        for (StageHandle handle : handles) {
            total += handle.counters().itemsProcessed();
        }
        assertThat(total).isEqualTo(10_000);
    }

    @Test
    void attachAndDetachFromOtherThreadsRaceWithoutLosingWorkOrWakeups() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-churn").waitStrategy(PARK_FOR_AN_HOUR).build();
        BoundedQueue<Integer> steadyInput = Queues.mpsc(64);
        Semaphore steadyDone = new Semaphore(0);
        StageHandle steady = runner.attach(new ActionStage<>("churn-steady", steadyInput, i -> steadyDone.release()));
        AtomicReference<Throwable> churnFailure = new AtomicReference<>();
        List<Thread> churners = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int id = t;
            Thread churner = new Thread(() -> {
                try {
                    for (int cycle = 0; cycle < 200; cycle++) {
                        BoundedQueue<Integer> input = Queues.spsc(4);
                        CountDownLatch got = new CountDownLatch(1);
                        ActionStage<Integer> stage = new ActionStage<>("churn-" + id + "-" + cycle, input, i -> got.countDown());
                        StageHandle handle = runner.attach(stage);
                        input.offer(cycle);
                        assertThat(got.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("churned member woken").isTrue();
                        handle.close();
                        assertThat(stage.started.getCount()).isZero();
                        assertThat(stage.closed.getCount()).isZero();
                        assertThat(handle.isRunning()).isFalse();
                    }
                } catch (Throwable e) {
                    churnFailure.set(e);
                }
            }, "churner-" + t);
            churners.add(churner);
            churner.start();
        }
        for (int i = 0; i < 2_000; i++) {
            steadyInput.offer(i);
            assertThat(steadyDone.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("steady item %d", i).isTrue();
        }
        for (Thread churner : churners) {
            churner.join();
        }
        assertThat(churnFailure.get()).isNull();
        assertThat(steady.isRunning()).isTrue();
        runner.close();
        assertThat(steady.counters().itemsProcessed()).isEqualTo(2_000);
    }

    @Test
    void anExceptionIsCountedAndAnErrorStopsOnlyItsMember() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-failure").build();
        BoundedQueue<String> badInput = Queues.mpsc(16);
        Error fatal = new StackOverflowError("deep");
        Semaphore badSeen = new Semaphore(0);
        ActionStage<String> bad = new ActionStage<>("failure-bad", badInput, s -> {
            badSeen.release();
            switch (s) {
                case "runtime" -> throw new IllegalStateException("bad input");
                case "assertion" -> throw new AssertionError("broken invariant");
                case "fatal" -> throw fatal;
                default -> { }
            }
        });
        BoundedQueue<String> goodInput = Queues.mpsc(16);
        Semaphore goodDone = new Semaphore(0);
        ActionStage<String> good = new ActionStage<>("failure-good", goodInput, s -> goodDone.release());
        StageHandle badHandle = runner.attach(bad);
        StageHandle goodHandle = runner.attach(good);

        badInput.offer("runtime");
        badInput.offer("assertion");
        badInput.offer("fine");
        assertThat(badSeen.tryAcquire(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        goodInput.offer("g1");
        assertThat(goodDone.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(badHandle.isRunning()).as("exceptions do not stop the member").isTrue();
        assertThat(badHandle.failure()).isEmpty();

        badInput.offer("fatal");
        assertThat(bad.closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the Error stopped the member").isTrue();
        int callsAtStop = bad.doWorkCalls.get();
        badInput.offer("after");
        goodInput.offer("g2");
        assertThat(goodDone.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("the other member goes on").isTrue();
        assertThat(goodHandle.isRunning()).isTrue();
        assertThat(badHandle.isRunning()).isFalse();
        assertThat(badHandle.failure()).containsSame(fatal);
        assertThat(badHandle.counters().exceptions()).isEqualTo(3);
        assertThat(bad.doWorkCalls.get()).isEqualTo(callsAtStop);
        assertThat(bad.onCloseThread).isEqualTo("composite-failure");

        badHandle.close();
        runner.close();
        assertThat(goodHandle.failure()).isEmpty();
        assertThat(goodHandle.counters().exceptions()).isZero();
        assertThat(goodHandle.counters().itemsProcessed()).isEqualTo(2);
    }

    @Test
    void aFailingOnStartStopsOnlyThatMemberAndStillCallsItsOnClose() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-onstart").build();
        BoundedQueue<String> input = Queues.mpsc(16);
        Semaphore done = new Semaphore(0);
        StageHandle good = runner.attach(new ActionStage<>("onstart-good", input, s -> done.release()));
        CountDownLatch closed = new CountDownLatch(1);
        RuntimeException cause = new IllegalStateException("cannot open");
        StageHandle failing = runner.attach(new Stage() {
            @Override
            public int doWork() {
                throw new AssertionError("doWork must not run");
            }

            @Override
            public String name() {
                return "onstart-failing";
            }

            @Override
            public void onStart() {
                throw cause;
            }

            @Override
            public void onClose() {
                closed.countDown();
            }
        });
        assertThat(closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(failing.failure()).containsSame(cause);
        assertThat(failing.counters().exceptions()).isEqualTo(1);
        input.offer("x");
        assertThat(done.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(good.isRunning()).isTrue();
        failing.close();
        assertThat(failing.isRunning()).isFalse();
        assertThat(good.isRunning()).isTrue();
        runner.close();
    }

    @Test
    void everyMemberGetsADoWorkPerLoopEvenBesideAMemberThatIsNeverIdle() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-fair").build();
        AtomicInteger busyCalls = new AtomicInteger();
        Stage alwaysBusy = new Stage() {
            @Override
            public int doWork() {
                busyCalls.incrementAndGet();
                return 1;
            }

            @Override
            public String name() {
                return "fair-busy";
            }
        };
        BoundedQueue<Integer> input = Queues.mpsc(16);
        Semaphore done = new Semaphore(0);
        AtomicInteger quietCalls = new AtomicInteger();
        AtomicInteger busyCallsWhenQuietStarted = new AtomicInteger(-1);
        Stage quiet = new Stage() {
            @Override
            public int doWork() {
                quietCalls.incrementAndGet();
                return input.drain(i -> done.release(), 64);
            }

            @Override
            public String name() {
                return "fair-quiet";
            }

            @Override
            public void onStart() {
                busyCallsWhenQuietStarted.set(busyCalls.get());
            }

            @Override
            public List<BoundedQueue<Integer>> inputQueues() {
                return List.of(input);
            }
        };
        StageHandle busy = runner.attach(alwaysBusy);
        runner.attach(quiet);
        for (int i = 0; i < 100; i++) {
            input.offer(i);
            assertThat(done.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).as("item %d not starved", i).isTrue();
        }
        runner.close();
        // Both are called once per loop from the loop in which quiet joined until the stop.
        assertThat(busyCalls.get() - busyCallsWhenQuietStarted.get()).isEqualTo(quietCalls.get());
        // A drain also takes items offered while it runs (the test thread offers the next item as soon
        // as the previous one is released), up to 64 per call: 100 items take at least 2 calls.
        assertThat(quietCalls.get()).isGreaterThanOrEqualTo(2);
        assertThat(busy.counters().itemsProcessed()).isEqualTo(busyCalls.get());
    }

    @Test
    void metricsAreRegisteredPerMemberWithItsStageTagAndRemovedWhenItLeaves() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-metrics").meterRegistry(registry).build();
        BoundedQueue<String> inputA = Queues.mpsc(16);
        BoundedQueue<String> inputB = Queues.mpsc(32);
        Semaphore done = new Semaphore(0);
        StageHandle a = runner.attach(new ActionStage<>("metrics-a", inputA, s -> {
            done.release();
            if (s.equals("bad")) {
                throw new IllegalArgumentException("bad");
            }
        }));
        StageHandle b = runner.attach(new ActionStage<>("metrics-b", inputB, s -> done.release()));

        inputA.offer("bad");
        assertThat(done.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        inputA.offer("a");
        inputB.offer("b1");
        inputB.offer("b2");
        assertThat(done.tryAcquire(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        for (String stage : List.of("metrics-a", "metrics-b")) {
            for (String meter : List.of(StageMetrics.QUEUE_DEPTH, StageMetrics.QUEUE_CAPACITY, StageMetrics.ITEMS,
                    StageMetrics.BUSY_TIME, StageMetrics.BUSY_RATIO, StageMetrics.EXCEPTIONS)) {
                assertThat(registry.find(meter).tag(StageMetrics.STAGE_TAG, stage).meters()).as("%s of %s", meter, stage)
                        .hasSize(1);
            }
        }
        assertThat(registry.get(StageMetrics.QUEUE_CAPACITY).tag(StageMetrics.STAGE_TAG, "metrics-b").gauge().value())
                .isEqualTo(32.0);
        FunctionCounter exceptionsA = registry.get(StageMetrics.EXCEPTIONS).tag(StageMetrics.STAGE_TAG, "metrics-a")
                .functionCounter();
        FunctionCounter itemsA = registry.get(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "metrics-a").functionCounter();
        FunctionCounter itemsB = registry.get(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "metrics-b").functionCounter();
        FunctionCounter busyB = registry.get(StageMetrics.BUSY_TIME).tag(StageMetrics.STAGE_TAG, "metrics-b")
                .functionCounter();

        // Closing a handle waits for the member's last doWork, so its counts are final.
        a.close();
        assertThat(exceptionsA.count()).isEqualTo(1.0);
        assertThat(itemsA.count()).isEqualTo(1.0);
        assertThat(a.counters().itemsProcessed()).isEqualTo(1);
        assertThat(registry.find(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "metrics-a").meters()).isEmpty();
        assertThat(registry.find(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "metrics-b").meters()).hasSize(1);
        runner.close();
        assertThat(b.isRunning()).isFalse();
        assertThat(itemsB.count()).isEqualTo(2.0);
        assertThat(busyB.count()).isPositive();
        assertThat(b.counters().exceptions()).isZero();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void closingTheRunnerRemovesTheMetersOfAMemberThatFailedAndWasNeverClosed() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-failed-meters").meterRegistry(registry).build();
        BoundedQueue<String> input = Queues.mpsc(4);
        ActionStage<String> stage = new ActionStage<>("failed-meters", input, s -> {
            throw new OutOfMemoryError("simulated");
        });
        StageHandle handle = runner.attach(stage);
        input.offer("x");
        assertThat(stage.closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.get(StageMetrics.EXCEPTIONS).tag(StageMetrics.STAGE_TAG, "failed-meters").functionCounter()
                .count()).as("a failed member's meters stay readable").isEqualTo(1.0);
        runner.close();
        assertThat(handle.failure()).containsInstanceOf(OutOfMemoryError.class);
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aMemberMayCloseItsOwnHandleFromDoWork() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-self-close").build();
        BoundedQueue<String> input = Queues.mpsc(4);
        AtomicReference<StageHandle> self = new AtomicReference<>();
        ActionStage<String> stage = new ActionStage<>("self-closing", input, s -> self.get().close());
        self.set(runner.attach(stage));
        BoundedQueue<String> otherInput = Queues.mpsc(4);
        Semaphore otherDone = new Semaphore(0);
        StageHandle other = runner.attach(new ActionStage<>("self-other", otherInput, s -> otherDone.release()));
        input.offer("stop");
        assertThat(stage.closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        self.get().close();
        assertThat(self.get().isRunning()).isFalse();
        otherInput.offer("still here");
        assertThat(otherDone.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(other.isRunning()).isTrue();
        runner.close();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aBlockingMemberMakesClosesTimeOutUntilItReturns() throws InterruptedException {
        CompositeStageRunner runner = CompositeStageRunner.builder("composite-stuck")
                .closeTimeout(Duration.ofMillis(50)).build();
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
                return "stuck-blocking";
            }
        };
        StageHandle quiet = runner.attach(new ActionStage<>("stuck-quiet", Queues.mpsc(4), s -> { }));
        runner.attach(blocking);
        assertThat(inDoWork.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(quiet::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("stuck-quiet");
        assertThatThrownBy(runner::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("composite-stuck");
        Thread thread = TestThreads.liveThread("composite-stuck");

        release.countDown();
        thread.join();
        quiet.close();
        runner.close();
        assertThat(runner.isRunning()).isFalse();
    }

    @Test
    void manyRunnersLeaveNoThreadBehindAndRefuseMembersOnceClosed() throws InterruptedException {
        String prefix = "composite-cycle-";
        for (int cycle = 0; cycle < 50; cycle++) {
            WaitStrategy.Factory strategy = switch (cycle % 3) {
                case 0 -> WaitStrategies.busySpin();
                case 1 -> WaitStrategies.shared();
                default -> PARK_FOR_AN_HOUR;
            };
            CompositeStageRunner runner = CompositeStageRunner.builder(prefix + cycle).waitStrategy(strategy).build();
            BoundedQueue<Integer> input = Queues.spsc(4);
            CountDownLatch processed = new CountDownLatch(1);
            ActionStage<Integer> stage = new ActionStage<>("cycle-stage-" + cycle, input, i -> processed.countDown());
            StageHandle handle = runner.attach(stage);
            runner.attach(new ActionStage<>("cycle-other-" + cycle, Queues.mpsc(4), i -> { }));
            if (cycle % 2 == 0) {
                input.offer(cycle);
                assertThat(processed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            }
            runner.close();
            runner.close();
            assertThat(handle.isRunning()).isFalse();
            handle.close();
            assertThat(stage.onCloseThread).isEqualTo(prefix + cycle);
            assertThatThrownBy(() -> runner.attach(stage)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
        assertThat(TestThreads.liveThreads(prefix)).isEmpty();

        CompositeStageRunner unused = CompositeStageRunner.builder(prefix + "unused").build();
        unused.close();
        assertThat(unused.isRunning()).isFalse();
        assertThatThrownBy(() -> CompositeStageRunner.builder("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CompositeStageRunner.builder("x").closeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
