/**
 * P-SMR, parallel state-machine replication (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6,
 * Alg. 1): k workers, each fed by its own delivery stream, that execute single-group commands in
 * parallel and meet for multi-group commands (synchronous mode, Alg. 1 l.16-25), with no central
 * scheduler and no dependency graph.
 * <ul>
 *   <li>{@link dev.parallax.scheduler.psmr.PsmrWorkers}: the worker group and its signal protocol,
 *       driven by k independent delivery threads (one per worker);</li>
 *   <li>{@link dev.parallax.scheduler.psmr.PsmrExecutor}: the adapter that runs the workers behind
 *       the {@link dev.parallax.core.spi.Executor} SPI on a replica that delivers one total order
 *       (also through {@link dev.parallax.scheduler.Execution#psmr(int)}).</li>
 * </ul>
 */
package dev.parallax.scheduler.psmr;
