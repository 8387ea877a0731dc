/**
 * Scalable State Machine Replication (seed 004 (S-SMR) §IV): a service whose state is split into
 * partitions, each replicated by its own group and ordered by atomic multicast; a command goes to
 * the partitions an oracle names, and the involved partitions exchange signals and the values the
 * command reads so that its execution is atomic (Fig. 1) and the service linearizable.
 */
package dev.parallax.scheduler.ssmr;
