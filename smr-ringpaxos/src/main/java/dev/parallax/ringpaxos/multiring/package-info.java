/**
 * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5): atomic multicast by one
 * Ring Paxos ring per group plus a global ring for multi-group messages, each ring's coordinator
 * deciding skips at rate λ, merged deterministically by every subscriber on the rings' logical
 * sequences. {@link dev.parallax.ringpaxos.multiring.RingMulticast} is the entry point, a
 * configuration of smr-core's {@link dev.parallax.core.multicast.StreamMulticast}. Each ring may
 * run on a subset of the processes and several groups may share a ring
 * ({@link dev.parallax.ringpaxos.multiring.MultiRingTopology}, the cluster-file keys): a learner
 * runs, and subscribes to, only the rings it needs (§5.2).
 */
package dev.parallax.ringpaxos.multiring;
