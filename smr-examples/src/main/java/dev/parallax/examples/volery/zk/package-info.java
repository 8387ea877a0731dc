/**
 * Volery's ZooKeeper front end (seed 004 (S-SMR / Eyrie / Volery) §V-B): {@link
 * dev.parallax.examples.volery.zk.ZkServer} speaks ZooKeeper's client wire protocol (zookeeper-jute
 * records) and executes znode operations on a {@link dev.parallax.examples.volery.zk.VoleryBackend} —
 * the replicated S-SMR client, or {@link dev.parallax.examples.volery.zk.LocalVoleryBackend} in
 * process.
 */
package dev.parallax.examples.volery.zk;
