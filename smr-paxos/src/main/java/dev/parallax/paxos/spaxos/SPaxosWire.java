package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.MessageWrapper;
import dev.parallax.paxos.PaxosMessage;

import java.util.Objects;

/**
 * Every message an S-Paxos core sends or receives (seed 002 (S-Paxos) §IV): the dissemination
 * layer's {@link DisseminationMessage}s (§IV-A, Alg. 1; channel {@code spaxos-dissem}) and the
 * ordering layer's {@link PaxosMessage}s, each wrapped in an {@link Ordering} (channel
 * {@code spaxos-order}). The message type of {@link SPaxosCore}, {@link SPaxosBroadcast} and their
 * transport, a union of the two channels ({@link SPaxos}) routed by type, each channel with its own
 * codec: the wire forms are {@link DisseminationCodec}'s and {@code PaxosMessageCodec}'s, and an
 * {@link Ordering} never reaches a codec (its route unwraps it on send and wraps what it receives),
 * so the bytes on the wire are the bare {@link PaxosMessage}'s.
 *
 * <p>{@link PaxosMessage} belongs to the Multi-Paxos package, which knows nothing of S-Paxos, so
 * it is wrapped rather than made a subtype.
 *
 * <p>Implementations are immutable value types, safe to share between threads.
 */
public sealed interface SPaxosWire permits DisseminationMessage, SPaxosWire.Ordering {

    /**
     * A message of the ordering layer (the unchanged Multi-Paxos core ordering batch ids,
     * §IV-A Alg. 1 l.16–18) as S-Paxos carries it. Its {@code toString} is the wrapped message's,
     * so traces read as the ordering layer's own, and, a {@link MessageWrapper}, it is counted
     * as that message's type by the runtime's per-type meters. Immutable and thread-safe.
     *
     * @param message the ordering layer's message, not null
     */
    record Ordering(PaxosMessage message) implements SPaxosWire, MessageWrapper {
        public Ordering {
            Objects.requireNonNull(message, "message");
        }

        @Override
        public PaxosMessage wrapped() {
            return message;
        }

        @Override
        public String toString() {
            return message.toString();
        }
    }
}
