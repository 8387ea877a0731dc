/**
 * Volery, ZooKeeper's data model partitioned by S-SMR (seed 004 (S-SMR / Eyrie / Volery) §V-B): a
 * deterministic, sequential znode tree ({@link dev.parallax.examples.volery.ZnodeTree}) with
 * ZooKeeper's {@link dev.parallax.examples.volery.Stat}, error codes
 * ({@link dev.parallax.examples.volery.ZkCode}), sequential nodes, snapshot and digest; the commands
 * ({@link dev.parallax.examples.volery.VoleryCommand}, a record per command type, encoded by
 * {@code VoleryCodec}) and the reply encoding
 * ({@link dev.parallax.examples.volery.ZkReply}); the oracle that names a command's partitions
 * ({@link dev.parallax.examples.volery.VoleryOracle}: CRC32(path) mod P, create and delete to every
 * partition); and one partition of the replicated service
 * ({@link dev.parallax.examples.volery.VoleryPartition}, a
 * {@link dev.parallax.scheduler.ssmr.PartitionedStateMachine}), which derives zxids from its own
 * counters and takes times from the commands.
 */
package dev.parallax.examples.volery;
