package dev.parallax.ringpaxos;

import java.util.List;
import java.util.Objects;

/**
 * Type 20, member → successor: U-Ring's circulating packet (seed 003 (Ring Paxos) Alg. 3; §3.5.2):
 * combined Phase 2A/2B entries, decisions, and proposals piggy-backed on their way to the
 * coordinator. Immutable (lists are copied, byte buffers are read-only views no one mutates:
 * readers use absolute reads or {@code duplicate()}); thread-safe.
 *
 * @param round the round
 * @param ring the round's ring
 * @param phase2 Phase 2 entries, voted by every acceptor before this hop
 * @param decisions decisions, with the body until the value's proposer's predecessor
 * @param proposals proposals riding to the coordinator
 */
public record UPacket(long round, Ring ring, List<Phase2Entry> phase2, List<DecisionEntry> decisions,
                      List<ProposalEntry> proposals) implements RingUnicast {
    /** @throws NullPointerException if {@code ring} or a list is null; copies the lists */
    public UPacket {
        Objects.requireNonNull(ring, "ring");
        phase2 = List.copyOf(phase2);
        decisions = List.copyOf(decisions);
        proposals = List.copyOf(proposals);
    }
}
