package dev.parallax.core.spi;

/**
 * The answers of a {@link ReadIndex}: each read asked gets exactly one, {@link #ready} or
 * {@link #failed}.
 *
 * <p>Threads: called on the ordering protocol's thread; must not block.
 */
public interface ReadListener {
    /** {@link #failed} hint: this ordering has no read path; the client orders its read as a command. */
    int UNSUPPORTED = -2;
    /** {@link #failed} hint: no leader is known; the client tries again (elsewhere, or later). */
    int NO_LEADER = -1;

    /**
     * Read {@code read} may run once every decision below {@code position} was delivered and
     * executed here: every command that completed before the read was asked lies below it.
     */
    void ready(long read, long position);

    /**
     * Read {@code read} cannot be served here now: this replica lost or never confirmed its
     * leadership, its leader did not answer in time, or the ordering has no read path
     * ({@link #UNSUPPORTED}).
     *
     * @param leaderHint the replica believed to lead, {@link #NO_LEADER}, or {@link #UNSUPPORTED}
     */
    void failed(long read, int leaderHint);
}
