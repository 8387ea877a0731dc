package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;
import dev.parallax.core.WrongPartitions;

/**
 * Thrown by {@link ExecutionContext#require} when a command reached too few partitions (seed 004
 * (S-SMR) §IV: the oracle must return a superset of part(C)). Its message is
 * {@link WrongPartitions#message}, so the client library reads the wider set back from the
 * error reply and retries with it. Immutable.
 */
public final class WrongPartitionsException extends RuntimeException {
    private final transient GroupSet needed;

    /** @param needed every partition the command needs (the set the client should retry with) */
    public WrongPartitionsException(GroupSet needed) {
        super(WrongPartitions.message(needed).substring("WrongPartitions: ".length()), null, false, false);
        this.needed = needed;
    }

    /** Every partition the command needs. */
    public GroupSet needed() {
        return needed;
    }
}
