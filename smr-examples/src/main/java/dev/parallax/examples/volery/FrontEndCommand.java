package dev.parallax.examples.volery;

/**
 * A front end's command about its watches at one partition ({@link WatchPoll}, {@link WatchDrop}):
 * it names no path and goes to {@link #partition()} whatever the oracle's path rule; it changes no
 * znode and consumes no zxid. Implementations are immutable; safe from any thread; never block.
 */
public sealed interface FrontEndCommand extends VoleryCommand permits WatchPoll, WatchDrop {
    /** The partition the command goes to. */
    int partition();

    /** The front end's server id. */
    int frontEnd();

    @Override
    default String path() {
        return "";
    }

    @Override
    default int targetPartition() {
        return partition();
    }

    /** @throws IllegalArgumentException unless partition &gt;= 0 and the front end is in range */
    static void check(String what, int partition, int frontEnd, long value) {
        if (partition < 0 || frontEnd < 0 || frontEnd > Watcher.MAX_FRONT_END) {
            throw new IllegalArgumentException(what + " out of range: " + partition + "/" + frontEnd + "/" + value);
        }
    }
}
