package dev.parallax.core.testkit;

/**
 * Process faults a {@link Simulation}'s nemesis injects besides the network faults and single
 * crashes of its {@link FaultPlan}, enabled with
 * {@link Simulation#processFaults(ProcessFaults)}:
 * <ul>
 *   <li><b>Pauses</b>: a replica freezes (a stop-the-world GC, a stopped VM, {@code SIGSTOP}) for a
 *       duration drawn uniformly in [{@code minPause}, {@code maxPause}]: no ticks, no deliveries
 *       (arrivals queue up and are processed in order when it resumes); messages it had sent but that
 *       had not yet arrived when it froze are held in its "send buffer" and leave only when it
 *       resumes, so they arrive seconds late; on resuming it sees its clock jump by the pause.</li>
 *   <li><b>Crash-all</b>: every replica crashes at once (a power cut of the whole cluster), each
 *       keeping its synced records and a random part of its unsynced tail like a single crash, and
 *       each restarts after its own downtime drawn uniformly in [{@code minDowntime},
 *       {@code maxDowntime}].</li>
 * </ul>
 * Each nemesis action draws once: with probability {@code crashAllShare} it crashes every replica,
 * else with probability {@code pauseShare} it pauses one up, running replica (the current leader in
 * half of the cases when the simulation {@link Simulation#targetLeader hunts leaders}), else it is an
 * ordinary action. Immutable; times are virtual nanoseconds.
 *
 * @param pauseShare    chance that a nemesis action pauses a replica, in [0, 1]
 * @param minPause      shortest pause, &gt; 0
 * @param maxPause      longest pause, at least {@code minPause}
 * @param crashAllShare chance that a nemesis action crashes every replica, in [0, 1]; with
 *                      {@code pauseShare} at most 1
 * @param minDowntime   shortest downtime of a replica after a crash-all, &gt;= 0
 * @param maxDowntime   longest downtime, at least {@code minDowntime}
 */
public record ProcessFaults(double pauseShare, long minPause, long maxPause, double crashAllShare, long minDowntime,
                            long maxDowntime) {

    private static final long MS = 1_000_000L;

    public ProcessFaults {
        if (pauseShare < 0 || crashAllShare < 0 || pauseShare + crashAllShare > 1) {
            throw new IllegalArgumentException("shares must be >= 0 with a sum <= 1: pause " + pauseShare
                    + ", crash-all " + crashAllShare);
        }
        if (minPause <= 0 || maxPause < minPause) {
            throw new IllegalArgumentException("need 0 < minPause <= maxPause");
        }
        if (minDowntime < 0 || maxDowntime < minDowntime) {
            throw new IllegalArgumentException("need 0 <= minDowntime <= maxDowntime");
        }
    }

    /**
     * The mix: a pause in 15% of the nemesis actions, of 0.5–5 s; a crash of every replica
     * in 4% of them (rare), each replica down for 50–500 ms.
     */
    public static ProcessFaults pausesAndCrashAll() {
        return new ProcessFaults(0.15, 500 * MS, 5_000 * MS, 0.04, 50 * MS, 500 * MS);
    }
}
