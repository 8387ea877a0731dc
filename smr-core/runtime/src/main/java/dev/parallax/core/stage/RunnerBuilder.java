package dev.parallax.core.stage;

import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings every way of running stages shares — how idle threads wait, the clock busy time is
 * measured with, where stage meters go, how long a close waits — as one builder base, so
 * {@link StageRunner}, {@link CompositeStageRunner} and {@link StageThreads} are configured alike.
 *
 * <p>Mutable, not thread-safe: configure on one thread, then build.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class RunnerBuilder<B extends RunnerBuilder<B>> {
    WaitStrategy.Factory waitStrategy;
    Clock clock = SystemClock.INSTANCE;
    MeterRegistry registry;
    Duration closeTimeout = Duration.ofSeconds(10);

    RunnerBuilder(WaitStrategy.Factory defaultWait) {
        this.waitStrategy = defaultWait;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * Sets how an idle thread waits; each thread makes its own instance.
     *
     * @param factory the wait strategy factory, for example {@code WaitStrategies.parse("park")}
     * @return this builder
     * @throws NullPointerException if {@code factory} is null
     */
    public B waitStrategy(WaitStrategy.Factory factory) {
        this.waitStrategy = Objects.requireNonNull(factory, "factory");
        return self();
    }

    /**
     * Sets the clock busy time and the busy ratio are measured with; default the system clock.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public B clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /**
     * Registers each stage's {@link StageMetrics} in {@code registry} when the stage starts running;
     * closing it removes them. Default: no meters.
     *
     * @param registry the registry
     * @return this builder
     * @throws NullPointerException if {@code registry} is null
     */
    public B meterRegistry(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        return self();
    }

    /**
     * Sets how long a close waits for its thread; default 10 s.
     *
     * @param timeout a positive duration
     * @return this builder
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws NullPointerException if {@code timeout} is null
     */
    public B closeTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("close timeout must be positive: " + timeout);
        }
        this.closeTimeout = timeout;
        return self();
    }
}
