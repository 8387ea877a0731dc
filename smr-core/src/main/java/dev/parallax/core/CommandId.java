package dev.parallax.core;

/**
 * The identity of a client command: the client's id and the command's sequence number in that
 * client's session. Replicas use it to execute a retried command once (the reply cache keeps the
 * last reply per client).
 *
 * <p>Immutable and thread-safe.
 *
 * @param clientId  identifies the client session; unique across the cluster's clients
 * @param sequence  the command number within the session; {@code SmrClient} starts at 1 and adds one
 *                  per new command, and a retry reuses the number. 0 is valid and sorts first (it
 *                  is never issued by the client library, so tools may use it as "before any")
 */
public record CommandId(long clientId, long sequence) implements Comparable<CommandId> {

    /**
     * @throws IllegalArgumentException if {@code sequence} is negative
     */
    public CommandId {
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence must be >= 0, got " + sequence);
        }
    }

    @Override
    public int compareTo(CommandId o) {
        int c = Long.compare(clientId, o.clientId);
        return c != 0 ? c : Long.compare(sequence, o.sequence);
    }

    @Override
    public String toString() {
        return clientId + ":" + sequence;
    }
}
