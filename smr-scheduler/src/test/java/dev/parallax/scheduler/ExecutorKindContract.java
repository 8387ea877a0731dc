package dev.parallax.scheduler;

import dev.parallax.core.spi.Executor;
import dev.parallax.core.testkit.executor.ExecutorContract;
import dev.parallax.core.testkit.executor.ExecutorWorkload;

/**
 * The testkit's {@link ExecutorContract} for one {@link ExecutorKind}, configured from the
 * workload by {@link ShardedTestMachineMaps}; one subclass per kind.
 */
abstract class ExecutorKindContract extends ExecutorContract {
    private final ExecutorKind kind;

    ExecutorKindContract(ExecutorKind kind) {
        this.kind = kind;
    }

    @Override
    protected Executor create(ExecutorWorkload workload) {
        return kind.create(workload);
    }
}
