package dev.parallax.examples.cli;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * {@code parallax demo --membership}: the membership benchmark on the demo's three replica
 * processes (Multi-Paxos, S-Paxos, U-Ring, M-Ring or Multi-Ring) under its closed-loop load. At a quarter of the load phase a
 * follower is replaced by a fresh replica ({@link ClusterMembership#replace}: started with
 * {@code --join} on an empty data directory, added as a learner, caught up, {@code replace}d in one
 * change, the old one stopped and its data directory deleted); at three quarters (or once the
 * replacement is done) leadership is handed to the new replica ({@link ClusterMembership#transfer},
 * Raft's TimeoutNow, thesis §3.10; a ring's coordination, every ring's under Multi-Ring). Reports, from completion times ({@link CompletionTimeline}):
 * (a) the longest gap without a completed write from the new replica's start to the old one's
 * stop, (b) the new replica's catch-up, from its start to the decision that made it a voter, and
 * (c) the longest write gap of the transfer, from the request until a second after the new leader
 * leads, next to the ordering's suspect timeout ({@link Orderings#suspectKey()}), the silence an election would need before it even
 * starts. Then the usual checks: every acknowledged write readable, the final voters at one
 * decided frontier and store digest.
 *
 * <p>Runs on the caller's thread and blocks for the whole phase; stateless.
 */
final class MembershipDemo {
    /** How long after the new leader leads the transfer's gap is looked for (clients follow its redirects). */
    private static final long TRANSFER_TAIL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private MembershipDemo() {
    }

    /**
     * The measured phase and the report: {@code load} started (clients over every endpoint of
     * {@code members}), warmed up for {@code warmup} s, then {@code seconds} of timeline with the
     * replacement and the transfer.
     *
     * @return whether every acknowledged write is readable and the final voters converged
     * @throws Exception if a replica cannot start or a membership step does not complete
     */
    static boolean run(PrintStream out, ProcessCluster cluster, ClusterMembership members, ClosedLoopLoad load, int seconds,
                       int warmup, String runtimeLine) throws Exception {
        load.start();
        if (warmup > 0) {
            out.printf("warming up for %d s (JIT compilation in %d JVMs) ...%n", warmup, cluster.size() + 1);
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
        }
        long base = load.completed();
        load.startMeasuring();
        long origin = load.startedAt();
        int replaceAt = Math.max(1, seconds / 4);
        int transferAt = Math.max(replaceAt, seconds * 3 / 4);
        ClusterMembership.Replacement[] replaced = new ClusterMembership.Replacement[1];
        ClusterMembership.Transfer[] transferred = new ClusterMembership.Transfer[1];
        long end = DemoPhase.timeline(out, seconds, origin, load.timeline(), (s, newLine) -> {
            if (s == replaceAt) {
                replaced[0] = replace(out, members, origin, newLine);
            }
            if (s >= transferAt && transferred[0] == null) {
                transferred[0] = transfer(out, members, replaced[0].newId(), origin, newLine);
            }
        });
        load.stop(Duration.ofSeconds(30));
        ClusterMembership.Replacement r = replaced[0];
        ClusterMembership.Transfer t = transferred[0];
        Duration suspect = cluster.clusterFile().settings().get(cluster.clusterFile().ordering().suspectKey());
        Histogram total = load.total();
        long measured = load.completed() - base;
        out.println();
        out.println("results");
        out.println("  runtime          " + runtimeLine);
        out.printf("  throughput       %,.0f writes/s over %d s (%,d acknowledged, %,d failed)%n", measured / (end / 1e9), seconds,
                measured, load.failed());
        out.println(DemoPhase.latencyLine(total));
        out.printf("  replacement      replica %d by new replica %d, %.1f s to %.1f s: longest gap without a completed write %d ms%n",
                r.oldId(), r.newId(), (r.startedAt() - origin) / 1e9, (r.stoppedAt() - origin) / 1e9,
                load.longestGapAfter(r.startedAt() - origin, r.stoppedAt() - origin).toMillis());
        out.printf("  catch-up         new replica %d voting %,d ms after its start (process ready at %,d ms, learner at %,d ms)%n",
                r.newId(), r.catchUp().toMillis(), millis(r.readyAt() - r.startedAt()), millis(r.addedAt() - r.startedAt()));
        out.printf("  transfer         leadership from replica %d to replica %d in %,d ms; longest gap without a completed write "
                        + "%d ms (suspect timeout %d ms)%n", t.from(), t.to(), millis(t.doneAt() - t.askedAt()),
                load.longestGapAfter(t.askedAt() - origin, t.doneAt() - origin + TRANSFER_TAIL_NANOS).toMillis(), suspect.toMillis());
        ReplicaConvergence.Outcome converged = ReplicaConvergence.await(cluster, members.voters(), DemoCommand.CATCH_UP_TIMEOUT);
        out.printf(converged.converged() ? "  convergence      voters %s: %s%n" : "  convergence      FAILED: voters %s: %s%n",
                Arrays.toString(members.voters()), converged.describe());
        long lost = load.countLost(out);
        out.println(lost == 0 ? "  check            OK: every acknowledged write is readable (" + (long) load.clientCount()
                * load.keysPerClient() + " keys read)" : "  check            FAILED: " + lost + " acknowledged writes are missing");
        return converged.converged() && lost == 0;
    }

    /** Replaces the first follower by a fresh replica and prints it. */
    private static ClusterMembership.Replacement replace(PrintStream out, ClusterMembership members, long origin, Runnable newLine)
            throws java.io.IOException, InterruptedException {
        int leader = members.awaitLeader(Duration.ofSeconds(15));
        int follower = Arrays.stream(members.replaceable()).filter(id -> id != leader).findFirst().orElseThrow();
        newLine.run();
        out.printf("  >> replacing follower %d by a fresh replica at %.1f s ...%n", follower, (System.nanoTime() - origin) / 1e9);
        ClusterMembership.Replacement r = members.replace(follower);
        out.printf("  >> replica %d joined, caught up and replaced replica %d (voters %s); replica %d stopped and its data "
                + "deleted at %.1f s%n", r.newId(), follower, Arrays.toString(members.voters()), follower, (r.stoppedAt() - origin) / 1e9);
        return r;
    }

    /** Hands leadership to {@code to} and prints it. */
    private static ClusterMembership.Transfer transfer(PrintStream out, ClusterMembership members, int to, long origin,
                                                       Runnable newLine) throws java.io.IOException, InterruptedException {
        ClusterMembership.Transfer t = members.transfer(to);
        newLine.run();
        out.printf("  >> leadership handed from replica %d to replica %d at %.1f s (%d ms)%n", t.from(), t.to(),
                (t.askedAt() - origin) / 1e9, millis(t.doneAt() - t.askedAt()));
        return t;
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
