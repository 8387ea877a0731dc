/**
 * The reference atomic multicast: one Multi-Paxos instance per group plus a global one for
 * multi-group messages, merged deterministically by every subscriber (seed 003 (Ring Paxos /
 * Multi-Ring / P-SMR) ch. 5). {@link dev.parallax.paxos.multicast.PaxosMulticast} is the entry
 * point, a configuration of smr-core's protocol-independent
 * {@link dev.parallax.core.multicast.StreamMulticast} (leader routing, demand-driven skips,
 * instance numbering); {@link dev.parallax.paxos.multicast.PaxosStreamPlan} is its plan for
 * smr-core's {@link dev.parallax.core.multicast.StreamOrdering}, which builds it on a replica's
 * port ({@link dev.parallax.paxos.multicast.MulticastOrdering#protocol}). It passes the testkit's {@code AtomicMulticastContract} and is the baseline
 * later multicast protocols are compared with.
 */
package dev.parallax.paxos.multicast;
