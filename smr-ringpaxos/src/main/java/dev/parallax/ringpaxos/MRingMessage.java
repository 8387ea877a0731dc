package dev.parallax.ringpaxos;

import java.util.List;
import java.util.Objects;

/**
 * M-Ring's unicast (TCP) messages (seed 003 (Ring Paxos) Alg. 2): the Phase 2B chain and the
 * Phase 2A of a value too big for a datagram. Frame types 30–31 of {@link RingCodec}. Immutable
 * (lists are copied, byte buffers are read-only views no one mutates); thread-safe.
 */
public sealed interface MRingMessage extends RingUnicast {

    /**
     * Type 30, ring acceptor → successor: the Phase 2B votes of every ring acceptor up to the sender
     * (Alg. 2 Task 5, l.26–33).
     *
     * @param round the round
     * @param votes the instances and value ids voted
     */
    record Phase2B(long round, List<InstanceVid> votes) implements MRingMessage {
        /** Copies {@code votes}. */
        public Phase2B {
            votes = List.copyOf(votes);
        }
    }

    /**
     * Type 31, M-Ring coordinator → ring acceptors: Phase 2A of values too big for a datagram
     * (spares and learners fetch them by catch-up).
     *
     * @param round the round
     * @param ring the round's ring
     * @param values the Phase 2A entries
     */
    record Phase2AUnicast(long round, Ring ring, List<Phase2Entry> values) implements MRingMessage {
        /** @throws NullPointerException if {@code ring} is null; copies {@code values} */
        public Phase2AUnicast {
            Objects.requireNonNull(ring, "ring");
            values = List.copyOf(values);
        }
    }
}
