package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

/**
 * Where a command executes under S-SMR: this replica's partition, how many partitions the service
 * has, and the partitions the command was multicast to (its {@code dests}, seed 004 (S-SMR) §IV
 * Alg. 1 l.5-6). Partitions are numbered {@code 0..partitions()-1}, partition {@code p} being
 * multicast group {@code p}.
 *
 * <p>Valid only during the call it is passed to; used on the executing thread only.
 */
public interface PartitionView {
    /** This replica's partition. */
    int partition();

    /** How many partitions the service state is split into. */
    int partitions();

    /** The partitions the command was multicast to; always contains {@link #partition()}. */
    GroupSet involved();
}
