/**
 * The reference atomic multicast: one Multi-Paxos instance per group plus a global one for
 * multi-group messages, merged deterministically by every subscriber (seed 003 (Ring Paxos /
 * Multi-Ring / P-SMR) ch. 5). {@link dev.parallax.paxos.multicast.PaxosMulticast} is the entry
 * point; {@link dev.parallax.paxos.multicast.ReplicaMulticast} builds it on a replica's port. It
 * passes the testkit's {@code AtomicMulticastContract} and is the baseline later multicast
 * protocols are compared with.
 *
 * <p>Loss rules: the forward transport may drop messages (as TCP does while a connection is not
 * up); the origin of a message keeps it until it sees it decided and resends it to the stream's
 * leader after {@code resendAfter}, with back-off, so an accepted message is lost only if its
 * origin crashes (or its stream continues from a snapshot at the origin while it is outstanding).
 * A message decided twice is delivered once, at the same position by every subscriber: envelopes
 * carry {@code (origin, sequence)} and each stream keeps a bounded per-origin record of what it
 * decided.
 */
package dev.parallax.paxos.multicast;
