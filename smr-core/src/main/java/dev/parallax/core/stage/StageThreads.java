package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Places stages on threads (interim: one thread per stage). Thread-safe.
 */
public final class StageThreads implements AutoCloseable {
    private final WaitStrategy.Factory wait;
    private final Clock clock;
    private final MeterRegistry registry;
    private final ThreadPlacement placement;
    private final List<StageRunner> runners = new ArrayList<>();

    private StageThreads(Builder b) {
        this.wait = b.wait;
        this.clock = b.clock;
        this.registry = b.registry;
        this.placement = b.placement;
    }

    public static Builder builder() {
        return new Builder();
    }

    public ThreadPlacement placement() {
        return placement;
    }

    public synchronized StageHandle run(Stage stage) {
        return runDedicated(stage, wait);
    }

    public synchronized StageHandle runDedicated(Stage stage, WaitStrategy.Factory strategy) {
        StageRunner r = StageRunner.builder(stage).waitStrategy(strategy).clock(clock).meterRegistry(registry).build();
        runners.add(r);
        r.start();
        return new StageHandle() {
            @Override
            public String name() {
                return r.name();
            }

            @Override
            public void wake() {
                r.wake();
            }

            @Override
            public Optional<Throwable> failure() {
                return r.failure();
            }

            @Override
            public void close() {
                r.close();
            }
        };
    }

    @Override
    public synchronized void close() {
        runners.forEach(StageRunner::close);
    }

    public static final class Builder {
        private WaitStrategy.Factory wait = WaitStrategies.yieldPark();
        private Clock clock = SystemClock.INSTANCE;
        private MeterRegistry registry = new SimpleMeterRegistry();
        private ThreadPlacement placement = ThreadPlacement.STAGED;

        public Builder waitStrategy(WaitStrategy.Factory w) {
            this.wait = Objects.requireNonNull(w);
            return this;
        }

        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c);
            return this;
        }

        public Builder meterRegistry(MeterRegistry r) {
            this.registry = Objects.requireNonNull(r);
            return this;
        }

        public Builder placement(ThreadPlacement p) {
            this.placement = Objects.requireNonNull(p);
            return this;
        }

        public Builder threadNamePrefix(String prefix) {
            return this;
        }

        public StageThreads build() {
            return new StageThreads(this);
        }
    }
}
