package dev.parallax.core;


import java.util.Optional;

/**
 * The error a partitioned execution returns when a command was sent to too few partitions: the
 * client's oracle under-approximated (seed 004 (S-SMR) §IV, "the oracle returns a superset of
 * part(C)"; when it does not, the command fails deterministically and the client retries with a
 * wider set). The replicas execute nothing of the command and every replica of every involved partition
 * returns the same message, so the error reaches the client as a {@code dev.parallax.core.client.CommandRejectedException}
 * whose message {@link #parse} reads back.
 *
 * <p>Format: {@code WrongPartitions: needs <bits>} where {@code <bits>} is the hexadecimal
 * {@link GroupSet#bits()} of every partition the command needs (a superset of those it was sent to).
 * Stateless; thread-safe.
 */
public final class WrongPartitions {
    private static final String NAME = "WrongPartitions";
    private static final String NEEDS = "needs ";
    private static final String PREFIX = NAME + ": " + NEEDS;

    private WrongPartitions() {
    }

    /** The error message telling the client that the command needs {@code needed}. */
    public static String message(GroupSet needed) {
        return PREFIX + Long.toHexString(needed.bits());
    }

    /**
     * The partitions an error message of {@link #message} names (also as the replica reports a
     * thrown {@code WrongPartitionsException}: {@code WrongPartitionsException: needs <bits>});
     * empty for any other message.
     */
    public static Optional<GroupSet> parse(String error) {
        if (error == null) {
            return Optional.empty();
        }
        int at = error.indexOf(NAME);
        int needs = at < 0 ? -1 : error.indexOf(NEEDS, at + NAME.length());
        if (needs < 0 || error.substring(at + NAME.length(), needs).chars().anyMatch(c -> c != ':' && !Character.isLetter(c)
                && c != ' ')) {
            return Optional.empty();
        }
        String hex = error.substring(needs + NEEDS.length()).trim();
        int end = 0;
        while (end < hex.length() && Character.digit(hex.charAt(end), 16) >= 0) {
            end++;
        }
        if (end == 0 || end > 16) {
            return Optional.empty();
        }
        long bits = Long.parseUnsignedLong(hex.substring(0, end), 16);
        return bits == 0 ? Optional.empty() : Optional.of(GroupSet.ofBits(bits));
    }
}
