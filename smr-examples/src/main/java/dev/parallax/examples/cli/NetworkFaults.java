package dev.parallax.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import dev.parallax.examples.testbed.KernelFaults;
import dev.parallax.examples.testbed.Testbed;
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
 * or cut off: partitioned away both ways, cut one way (it hears nobody, or reaches nobody) or
 * bridged (two replicas cut from each other, both reaching the rest). The cuts are made by
 * {@link Links}: the replicas' fault endpoint ({@code --fault-control}, {@link #endpointLinks}), or
 * the kernel between test-bed hosts ({@link #kernelLinks}), which adds two shapes: lossy links
 * (each directed link between replicas drops a random 5 to 30 % of its packets), a capped host
 * (one replica's egress at 2 to 20 Mbit/s) and, where the kernel has sch_netem, a delayed host (5 to
 * 50 ms on one replica's egress; skipped with a note otherwise). With a {@link Nemesis} (the membership chaos), one step
 * in two with every replica up and no partition in place is the nemesis' instead. At the end every
 * link is healed and every replica down restarted.
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

        /** SIGKILLs it. */
        default void kill(int id) throws InterruptedException {
            cluster().kill(id);
        }

        /** Starts it again and waits until it is ready. */
        void restart(int id) throws IOException, InterruptedException;
    }

    /**
     * How links between replicas are cut: one way, {@code from -> to}; {@link #heal} removes every
     * cut and loss. Loss and caps only where {@link #kernel()}.
     */
    interface Links {
        /** Drops what {@code from} sends to {@code to}. */
        void cut(int from, int to) throws IOException;

        /** Removes every cut, loss and cap among {@code ids}. */
        void heal(int[] ids) throws IOException;

        /** Whether the kernel makes the faults: then {@link #lose} and {@link #cap} work. */
        default boolean kernel() {
            return false;
        }

        /** Drops each packet {@code from} sends to {@code to} with probability {@code perMille}/1000. */
        default void lose(int from, int to, int perMille) throws IOException {
            throw new UnsupportedOperationException("loss needs the kernel's faults (--hosts)");
        }

        /** Caps {@code replica}'s egress at {@code mbit} Mbit/s. */
        default void cap(int replica, int mbit) throws IOException {
            throw new UnsupportedOperationException("caps need the kernel's faults (--hosts)");
        }

        /** Whether {@link #delay} works: the kernel's faults, on a kernel with sch_netem. */
        default boolean delays() {
            return false;
        }

        /** Delays {@code replica}'s egress by {@code millis}. */
        default void delay(int replica, int millis) throws IOException {
            throw new UnsupportedOperationException("delay needs the kernel's faults on a kernel with sch_netem");
        }
    }

    /** A further fault, run with every replica up and no partition in place; prints what it did. */
    @FunctionalInterface
    interface Nemesis {
        void step(Random rnd) throws Exception;
    }

    /** What was done. */
    record Counts(int kills, int restarts, int partitions, int oneWayCuts, int bridges, int lossy, int caps, int delays) {
    }

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

    /** Cuts through the replicas' fault endpoint ({@code --fault-control}): {@code from} stops sending to {@code to}. */
    static Links endpointLinks(ProcessCluster cluster) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        return new Links() {
            @Override
            public void cut(int from, int to) {
                control(from, "/faults/block-out?peers=" + to);
            }

            @Override
            public void heal(int[] ids) {
                for (int id : ids) {
                    if (cluster.isAlive(id)) {
                        control(id, "/faults/heal");
                    }
                }
            }

            private void control(int replica, String path) {
                try {
                    http.send(HttpRequest.newBuilder(cluster.metricsUri(replica, path)).timeout(Duration.ofSeconds(5)).build(),
                            HttpResponse.BodyHandlers.discarding());
                } catch (Exception e) {
                    // A replica that just died cannot be told; its links are gone anyway.
                }
            }
        };
    }

    /** Cuts, losses and caps by the kernel between the test-bed hosts of {@code cluster}'s replicas ({@link KernelFaults}). */
    static Links kernelLinks(ProcessCluster cluster, KernelFaults kernel) {
        Testbed bed = cluster.testbed().orElseThrow(() -> new IllegalArgumentException("the cluster runs on no test bed"));
        return new Links() {
            @Override
            public void cut(int from, int to) throws IOException {
                kernel.cut(bed.hostOf(from), bed.hostOf(to));
            }

            @Override
            public void heal(int[] ids) throws IOException {
                kernel.heal();
                for (int id : ids) {
                    bed.uncap(bed.hostOf(id));
                }
            }

            @Override
            public boolean kernel() {
                return true;
            }

            @Override
            public void lose(int from, int to, int perMille) throws IOException {
                kernel.lose(bed.hostOf(from), bed.hostOf(to), perMille);
            }

            @Override
            public void cap(int replica, int mbit) throws IOException {
                bed.cap(bed.hostOf(replica), mbit);
            }

            @Override
            public boolean delays() {
                return kernel.delaySupported();
            }

            @Override
            public void delay(int replica, int millis) throws IOException {
                kernel.delay(bed.hostOf(replica), millis);
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
    Counts run(PrintStream out, Replicas replicas, Links links, Random rnd, Duration run, DoubleSupplier elapsed,
            Nemesis nemesis) throws Exception {
        int lossy = 0;
        int caps = 0;
        int delays = 0;
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
                links.heal(replicas.ids());
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
                // The kernel's shapes are drawn whether or not this kernel can delay, so that a seed
                // gives the same schedule on every machine; a delay it cannot make is skipped.
                int shape = rnd.nextInt(links.kernel() ? 7 : 4);
                if (shape == 0) {
                    for (int other : ids) {
                        if (other != victim) {
                            links.cut(victim, other);
                            links.cut(other, victim);
                        }
                    }
                    partitions++;
                    partitioned = "replica " + victim + " partitioned away from the others";
                } else if (shape == 3) {
                    int other = ids[(v + 1 + rnd.nextInt(n - 1)) % n];
                    links.cut(victim, other);
                    links.cut(other, victim);
                    bridges++;
                    partitioned = "bridge: replicas " + victim + " and " + other + " cut from each other, both reaching the rest";
                } else if (shape == 4) {
                    StringBuilder rates = new StringBuilder();
                    for (int from : ids) {
                        for (int to : ids) {
                            if (from != to) {
                                int perMille = 50 + rnd.nextInt(251);
                                links.lose(from, to, perMille);
                                rates.append(rates.length() == 0 ? "" : ", ").append(from).append("->").append(to).append(' ')
                                        .append(perMille / 10.0).append('%');
                            }
                        }
                    }
                    lossy++;
                    partitioned = "lossy links (kernel): " + rates;
                } else if (shape == 5) {
                    int mbit = 2 + rnd.nextInt(19);
                    links.cap(victim, mbit);
                    caps++;
                    partitioned = "replica " + victim + "'s egress capped at " + mbit + " Mbit/s (kernel)";
                } else if (shape == 6) {
                    int millis = 5 + rnd.nextInt(46);
                    if (!links.delays()) {
                        out.printf("  %6.1f s  delay of replica %d's egress skipped: this kernel has no sch_netem%n",
                                elapsed.getAsDouble(), victim);
                        continue;
                    }
                    links.delay(victim, millis);
                    delays++;
                    partitioned = "replica " + victim + "'s egress delayed by " + millis + " ms (kernel, netem)";
                } else {
                    for (int other : ids) {
                        if (other != victim) {
                            if (shape == 1) {
                                links.cut(other, victim);
                            } else {
                                links.cut(victim, other);
                            }
                        }
                    }
                    oneWayCuts++;
                    partitioned = "one-way cut: replica " + victim + (shape == 1 ? " hears nobody (it still sends)"
                            : " reaches nobody (it still hears)");
                }
                out.printf("  %6.1f s  %s%n", elapsed.getAsDouble(), partitioned);
            }
        }
        links.heal(replicas.ids());
        for (int id : replicas.ids()) {
            if (!replicas.isAlive(id)) {
                replicas.restart(id);
                restarts++;
            }
        }
        out.printf("  %6.1f s  faults stopped; every replica up%n", elapsed.getAsDouble());
        return new Counts(kills, restarts, partitions, oneWayCuts, bridges, lossy, caps, delays);
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
}
