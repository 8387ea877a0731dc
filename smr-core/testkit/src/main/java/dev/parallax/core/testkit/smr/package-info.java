/**
 * Protocol-independent parts of a state-machine-replication simulation, for every ordering
 * protocol's simulated replicas (smr-paxos' Multi-Paxos and S-Paxos, smr-ringpaxos): simulated
 * clients and their workload ({@code SimClient}, {@code ClientWorkload}, {@code ClientMessage}), the
 * service half of a replica ({@code SimService} over the production session layer, {@code KvCommands},
 * {@code SnapshotShelf}), what the harness reads of a replica ({@code SmrNode}), counters and
 * byte accounting ({@code ReplicaCounters}, {@code WireBytes}), the crash driver for amnesia runs
 * ({@code AmnesiaPlan}), and monitors. Everything here runs on the simulation's single thread.
 */
package dev.parallax.core.testkit.smr;
