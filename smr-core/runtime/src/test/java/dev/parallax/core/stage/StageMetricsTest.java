package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StageMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong nanos = new AtomicLong();
    private final StageCounters counters = new StageCounters();

    @Test
    void publishesQueueDepthPerDeclaredInput() {
        BoundedQueue<String> first = Queues.mpsc(8);
        BoundedQueue<String> second = Queues.spsc(32);
        StageMetrics.register(registry, "proto", counters, List.of(first, second), nanos::get);
        first.offer("a");
        second.offer("b");
        second.offer("c");

        assertThat(depth("0").value()).isEqualTo(1.0);
        assertThat(depth("1").value()).isEqualTo(2.0);
        assertThat(registry.get(StageMetrics.QUEUE_CAPACITY).tag(StageMetrics.QUEUE_TAG, "1").gauge().value())
                .isEqualTo(32.0);
        second.poll();
        assertThat(depth("1").value()).isEqualTo(1.0);
    }

    @Test
    void countsItemsBusyTimeAndExceptions() {
        StageMetrics.register(registry, "proto", counters, List.of(), nanos::get);
        counters.recordWork(10, 2_000_000_000L);
        counters.recordWork(5, 500_000_000L);
        counters.recordException();

        assertThat(counter(StageMetrics.ITEMS).count()).isEqualTo(15.0);
        assertThat(counter(StageMetrics.BUSY_TIME).count()).isCloseTo(2.5, within(1e-9));
        assertThat(counter(StageMetrics.EXCEPTIONS).count()).isEqualTo(1.0);
        assertThat(counters.toString()).contains("items=15", "exceptions=1");
    }

    @Test
    void busyRatioCoversTheIntervalSinceThePreviousRead() {
        StageMetrics.register(registry, "proto", counters, List.of(), nanos::get);
        Gauge ratio = registry.get(StageMetrics.BUSY_RATIO).tag(StageMetrics.STAGE_TAG, "proto").gauge();

        nanos.set(1_000);
        counters.recordWork(1, 250);
        assertThat(ratio.value()).isCloseTo(0.25, within(1e-9));

        nanos.set(2_000);
        assertThat(ratio.value()).as("idle interval").isZero();

        nanos.set(3_000);
        counters.recordWork(3, 1_000);
        assertThat(ratio.value()).isCloseTo(1.0, within(1e-9));

        assertThat(ratio.value()).as("no time passed: previous ratio").isCloseTo(1.0, within(1e-9));
    }

    @Test
    void closeRemovesEveryMeterAndIsIdempotent() {
        StageMetrics metrics = StageMetrics.register(registry, "proto", counters, List.of(Queues.mpsc(4)), nanos::get);
        StageMetrics.register(registry, "other", new StageCounters(), List.of(), nanos::get);
        assertThat(metrics.meters()).hasSize(6);
        assertThat(metrics.meters()).allSatisfy(m -> assertThat(m.getId().getTag(StageMetrics.STAGE_TAG)).isEqualTo("proto"));

        metrics.close();
        metrics.close();
        assertThat(registry.find(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "proto").meters()).isEmpty();
        assertThat(registry.find(StageMetrics.ITEMS).tag(StageMetrics.STAGE_TAG, "other").meters()).hasSize(1);
    }

    private Gauge depth(String queue) {
        return registry.get(StageMetrics.QUEUE_DEPTH)
                .tag(StageMetrics.STAGE_TAG, "proto").tag(StageMetrics.QUEUE_TAG, queue).gauge();
    }

    private FunctionCounter counter(String name) {
        return registry.get(name).tag(StageMetrics.STAGE_TAG, "proto").functionCounter();
    }
}
