/**
 * Volery's ZooKeeper data model (seed 004 (S-SMR / Eyrie / Volery) §V-B): a deterministic,
 * sequential znode tree ({@link dev.parallax.examples.volery.ZnodeTree}) with ZooKeeper's
 * {@link dev.parallax.examples.volery.Stat}, error codes ({@link dev.parallax.examples.volery.ZkCode}),
 * sequential nodes, snapshot and digest; the command encoding
 * ({@link dev.parallax.examples.volery.VoleryCommand}) and the oracle that names a command's
 * partitions ({@link dev.parallax.examples.volery.VoleryOracle}: CRC32(path) mod P, create and
 * delete to every partition). Free of replication: zxids and times are inputs of each operation.
 */
package dev.parallax.examples.volery;
