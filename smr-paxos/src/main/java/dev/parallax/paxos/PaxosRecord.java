package dev.parallax.paxos;

/**
 * What an acceptor writes to its durable log before it answers (Paxos' stable-storage rule:
 * a promise or vote is remembered across a crash). Immutable.
 */
public sealed interface PaxosRecord {

    /** The acceptor promised to ignore views below {@code view}. */
    record Promise(long view) implements PaxosRecord {
    }

    /** The acceptor accepted {@code value} for {@code instance} in {@code view} (implies a promise of {@code view}). */
    record Vote(long instance, long view, Value value) implements PaxosRecord {
    }

    /**
     * A snapshot covers every instance below {@code instance}: votes below it were dropped. Written
     * by compaction, followed by the promise and every vote still held, after which the log is
     * truncated before this record.
     */
    record Trim(long instance) implements PaxosRecord {
    }

    /**
     * {@code instance} was decided with the value of this acceptor's vote for it in {@code view}
     * (the common case: the value is not written twice). Written unsynced when the learner decides;
     * replayed into the state machine at restart. Losing it is harmless: peers supply the decision.
     */
    record Decided(long instance, long view) implements PaxosRecord {
    }

    /**
     * {@code instance} was decided with {@code value}, written when this acceptor holds no vote
     * with that value (it learned the decision by catch-up, or before voting). Like {@link Decided}.
     */
    record Decision(long instance, Value value) implements PaxosRecord {
    }

    /**
     * The replica's membership history ({@code MembershipHistory#encode}) as of a compaction: the
     * memberships the instances kept after the trim point use, and the last instance applied.
     * Written by compaction before the trim, so that a restart knows the members of every instance
     * the log still holds, although the configuration commands that made them are trimmed.
     */
    record Members(byte[] history) implements PaxosRecord {
        public Members {
            history = history.clone();
        }

        @Override
        public byte[] history() {
            return history.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Members m && java.util.Arrays.equals(history, m.history);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(history);
        }

        @Override
        public String toString() {
            return "Members[" + history.length + "B]";
        }
    }
}
