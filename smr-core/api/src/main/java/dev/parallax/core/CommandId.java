package dev.parallax.core;

import java.util.Objects;

/**
 * The identity of a client command: the client's id, the command's stream and its sequence number
 * in that stream. Replicas use it to execute a retried command once (the reply cache keeps the
 * last replies per session).
 *
 * <p><b>Streams.</b> A command's stream is its destination {@link GroupSet}: every ordering
 * protocol we build (Multi-Paxos, S-Paxos, the Ring Paxos family, Multi-Ring's deterministic merge —
 * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5) delivers all commands addressed to one group
 * set in one order at every replica that delivers them, while commands to different sets may be
 * interleaved differently at different replicas. So a client numbers its commands per stream
 * (1, 2, 3, ... in each), and the replicas keep one session per (client, stream): commands spread
 * over several streams never look like gaps in one another. A client that sends to only one
 * stream — the {@link GroupSet#DEFAULT default group} of every command that names none — has the
 * single per-client session of before.
 *
 * <p>Immutable and thread-safe.
 *
 * @param clientId identifies the client; unique across the cluster's clients
 * @param groups   the command's destination and session stream ({@link GroupSet#DEFAULT} if it
 *                 names none)
 * @param sequence the command number within the (client, stream) session; {@code SmrClient} starts
 *                 at 1 and adds one per new command in the stream, and a retry reuses the number. 0
 *                 is valid and sorts first (it is never issued by the client library, so tools may
 *                 use it as "before any")
 */
public record CommandId(long clientId, GroupSet groups, long sequence) implements Comparable<CommandId> {

    /**
     * @throws IllegalArgumentException if {@code sequence} is negative
     * @throws NullPointerException     if {@code groups} is null
     */
    public CommandId {
        Objects.requireNonNull(groups, "groups");
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence must be >= 0, got " + sequence);
        }
    }

    /** A command of the default stream, {@link GroupSet#DEFAULT}. */
    public CommandId(long clientId, long sequence) {
        this(clientId, GroupSet.DEFAULT, sequence);
    }

    /** Orders by client, then stream (by its group bits, unsigned), then sequence. */
    @Override
    public int compareTo(CommandId o) {
        int c = Long.compare(clientId, o.clientId);
        if (c == 0) {
            c = Long.compareUnsigned(groups.bits(), o.groups.bits());
        }
        return c != 0 ? c : Long.compare(sequence, o.sequence);
    }

    /** {@code client:sequence} in the default stream, {@code client:{groups}:sequence} otherwise. */
    @Override
    public String toString() {
        return groups.isDefault() ? clientId + ":" + sequence : clientId + ":" + groups + ":" + sequence;
    }
}
