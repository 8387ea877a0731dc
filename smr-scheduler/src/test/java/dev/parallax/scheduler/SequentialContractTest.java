package dev.parallax.scheduler;

import dev.parallax.core.spi.Executor;
import dev.parallax.core.testkit.executor.ExecutorContract;
import dev.parallax.core.testkit.executor.ExecutorWorkload;

/** The executor contract for {@link Execution#sequential()}, the reference itself. */
class SequentialContractTest extends ExecutorContract {
    @Override
    protected Executor create(ExecutorWorkload workload) {
        return Execution.sequential();
    }
}
