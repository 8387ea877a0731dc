package dev.parallax.ringpaxos;

import java.util.List;
import java.util.Objects;

/**
 * Type 40, M-Ring coordinator → datagram group {@code mring-mcast}: Phase 2A entries and decisions
 * in one datagram (seed 003 (Ring Paxos) Alg. 2 l.18/l.34; §3.3.2 last ¶; §3.5.2 "two parts"). Not a
 * {@link RingUnicast}: it never travels over TCP. Wire form: {@link MPacketCodec}, whose
 * {@code size} lets the coordinator fill a datagram. Immutable (lists are copied, byte buffers are
 * read-only views no one mutates: readers use absolute reads or {@code duplicate()}); thread-safe.
 *
 * @param round the round
 * @param ring the round's ring (who votes, who forwards the 2B chain)
 * @param decisions id-only decisions
 * @param proposals Phase 2A entries
 */
public record MPacket(long round, Ring ring, List<InstanceVid> decisions, List<Phase2Entry> proposals) implements RingWire {
    /** @throws NullPointerException if {@code ring} or a list is null; copies the lists */
    public MPacket {
        Objects.requireNonNull(ring, "ring");
        decisions = List.copyOf(decisions);
        proposals = List.copyOf(proposals);
    }
}
