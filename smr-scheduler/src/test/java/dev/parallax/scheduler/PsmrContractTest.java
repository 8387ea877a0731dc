package dev.parallax.scheduler;

import dev.parallax.core.spi.Executor;
import dev.parallax.core.testkit.executor.ExecutorContract;
import dev.parallax.core.testkit.executor.ExecutorWorkload;

/**
 * The executor contract for P-SMR ({@link Execution#psmr}, seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 6): one worker per workload thread, each command routed by the γ the workload gives it
 * (a command on shard s to group s, a global one to every shard's group: the C-G of the test state
 * machine), so P-SMR must equal sequential execution on every workload of the suite.
 */
class PsmrContractTest extends ExecutorContract {
    @Override
    protected Executor create(ExecutorWorkload workload) {
        return Execution.psmr(workload.threads(), workload.capacity());
    }
}
