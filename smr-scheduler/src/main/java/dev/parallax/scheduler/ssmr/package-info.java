/**
 * Scalable State Machine Replication (seed 004 (S-SMR) §IV): a service whose state is split into
 * partitions, each replicated by its own group and ordered by atomic multicast; a command goes to
 * the partitions an oracle names, and the involved partitions exchange signals and the values the
 * command reads so that its execution is atomic (Fig. 1) and the service linearizable.
 *
 * <p>Pieces: {@link dev.parallax.scheduler.ssmr.SsmrCore} (one replica's execution as a pure step
 * function), {@link dev.parallax.scheduler.ssmr.SsmrDriver} (performs its effects),
 * {@link dev.parallax.scheduler.ssmr.SsmrExecutor} (the replica's {@code Executor}, one thread),
 * {@link dev.parallax.scheduler.ssmr.SsmrStateMachine} (what the replica snapshots),
 * {@link dev.parallax.scheduler.ssmr.PartitionLinks} and
 * {@link dev.parallax.scheduler.ssmr.PartitionMessageCodec} (the {@code ssmr} channel),
 * {@link dev.parallax.scheduler.ssmr.RemoteValuesLog} (replay).
 */
package dev.parallax.scheduler.ssmr;
