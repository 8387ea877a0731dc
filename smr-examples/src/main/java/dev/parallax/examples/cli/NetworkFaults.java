package dev.parallax.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;
import java.util.function.DoubleSupplier;
import java.util.stream.IntStream;

/**
 * The faults of the replicated key-value chaos run: every 1 to 3.5 s, a partition in place is
 * healed, a replica that is down restarted, or, with every replica up, one is killed with SIGKILL
 * or cut off through the replicas' fault endpoint ({@code --fault-control}): partitioned away both
 * ways, cut one way (it hears nobody, or reaches nobody) or bridged (two replicas cut from each
 * other, both reaching the rest). With a {@link Nemesis} (the membership chaos), one step in two
 * with every replica up and no partition in place is the nemesis' instead. At the end every link is
 * healed and every replica down restarted.
 *
 * <p>Runs on the caller's thread and blocks for the faults; one run at a time.
 */
final class NetworkFaults {
    private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(60);

    /**
     * The replicas the faults act on, processes of {@link #cluster()}: all of them, or the voters of
     * a cluster whose membership changes.
     */
    interface Replicas {
        /** The processes. */
        ProcessCluster cluster();

        /** The replicas, ascending. */
        int[] ids();

        default boolean isAlive(int id) {
            return cluster().isAlive(id);
        }

        /** Its metrics (and fault-control) port. */
        default int metricsPort(int id) {
            return cluster().metricsPort(id);
        }

        /** SIGKILLs it. */
        default void kill(int id) throws InterruptedException {
            cluster().kill(id);
        }

        /** Starts it again and waits until it is ready. */
        void restart(int id) throws IOException, InterruptedException;
    }

    /** A further fault, run with every replica up and no partition in place; prints what it did. */
    @FunctionalInterface
    interface Nemesis {
        void step(Random rnd) throws Exception;
    }

    /** What was done. */
    record Counts(int kills, int restarts, int partitions, int oneWayCuts, int bridges) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** {@code cluster}'s replicas, restarted as they were first started (without {@code --bootstrap}). */
    static Replicas of(ProcessCluster cluster) {
        return new Replicas() {
            @Override
            public ProcessCluster cluster() {
                return cluster;
            }

            @Override
            public int[] ids() {
                return IntStream.range(0, cluster.size()).toArray();
            }

            @Override
            public void restart(int id) throws IOException, InterruptedException {
                cluster.start(id, RESTART_TIMEOUT);
            }
        };
    }

    /**
     * Injects faults into {@code replicas} for {@code run}, drawing from {@code rnd}, each printed
     * with {@code elapsed} (seconds since the load started); then heals and restarts everything.
     *
     * @param nemesis the membership steps, or null
     * @throws Exception if a replica cannot be restarted or the nemesis fails
     */
    Counts run(PrintStream out, Replicas replicas, Random rnd, Duration run, DoubleSupplier elapsed, Nemesis nemesis)
            throws Exception {
        int kills = 0;
        int restarts = 0;
        int partitions = 0;
        int oneWayCuts = 0;
        int bridges = 0;
        long end = System.nanoTime() + run.toNanos();
        String partitioned = null;
        while (System.nanoTime() < end) {
            Thread.sleep(1000 + rnd.nextInt(2500));
            if (partitioned != null) {
                healAll(replicas);
                out.printf("  %6.1f s  healed: %s%n", elapsed.getAsDouble(), partitioned);
                partitioned = null;
                continue;
            }
            int[] ids = replicas.ids();
            int n = ids.length;
            int down = firstDown(replicas);
            if (nemesis != null && down < 0 && rnd.nextInt(2) == 0) {
                nemesis.step(rnd);
                continue;
            }
            int action = rnd.nextInt(3);
            if (down >= 0 && action != 2) {
                replicas.restart(down);
                restarts++;
                out.printf("  %6.1f s  restarted replica %d%n", elapsed.getAsDouble(), down);
            } else if (down < 0 && action == 0) {
                int victim = ids[rnd.nextInt(n)];
                replicas.kill(victim);
                kills++;
                out.printf("  %6.1f s  killed replica %d (SIGKILL)%n", elapsed.getAsDouble(), victim);
            } else if (down < 0) {
                int v = rnd.nextInt(n);
                int victim = ids[v];
                int shape = rnd.nextInt(4);
                if (shape == 0) {
                    isolate(replicas, victim);
                    partitions++;
                    partitioned = "replica " + victim + " partitioned away from the others";
                } else if (shape == 3) {
                    int other = ids[(v + 1 + rnd.nextInt(n - 1)) % n];
                    control(replicas, victim, "/faults/block?peers=" + other);
                    control(replicas, other, "/faults/block?peers=" + victim);
                    bridges++;
                    partitioned = "bridge: replicas " + victim + " and " + other + " cut from each other, both reaching the rest";
                } else {
                    String direction = shape == 1 ? "in" : "out";
                    control(replicas, victim, "/faults/block-" + direction + "?peers=" + others(replicas, victim));
                    oneWayCuts++;
                    partitioned = "one-way cut: replica " + victim + (shape == 1 ? " hears nobody (it still sends)"
                            : " reaches nobody (it still hears)");
                }
                out.printf("  %6.1f s  %s%n", elapsed.getAsDouble(), partitioned);
            }
        }
        healAll(replicas);
        for (int id : replicas.ids()) {
            if (!replicas.isAlive(id)) {
                replicas.restart(id);
                restarts++;
            }
        }
        out.printf("  %6.1f s  faults stopped; every replica up%n", elapsed.getAsDouble());
        return new Counts(kills, restarts, partitions, oneWayCuts, bridges);
    }

    /** The first replica that is not running, or -1. */
    private static int firstDown(Replicas replicas) {
        for (int id : replicas.ids()) {
            if (!replicas.isAlive(id)) {
                return id;
            }
        }
        return -1;
    }

    private void isolate(Replicas replicas, int victim) {
        for (int id : replicas.ids()) {
            if (id != victim) {
                control(replicas, id, "/faults/block?peers=" + victim);
            }
        }
        control(replicas, victim, "/faults/block?peers=" + others(replicas, victim));
    }

    /** Every replica but {@code victim}, comma-separated. */
    private static String others(Replicas replicas, int victim) {
        StringBuilder others = new StringBuilder();
        for (int id : replicas.ids()) {
            if (id != victim) {
                others.append(others.length() == 0 ? "" : ",").append(id);
            }
        }
        return others.toString();
    }

    private void healAll(Replicas replicas) {
        for (int id : replicas.ids()) {
            if (replicas.isAlive(id)) {
                control(replicas, id, "/faults/heal");
            }
        }
    }

    private void control(Replicas replicas, int replica, String path) {
        try {
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + replicas.metricsPort(replica) + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            // A replica that just died cannot be told; its links are gone anyway.
        }
    }
}
