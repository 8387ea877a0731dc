/**
 * The executor contract suite (testkit): the test every {@link dev.parallax.core.spi.Executor}
 * runs, whatever its scheduling.
 *
 * <ul>
 *   <li>{@link dev.parallax.core.testkit.executor.ShardedTestMachine}: a sharded state machine with
 *       order-sensitive writes and overlap detection, and its commands, each carrying a γ
 *       consistent with its conflicts (shard {@code s} in group {@code s}, a global command in
 *       every shard's group);</li>
 *   <li>{@link dev.parallax.core.testkit.executor.WorkloadShape}: the randomized workload's knobs
 *       (seed 001 §5.4) and jqwik arbitraries; {@link dev.parallax.core.testkit.executor.ExecutorWorkload}:
 *       what an executor factory gets (shards, threads, capacity, the commands);</li>
 *   <li>{@link dev.parallax.core.testkit.executor.ResultRecorder}: a thread-safe result sink;</li>
 *   <li>{@link dev.parallax.core.testkit.executor.ExecutorContract}: the suite itself — every
 *       workload matches sequential execution in delivery order (results, final state, no
 *       overlapping conflicting commands, one result per command), plus the lifecycle and error
 *       rules of the {@code Executor} interface.</li>
 * </ul>
 *
 * <p><b>Running the contract for a new executor</b> (P-SMR next): in the executor's module, which
 * depends on smr-core's test-jar with test scope, add one class per configuration,
 * <pre>{@code
 * class PsmrExecutorContractTest extends ExecutorContract {
 *     @Override
 *     protected Executor create(ExecutorWorkload workload) {
 *         // workload.threads() workers, input bounded by workload.capacity(); a command's
 *         // groups() is its γ (group g -> worker g mod threads)
 *         return new PsmrExecutor(workload.threads(), workload.capacity());
 *     }
 * }
 * }</pre>
 * and the build runs it with the module's tests. An executor that needs a classifier decodes
 * commands with {@code ShardedTestMachine.op} and {@code ShardedTestMachine.shard} (the scheduler's
 * class maps are built so in smr-scheduler's {@code ShardedTestMachineMaps}); one that needs a
 * conflict relation uses {@code ShardedTestMachine.conflict}. Further workloads of its own go
 * through {@code assertMatchesSequentialExecution}. The testkit references no executor module.
 */
package dev.parallax.core.testkit.executor;
