package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StageThreadsTest {

    private static final long WAIT_SECONDS = 30;

    /** Three pipeline stages that record the thread that processed their item. */
    private static final class Pipeline {
        final List<BoundedQueue<String>> inputs = new ArrayList<>();
        final List<ActionStage<String>> stages = new ArrayList<>();
        final Map<String, Thread> ranOn = new ConcurrentHashMap<>();
        final CountDownLatch processed;

        Pipeline(String prefix, int size) {
            processed = new CountDownLatch(size);
            for (int i = 0; i < size; i++) {
                BoundedQueue<String> input = Queues.mpsc(8);
                String name = prefix + i;
                inputs.add(input);
                stages.add(new ActionStage<>(name, input, s -> {
                    ranOn.put(name, Thread.currentThread());
                    processed.countDown();
                }));
            }
        }

        void feedAndAwait() throws InterruptedException {
            inputs.forEach(q -> q.offer("item"));
            assertThat(processed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void stagedGivesEveryStageAThreadNamedAfterIt() throws InterruptedException {
        StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).threadNamePrefix("staged-test-").build();
        assertThat(threads.placement()).isEqualTo(ThreadPlacement.STAGED);
        Pipeline pipeline = new Pipeline("staged-stage-", 3);
        List<StageHandle> handles = new ArrayList<>();
        for (ActionStage<String> stage : pipeline.stages) {
            handles.add(threads.run(stage));
        }
        pipeline.feedAndAwait();

        assertThat(pipeline.ranOn.values().stream().distinct()).hasSize(3);
        pipeline.ranOn.forEach((stage, thread) -> assertThat(thread.getName()).isEqualTo(stage));
        assertThat(TestThreads.liveThreads("staged-test-")).as("no shared thread").isEmpty();
        assertThat(handles).allSatisfy(h -> assertThat(h.isRunning()).isTrue());

        threads.close();
        assertThat(handles).allSatisfy(h -> assertThat(h.isRunning()).isFalse());
        assertThat(pipeline.stages).allSatisfy(s -> assertThat(s.onCloseThread).isEqualTo(s.name()));
        assertThat(TestThreads.liveThreads("staged-stage-")).isEmpty();
    }

    @Test
    void compactRunsThePipelineOnOneSharedThreadAndDedicatedStagesApart() throws InterruptedException {
        StageThreads threads = StageThreads.builder(ThreadPlacement.COMPACT).threadNamePrefix("compact-test-").build();
        assertThat(threads.placement()).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(threads.pipelineThreadName()).isEqualTo("compact-test-pipeline");
        assertThat(TestThreads.liveThreads("compact-test-")).as("the shared thread starts with the first stage").isEmpty();
        Pipeline pipeline = new Pipeline("compact-stage-", 3);
        for (ActionStage<String> stage : pipeline.stages) {
            threads.run(stage);
        }
        BoundedQueue<String> detectorInput = Queues.mpsc(4);
        Map<String, Thread> detectorRanOn = new ConcurrentHashMap<>();
        CountDownLatch detectorDone = new CountDownLatch(1);
        StageHandle detector = threads.runDedicated(new ActionStage<>("compact-detector", detectorInput, s -> {
            detectorRanOn.put("detector", Thread.currentThread());
            detectorDone.countDown();
        }), WaitStrategies.park());
        pipeline.feedAndAwait();
        detectorInput.offer("tick");
        assertThat(detectorDone.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        List<Thread> pipelineThreads = pipeline.ranOn.values().stream().distinct().toList();
        assertThat(pipelineThreads).hasSize(1);
        assertThat(pipelineThreads.get(0).getName()).isEqualTo("compact-test-pipeline");
        assertThat(pipeline.stages).allSatisfy(s -> assertThat(s.onStartThread).isEqualTo("compact-test-pipeline"));
        assertThat(detectorRanOn.get("detector").getName()).isEqualTo("compact-detector");
        assertThat(detectorRanOn.get("detector")).isNotSameAs(pipelineThreads.get(0));
        assertThat(TestThreads.liveThreads("compact-stage-")).as("no thread per stage").isEmpty();

        threads.close();
        assertThat(detector.isRunning()).isFalse();
        assertThat(pipeline.stages).allSatisfy(s -> assertThat(s.onCloseThread).isEqualTo("compact-test-pipeline"));
        assertThat(TestThreads.liveThreads("compact-test-")).isEmpty();
        assertThat(TestThreads.liveThreads("compact-detector")).isEmpty();
    }

    @Test
    void autoResolvesByCoreCount() {
        assertThat(StageThreads.builder(ThreadPlacement.AUTO).cores(1).build().placement())
                .isEqualTo(ThreadPlacement.COMPACT);
        assertThat(StageThreads.builder(ThreadPlacement.AUTO).cores(ThreadPlacement.STAGED_FROM_CORES).build().placement())
                .isEqualTo(ThreadPlacement.STAGED);
        assertThat(StageThreads.builder(ThreadPlacement.STAGED).cores(1).build().placement())
                .isEqualTo(ThreadPlacement.STAGED);
        assertThat(StageThreads.builder(ThreadPlacement.AUTO).build().placement())
                .isEqualTo(ThreadPlacement.AUTO.resolve(Runtime.getRuntime().availableProcessors()));
        assertThatThrownBy(() -> StageThreads.builder(ThreadPlacement.AUTO).cores(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StageThreads.builder(ThreadPlacement.AUTO).closeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(value = ThreadPlacement.class, names = {"STAGED", "COMPACT"})
    void bothPlacementsPublishTheSameMetersPerStage(ThreadPlacement placement) throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StageThreads threads = StageThreads.builder(placement).threadNamePrefix("meters-" + placement + "-")
                .meterRegistry(registry).build();
        Pipeline pipeline = new Pipeline("meters-" + placement + "-stage-", 2);
        List<StageHandle> handles = new ArrayList<>();
        for (ActionStage<String> stage : pipeline.stages) {
            handles.add(threads.run(stage));
        }
        pipeline.feedAndAwait();
        for (ActionStage<String> stage : pipeline.stages) {
            for (String meter : List.of(StageMetrics.QUEUE_DEPTH, StageMetrics.QUEUE_CAPACITY, StageMetrics.ITEMS,
                    StageMetrics.BUSY_TIME, StageMetrics.BUSY_RATIO, StageMetrics.EXCEPTIONS)) {
                assertThat(registry.find(meter).tag(StageMetrics.STAGE_TAG, stage.name()).meters())
                        .as("%s of %s", meter, stage.name()).hasSize(1);
            }
        }
        handles.get(0).close();
        assertThat(registry.find(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, pipeline.stages.get(0).name()).meters())
                .isEmpty();
        assertThat(handles.get(1).isRunning()).isTrue();
        threads.close();
        assertThat(handles.get(0).counters().itemsProcessed()).isEqualTo(1);
        assertThat(handles.get(1).counters().itemsProcessed()).isEqualTo(1);
        assertThat(registry.getMeters()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = ThreadPlacement.class, names = {"STAGED", "COMPACT"})
    void closeStopsEverythingLeftRunningAndRefusesNewStages(ThreadPlacement placement) throws InterruptedException {
        String prefix = "close-all-" + placement + "-";
        for (int cycle = 0; cycle < 20; cycle++) {
            StageThreads threads = StageThreads.builder(placement).threadNamePrefix(prefix).build();
            Pipeline pipeline = new Pipeline(prefix + "stage-" + cycle + "-", 3);
            List<StageHandle> handles = new ArrayList<>();
            for (ActionStage<String> stage : pipeline.stages) {
                handles.add(threads.run(stage));
            }
            handles.add(threads.runDedicated(new ActionStage<>(prefix + "dedicated-" + cycle, Queues.mpsc(4), s -> { }),
                    WaitStrategies.park()));
            pipeline.feedAndAwait();
            handles.get(1).close();
            threads.close();
            threads.close();
            assertThat(handles).allSatisfy(h -> assertThat(h.isRunning()).isFalse());
            assertThat(pipeline.stages).allSatisfy(s -> assertThat(s.closed.getCount()).isZero());
            ActionStage<String> late = new ActionStage<>(prefix + "late", Queues.mpsc(4), s -> { });
            assertThatThrownBy(() -> threads.run(late)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThatThrownBy(() -> threads.runDedicated(late, WaitStrategies.park()))
                    .isInstanceOf(IllegalStateException.class);
        }
        assertThat(TestThreads.liveThreads(prefix)).isEmpty();
    }

    @Test
    void stagedHandlesAreStageRunnersFailingAlike() throws InterruptedException {
        StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).build();
        BoundedQueue<String> input = Queues.mpsc(4);
        ActionStage<String> stage = new ActionStage<>("staged-error", input, s -> {
            throw new StackOverflowError("deep");
        });
        StageHandle handle = threads.run(stage);
        input.offer("boom");
        assertThat(stage.closed.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(handle.failure()).containsInstanceOf(StackOverflowError.class);
        assertThat(handle.counters().exceptions()).isEqualTo(1);
        assertThat(handle.name()).isEqualTo("staged-error");
        threads.close();
    }

    @Test
    void newThreadNamesItSetsTheDaemonFlagAsToldAndLogsWhatEscapes() throws Exception {
        Thread daemon = StageThreads.newThread("factory-test-daemon", true, () -> { });
        Thread user = StageThreads.newThread("factory-test-user", false, () -> { });
        assertThat(daemon.getName()).isEqualTo("factory-test-daemon");
        assertThat(daemon.isDaemon()).isTrue();
        assertThat(daemon.getState()).as("not started").isEqualTo(Thread.State.NEW);
        assertThat(user.getName()).isEqualTo("factory-test-user");
        assertThat(user.isDaemon()).isFalse();
        // The flag is the caller's word, not inherited from the creating thread.
        AtomicReference<Thread> madeOnDaemon = new AtomicReference<>();
        Thread creator = new Thread(() -> madeOnDaemon.set(StageThreads.newThread("factory-test-child", false, () -> { })),
                "factory-test-creator");
        creator.setDaemon(true);
        creator.start();
        creator.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(madeOnDaemon.get().isDaemon()).isFalse();

        Thread.UncaughtExceptionHandler applications = Thread.getDefaultUncaughtExceptionHandler();
        CompletableFuture<Throwable> forwarded = new CompletableFuture<>();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> forwarded.complete(e));
        try {
            IllegalStateException boom = new IllegalStateException("factory test: expected in the log");
            Thread failing = StageThreads.newThread("factory-test-failing", true, () -> {
                throw boom;
            });
            assertThat(failing.getUncaughtExceptionHandler()).as("a handler of its own, not the thread group")
                    .isNotSameAs(failing.getThreadGroup());
            failing.start();
            failing.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(forwarded.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("logged, then passed to the application's handler")
                    .isSameAs(boom);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(applications);
        }

        assertThatThrownBy(() -> StageThreads.newThread("", true, () -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StageThreads.newThread(null, true, () -> { })).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> StageThreads.newThread("factory-test-none", true, null))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void runnersStartTheirThreadsThroughTheFactory() throws Exception {
        StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).build();
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        BoundedQueue<String> input = Queues.mpsc(4);
        threads.run(new ActionStage<>("factory-test-stage", input, s -> ranOn.complete(Thread.currentThread())));
        input.offer("item");
        Thread t = ranOn.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(t.getName()).isEqualTo("factory-test-stage");
        assertThat(t.isDaemon()).as("a stage runner is joined on close, as before").isFalse();
        assertThat(t.getUncaughtExceptionHandler()).as("the factory's handler (the thread still runs)").isNotNull()
                .isNotSameAs(t.getThreadGroup());
        threads.close();
    }
}
