package dev.parallax.ringpaxos;

/**
 * Every Ring Paxos message sent over TCP (channels {@code uring} and {@code mring}): the shared
 * engine's {@link RingMessage}s, U-Ring's circulating {@link UPacket}, and M-Ring's
 * {@link MRingMessage}s. The datagram {@link MPacket} is not one, so the routes of a channel union
 * (by type) never overlap. Wire form: {@link RingCodec}. Implementations are immutable and
 * thread-safe.
 */
public sealed interface RingUnicast extends RingWire permits RingMessage, UPacket, MRingMessage {
}
