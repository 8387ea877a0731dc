package dev.parallax.scheduler.ssmr;

/**
 * A copy of {@link SsmrCore}'s counters (for metrics and tests). Immutable.
 *
 * @param skipped           delivered commands not for this partition (or duplicate deliveries)
 * @param earlyBuffered     signals/values buffered before their command was delivered
 * @param earlyRefused      early messages refused because the buffer was at its bounds
 * @param earlyExpired      buffered early entries dropped after {@link SsmrConfig#earlyTtlNanos}
 * @param late              messages for commands already finished here, dropped
 * @param duplicates        signals/values a partition had already given for the command
 * @param foreign           messages from this partition or about commands not involving this
 *                          partition or the sender, dropped
 * @param requestsSent      retransmission requests sent
 * @param requestsAnswered  retransmission requests answered
 * @param pushedAhead       values or signals of later finished commands sent with the answer to a
 *                          request for a finished one (the asker is behind: catch-up)
 * @param finished          commands finished (replied)
 * @param earlyCommands     commands with buffered early messages now
 * @param earlyBytes        bytes charged to the early buffer now
 */
public record SsmrCounters(long skipped, long earlyBuffered, long earlyRefused, long earlyExpired, long late,
                           long duplicates, long foreign, long requestsSent, long requestsAnswered, long pushedAhead, long finished,
                           int earlyCommands, long earlyBytes) {
}
