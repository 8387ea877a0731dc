package dev.parallax.core.replica;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.WaitMode;
import dev.parallax.core.runtime.ReplicaBoundExecutor;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The stage threads of one replica, with {@code wait} and {@code threads} resolved for this
 * machine: {@code auto} by the available processors ({@link WaitMode#resolve},
 * {@link ThreadPlacement#resolve}), and the placement by the executor where it asks for one
 * ({@link ReplicaBoundExecutor#autoPlacement}). Under yield-park the shared pipeline thread of the
 * compact placement waits with {@link WaitStrategies#shared()}; other modes apply to it as they are.
 *
 * <p>Stateless; {@link #create} is thread-safe and does not block.
 */
final class ReplicaStageThreads {

    private ReplicaStageThreads() {
    }

    /** Unstarted stage threads for replica {@code config.id()} running {@code executor}. */
    static StageThreads create(ReplicaConfig config, Executor executor, Clock clock, MeterRegistry registry) {
        int cores = Runtime.getRuntime().availableProcessors();
        WaitMode waitMode = config.waitMode().resolve(cores);
        WaitStrategy.Factory wait = waitMode.strategy();
        WaitStrategy.Factory sharedWait = waitMode == WaitMode.YIELD_PARK ? WaitStrategies.shared() : wait;
        ThreadPlacement placement = config.threads() == ThreadPlacement.AUTO && executor instanceof ReplicaBoundExecutor bound
                ? bound.autoPlacement(cores) : config.threads();
        return StageThreads.builder(placement).waitStrategy(wait).sharedWaitStrategy(sharedWait).clock(clock)
                .meterRegistry(registry).threadNamePrefix("replica-" + config.id() + "-").build();
    }
}
