package dev.parallax.examples.cli;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The measured load phase of every demo (the key-value store's, replicated or under S-SMR, and
 * Volery's): one timeline line a second read from completion times ({@link DemoCommand#progress}),
 * a replica killed with SIGKILL halfway through (the one a {@link Victim} picks: the leader, or a
 * ring's coordinator, seed 004 (S-SMR) §IV for a partitioned cluster) and restarted at three
 * quarters, so that it recovers its log and snapshot and catches up; a replica still down when the
 * phase ends (too short to reach three quarters) is restarted then. Runs on the caller's thread
 * and blocks for the phase; stateless.
 */
final class DemoPhase {
    private DemoPhase() {
    }

    /** Picks the replica to kill at half time; called once, on the phase's thread. */
    @FunctionalInterface
    interface Victim {
        /**
         * The replica to kill and how the report names it.
         *
         * @throws InterruptedException if interrupted while asking the replicas
         */
        Choice choose() throws InterruptedException;
    }

    /**
     * A replica to kill.
     *
     * @param replica     its id
     * @param description how the report names it after "killed", e.g. {@code the leader, replica 1}
     */
    record Choice(int replica, String description) {
    }

    /**
     * What the phase did.
     *
     * @param killed      the replica killed, or -1
     * @param killAtNanos when, after the phase started
     * @param endNanos    when the phase ended, after it started
     */
    record Result(int killed, long killAtNanos, long endNanos) {
    }

    /** The leader (or coordinator) the replicas report, {@code role} naming it ({@link DemoCommand#leaderRole}). */
    static Victim leader(ProcessCluster cluster, String role) {
        return () -> {
            // The ordering leader as the replicas report it: with S-Paxos no client is
            // redirected to it, so the replica a client talks to says nothing about leadership.
            // Up to 15 s: on a loaded machine an election may still be under way; it normally
            // returns at once.
            int leader = cluster.awaitLeader(Duration.ofSeconds(15));
            int killed = Math.max(0, leader);
            return new Choice(killed, (leader < 0 ? "a replica (none reported leading)" : role) + ", replica " + killed);
        };
    }

    /** The coordinator of Multi-Ring's ring {@code ring} (e.g. {@code ring-0}, partition 0's under S-SMR). */
    static Victim ringCoordinator(ProcessCluster cluster, String ring) {
        return () -> {
            int coordinator = cluster.awaitRingCoordinator(ring, Duration.ofSeconds(5));
            int killed = Math.max(0, coordinator);
            return new Choice(killed, (coordinator < 0 ? "a replica (none reported coordinating " + ring + ")"
                    : ring + "'s coordinator") + ", replica " + killed + " (partition " + cluster.clusterFile().partitionOf(killed) + ")");
        };
    }

    /**
     * Runs the phase: {@code seconds} lines of {@code timeline} from {@code start} (a
     * {@link System#nanoTime()} value, the timeline's origin), killing {@code victim}'s choice at
     * half time and restarting it at three quarters; no kill when {@code victim} is null.
     *
     * @throws IOException          if a replica cannot be restarted
     * @throws InterruptedException if interrupted
     */
    static Result run(PrintStream out, ProcessCluster cluster, int seconds, long start, CompletionTimeline timeline, Victim victim)
            throws IOException, InterruptedException {
        long[] killAt = {-1};
        int[] killed = {-1};
        long end = timeline(out, seconds, start, timeline, (s, late) -> {
            if (victim != null && s == Math.max(1, seconds / 2)) {
                Choice choice = victim.choose();
                killed[0] = choice.replica();
                killAt[0] = System.nanoTime() - start;
                cluster.kill(killed[0]);
                late.run();
                out.printf("  >> killed %s, with SIGKILL at %.1f s%n", choice.description(), killAt[0] / 1e9);
            }
            if (killed[0] >= 0 && !cluster.isAlive(killed[0]) && s == Math.max(1, seconds * 3 / 4)) {
                late.run();
                restart(out, cluster, killed[0], start);
            }
        });
        if (killed[0] >= 0 && !cluster.isAlive(killed[0])) {
            restart(out, cluster, killed[0], start); // a load phase too short to reach three quarters
        }
        return new Result(killed[0], killAt[0], end);
    }

    /** What a phase does after the timeline line of a second; on the phase's thread. */
    @FunctionalInterface
    interface AfterSecond {
        /**
         * @param s       the second just printed, from 1
         * @param newLine ends the line in place on a terminal; call before printing a line of one's own
         */
        void after(int s, Runnable newLine) throws IOException, InterruptedException;
    }

    /**
     * Prints {@code seconds} lines of {@code timeline} from {@code start} (a {@link System#nanoTime()}
     * value, the timeline's origin), each once its second has ended, calling {@code after} after
     * each; a line that is late (the hook was busy) still shows its second as it was.
     *
     * @return when the last second ended, after {@code start}
     */
    static long timeline(PrintStream out, int seconds, long start, CompletionTimeline timeline, AfterSecond after)
            throws IOException, InterruptedException {
        boolean tty = System.console() != null;
        Runnable newLine = () -> {
            if (tty) {
                out.println();
            }
        };
        for (int s = 1; s <= seconds; s++) {
            // Second s is read from completion times once it has ended: a loop that is late (it was
            // restarting a replica) prints each second as it was, not what piled up meanwhile.
            long wait = start + TimeUnit.SECONDS.toNanos(s) + DemoCommand.SECOND_SETTLE_NANOS - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait) + 1);
            }
            DemoCommand.progress(out, tty, timeline.second(s));
            after.after(s, newLine);
        }
        long end = System.nanoTime() - start;
        newLine.run();
        return end;
    }

    private static void restart(PrintStream out, ProcessCluster cluster, int id, long start) throws IOException, InterruptedException {
        cluster.start(id, Duration.ofSeconds(90));
        out.printf("  >> restarted replica %d at %.1f s: it recovers its log and snapshot, then catches up%n",
                id, (System.nanoTime() - start) / 1e9);
    }

    /** The report's latency line. */
    static String latencyLine(Histogram total) {
        return String.format("  latency (us)     p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  max %,d", total.getValueAtPercentile(50),
                total.getValueAtPercentile(90), total.getValueAtPercentile(99), total.getValueAtPercentile(99.9), total.getMaxValue());
    }

    /** The report's fail-over line, {@code unit} naming what completes (e.g. {@code write}). */
    static String failOverLine(Result r, Duration longestGap, String unit) {
        return String.format("  fail-over        replica %d killed at %.1f s; longest gap without a completed %s: %d ms",
                r.killed(), r.killAtNanos() / 1e9, unit, longestGap.toMillis());
    }
}
