/**
 * Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 3; PROTOCOLS.md §3): one deterministic
 * core, {@code RingPaxosCore}, with a shared engine (rounds, Phase 1, acceptor, learner, catch-up,
 * proposer, failure handling, ring re-formation, versions, compaction, recovery from amnesia) and one
 * of two dissemination variants: U-Ring (seed 003 §3.3.3, Alg. 3: a packet circulates over a ring of
 * every member, all TCP) or M-Ring (seed 003 §3.3.2, Alg. 2: the coordinator multicasts Phase 2A and
 * decisions in datagrams, the ring's acceptors — a majority of the n members — chain their Phase 2B
 * over TCP).
 *
 * <p>The value and message types are immutable: {@link dev.parallax.ringpaxos.ValueId},
 * {@link dev.parallax.ringpaxos.Ring}, {@link dev.parallax.ringpaxos.RingValue}, the unicast messages
 * ({@link dev.parallax.ringpaxos.RingUnicast}: {@link dev.parallax.ringpaxos.RingMessage},
 * {@link dev.parallax.ringpaxos.UPacket}, {@link dev.parallax.ringpaxos.MRingMessage}), the datagram
 * {@link dev.parallax.ringpaxos.MPacket}, and the durable {@link dev.parallax.ringpaxos.RingRecord}s.
 * Their wire forms: {@link dev.parallax.ringpaxos.RingCodec}, {@link dev.parallax.ringpaxos.MPacketCodec},
 * {@link dev.parallax.ringpaxos.RingRecordCodec}; the ranges a correct member's numbers stay in:
 * {@link dev.parallax.ringpaxos.RingWireBounds}.
 *
 * <p>The package uses no network library, no {@code core.net} and no threads: the runtime of smr-core
 * runs the core. See docs/protocols/ring-paxos.md.
 */
package dev.parallax.ringpaxos;
