package dev.parallax.ringpaxos;

/**
 * Every message a Ring Paxos core sends or receives (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 3): the TCP messages ({@link RingUnicast}: the engine's, U-Ring's and M-Ring's) and M-Ring's
 * datagram ({@link MPacket}, §3.3.2). The message type of the core's transport, a union of the two
 * channels (routed by type, each with its own codec: the wire forms are {@link RingCodec}'s and
 * {@link MPacketCodec}'s). Implementations are immutable and thread-safe.
 */
public sealed interface RingWire permits RingUnicast, MPacket {
}
