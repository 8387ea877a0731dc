package dev.parallax.core.protocol;

/**
 * A protocol message that only wraps a channel's own message, so that the channel's type can join
 * a sealed union of a composed core's messages it cannot be a subtype of (its type belongs to
 * another package): S-Paxos' ordering messages, a Multi-Paxos message in a wrapper (seed 002
 * (S-Paxos) §IV), whose route of the channel union unwraps it before the channel's codec
 * ({@code Channels.Route.wrapping}). The wrapper is not a message type of its own:
 * {@link ProtocolStage}'s per-type meters ({@code parallax.protocol.messages.sent.by.type},
 * {@code ...received.by.type}) count it by the wrapped message's type, so a wrapped message is
 * counted as it would be bare.
 *
 * <p>Implementations are immutable and thread-safe.
 */
public interface MessageWrapper {

    /** The wrapped message, never null. */
    Object wrapped();
}
