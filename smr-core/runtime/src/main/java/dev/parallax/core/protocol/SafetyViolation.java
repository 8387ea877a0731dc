package dev.parallax.core.protocol;

import java.util.Objects;

/**
 * A broken safety property a core observed in its inputs: the learner of this member heard two
 * different decisions for one instance. Consensus never decides two values for an instance (Paxos
 * agreement, Lamport, "Paxos Made Simple" §2), so the second one proves that a peer is faulty or
 * forged, or that this member's own state is corrupt. A core reports it as an effect
 * ({@link Effects#safetyViolation}) and keeps what it had; the driver raises the alarm and stops
 * this replica rather than let it diverge ({@link EffectApplier}, {@link SafetyAlarm}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param instance    the instance decided twice
 * @param kept        where the decision this member had come from (the one it keeps)
 * @param conflicting where the different decision came from
 */
public record SafetyViolation(long instance, Origin kept, Origin conflicting) {

    /** The sender of an {@link Origin} that came from no peer: this member's own log or its own quorum count. */
    public static final int LOCAL = -1;

    /**
     * Where one decision came from.
     *
     * @param sender  the member whose message carried it, or {@link #LOCAL}
     * @param via     what carried it: a message type, or how this member learned it (its log, its quorum)
     * @param round   the round, view or ballot the message was sent in, or -1 if it names none
     * @param value   the decided value's identity (a value id, or a short digest of the value)
     */
    public record Origin(int sender, String via, long round, String value) {
        public Origin {
            Objects.requireNonNull(via, "via");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return "value " + value + " from " + (sender == LOCAL ? "this member" : "member " + sender) + " (" + via
                    + (round >= 0 ? ", round " + round : "") + ")";
        }
    }

    public SafetyViolation {
        Objects.requireNonNull(kept, "kept");
        Objects.requireNonNull(conflicting, "conflicting");
    }

    /** One line for an operator: the instance and both decisions' origins. */
    public String describe() {
        return "two different decisions for instance " + instance + ": kept " + kept + ", then " + conflicting;
    }
}
