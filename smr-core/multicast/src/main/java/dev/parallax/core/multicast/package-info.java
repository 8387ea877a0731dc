/**
 * A protocol-independent atomic multicast over one {@link dev.parallax.core.spi.AtomicBroadcast}
 * per stream (one per group by default — several groups may share one — and a global one for
 * messages to groups of several streams), each run by all or a subset of the processes, merged deterministically
 * by every subscriber (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1):
 * {@link dev.parallax.core.multicast.StreamMulticast} is the entry point, configured by a
 * {@link dev.parallax.core.multicast.StreamFactory} and three strategies
 * ({@link dev.parallax.core.multicast.Routing}, {@link dev.parallax.core.multicast.SkipPolicy},
 * {@link dev.parallax.core.multicast.Numbering}). Multi-Paxos' configuration (the reference
 * multicast) is {@code dev.parallax.paxos.multicast.PaxosMulticast}, Multi-Ring Paxos' is
 * {@code dev.parallax.ringpaxos.multiring.RingMulticast}. In a replica, any such multicast is the
 * ordering protocol {@link dev.parallax.core.multicast.StreamOrdering}, built from a
 * {@link dev.parallax.core.multicast.StreamPlan} ({@code PaxosStreamPlan}, {@code MultiRingPlan}).
 *
 * <p>Loss rules: the forward transport may drop messages (as TCP does while a connection is not
 * up); the origin of a message keeps it until it sees it decided and resends it along its route
 * after {@code resendAfter}, with back-off (an origin that does not run the stream learns of the
 * decision from a decided notice of the member it forwarded to), so an accepted message is lost only if its origin
 * crashes (or its stream continues from a snapshot at the origin while it is outstanding). A
 * message decided twice is delivered once, at the same position by every subscriber: envelopes
 * carry {@code (origin, sequence)} and each stream keeps a bounded per-origin record of what it
 * decided.
 */
package dev.parallax.core.multicast;
