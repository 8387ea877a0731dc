package dev.parallax.paxos.spaxos;

import dev.parallax.paxos.PaxosRecord;

import java.util.Objects;

/**
 * A durable record of {@link SPaxosCore}, in the one log {@code spaxos}: the ordering layer's
 * ({@link Ordering}: promises, votes on id lists, decisions, trims) or the dissemination layer's
 * ({@link Dissemination}: bodies, the incarnation). One log means one group commit syncs a body and
 * a vote together. Encoded by {@link SPaxosRecordCodec}.
 *
 * <p>Immutable value types.
 */
public sealed interface SPaxosRecord {

    /** A record of the Multi-Paxos core that orders ids. */
    record Ordering(PaxosRecord record) implements SPaxosRecord {
        public Ordering {
            Objects.requireNonNull(record, "record");
        }

        @Override
        public String toString() {
            return record.toString();
        }
    }

    /** A record of the dissemination core. */
    record Dissemination(DisseminationRecord record) implements SPaxosRecord {
        public Dissemination {
            Objects.requireNonNull(record, "record");
        }

        @Override
        public String toString() {
            return record.toString();
        }
    }
}
