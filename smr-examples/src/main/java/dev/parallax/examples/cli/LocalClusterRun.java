package dev.parallax.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A local {@link ProcessCluster} that runs until Ctrl-C, as {@code parallax cluster} and
 * {@code parallax volery} run theirs. It picks the work directory (the user's, new or empty, or a
 * new temporary one), stops the replicas when the JVM shuts down (SIGTERM, Ctrl-C), deletes a
 * temporary directory then, and reports each replica that exits meanwhile.
 *
 * <p>{@link #open} registers the shutdown hook; {@link #watch} blocks the caller's thread until the
 * JVM shuts down. The hook runs on its own thread; the two share only thread-safe state.
 */
final class LocalClusterRun {
    private final ProcessCluster cluster;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean stopping = new AtomicBoolean();

    private LocalClusterRun(ProcessCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * The work directory: {@code dir} if it is new or empty (created), else a new temporary
     * directory named {@code tempPrefix...} when {@code dir} is null.
     *
     * @throws IllegalArgumentException naming {@code --dir} if it is a file or holds files
     * @throws IOException              if the directory cannot be created
     */
    static Path workDirectory(Path dir, String tempPrefix) throws IOException {
        if (dir == null) {
            return Files.createTempDirectory(tempPrefix);
        }
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("--dir " + dir + " is not a directory");
            }
            try (Stream<Path> entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("--dir " + dir + " is not empty: give a new or empty directory "
                            + "(each run writes a new cluster file, with new ports)");
                }
            }
        }
        return Files.createDirectories(dir);
    }

    /**
     * Registers a shutdown hook that stops {@code cluster}'s replicas and, if {@code temporary},
     * deletes {@code work}. Call it before starting the replicas, so an early Ctrl-C stops them too.
     */
    static LocalClusterRun open(ProcessCluster cluster, Path work, boolean temporary, String name) {
        LocalClusterRun run = new LocalClusterRun(cluster);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            run.stopping.set(true); // before the replicas stop: watch() reports none of them
            cluster.close();
            if (temporary) {
                deleteQuietly(work);
            }
            run.stopped.countDown();
        }, name + "-shutdown"));
        return run;
    }

    /** Blocks until the JVM shuts down; reports on {@code err} each replica that exits (its log names why). */
    void watch(PrintStream err) throws InterruptedException {
        boolean[] reported = new boolean[cluster.size()];
        while (!stopped.await(1, TimeUnit.SECONDS)) {
            for (int i = 0; i < cluster.size(); i++) {
                if (!reported[i] && !stopping.get() && !cluster.isAlive(i)) {
                    reported[i] = true;
                    err.println("replica " + i + " exited; see " + cluster.log(i));
                }
            }
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // Best effort on the way out: a temporary directory left behind is harmless.
        }
    }
}
