package dev.parallax.ringpaxos;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * What a Ring Paxos member writes to its durable log (seed 003 (Ring Paxos) §3.3.5, "the second
 * way": acceptors log before they answer). <b>Votes are durable before they are forwarded</b>: every
 * step that reveals a vote persists its {@link VoteRecord} synced, and the effect applier syncs
 * before any send. The ring needs no record. Binary form: {@link RingRecordCodec} (tags 1..7).
 * Immutable (byte buffers are read-only views no one mutates: readers use absolute reads or
 * {@code duplicate()}); thread-safe.
 */
public sealed interface RingRecord {

    /**
     * Synced: the member promised to ignore rounds below {@code round} (Alg. 2/3 Task 2); also the
     * coordinator's own promise before its {@code Phase1A} leaves, so a restart never reuses a round.
     *
     * @param round the promised round
     */
    record Promise(long round) implements RingRecord {
    }

    /**
     * Synced: the member voted {@code vid} with body {@code value} for {@code instance} in
     * {@code round} (implies a promise of {@code round}).
     *
     * @param instance the instance
     * @param round the round
     * @param vid the value id
     * @param value the body
     */
    record VoteRecord(long instance, long round, ValueId vid, ByteBuffer value) implements RingRecord {
        /** @throws NullPointerException if {@code vid} or {@code value} is null */
        public VoteRecord {
            Objects.requireNonNull(vid, "vid");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Unsynced: {@code instance} was decided with {@code vid}, whose body this member holds as its
     * own vote or proposal (not written twice). Losing it is harmless: peers supply the decision.
     *
     * @param instance the instance
     * @param vid the decided value id
     */
    record Decided(long instance, ValueId vid) implements RingRecord {
        /** @throws NullPointerException if {@code vid} is null */
        public Decided {
            Objects.requireNonNull(vid, "vid");
        }
    }

    /**
     * Unsynced: {@code instance} was decided with {@code vid} and body {@code value}, written when the
     * member holds no vote or proposal with that body (learned by catch-up or as a learner).
     *
     * @param instance the instance
     * @param vid the decided value id
     * @param value the body
     */
    record Decision(long instance, ValueId vid, ByteBuffer value) implements RingRecord {
        /** @throws NullPointerException if {@code vid} or {@code value} is null */
        public Decision {
            Objects.requireNonNull(vid, "vid");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Synced: a snapshot covers every instance below {@code instance}; votes and decisions below it
     * were dropped. Written by compaction, followed by the promise and every vote still held.
     *
     * @param instance the first instance not covered
     */
    record Trim(long instance) implements RingRecord {
    }

    /**
     * Synced before the first proposal of an incarnation leaves: value ids of this member use
     * {@code incarnation} ({@link ValueId}; one body per id).
     *
     * @param incarnation the incarnation
     */
    record Incarnation(long incarnation) implements RingRecord {
    }

    /**
     * Synced: the membership history ({@code MembershipHistory#encode}) as of a compaction, so a
     * restart knows the members although the configuration commands that made them were trimmed
     * ({@link RingGroup}). A log without one (an older log, or a ring whose members never changed)
     * starts from the cluster file's members.
     *
     * @param history the encoded history (copied in and out)
     */
    record Members(byte[] history) implements RingRecord {
        /** @throws NullPointerException if {@code history} is null */
        public Members {
            history = history.clone();
        }

        @Override
        public byte[] history() {
            return history.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Members m && java.util.Arrays.equals(m.history, history);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(history);
        }

        @Override
        public String toString() {
            return "Members(" + history.length + " bytes)";
        }
    }
}
