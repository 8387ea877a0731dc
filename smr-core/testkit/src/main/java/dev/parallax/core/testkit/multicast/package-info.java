/**
 * Atomic multicast simulation parts, protocol-independent: {@link
 * dev.parallax.core.testkit.multicast.LogicalMerge}, a learner's single-threaded merge of logically
 * numbered streams (the reference of {@code DecidedStreams} in {@code Numbering.LOGICAL} mode, which
 * blocks its reader), with deliberate flaws for the checkers' own tests; and {@link
 * dev.parallax.core.testkit.multicast.MulticastDeliveryChecker}, the checks of a run with many
 * learners (exactly-once, integrity, agreement per subscription, acyclic union of the delivery orders,
 * uniform agreement and validity after the heal). Used by smr-ringpaxos' Multi-Ring simulation.
 * Simulator thread only.
 */
package dev.parallax.core.testkit.multicast;
