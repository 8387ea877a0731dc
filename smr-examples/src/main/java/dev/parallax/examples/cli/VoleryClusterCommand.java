package dev.parallax.examples.cli;

import dev.parallax.ringpaxos.RingPaxos;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code parallax volery [--partitions P] [--dir D] [--ordering-kind u-ring|m-ring]}: a local
 * Volery cluster (seed 004 (S-SMR) §V-B, §VI) for trying the ZooKeeper API by hand: P partitions ×
 * 3 replicas as {@code parallax replica} processes ({@link ProcessCluster} over
 * {@link VoleryClusterFile#local}: {@code service=volery}, {@code execution=s-smr},
 * {@code ordering=multi-ring} with {@code multiring.rings=P}, a ZooKeeper front end per replica,
 * durable state under {@code D/data}, {@link VoleryClusterFile#sharedMachineSettings}: 3P JVMs on
 * one machine). Waits until every replica printed READY, prints the
 * ZooKeeper connect string and how to run zkCli against it ({@code parallax zkcli}), then runs until
 * Ctrl-C (SIGTERM), which stops the replicas; it reports a replica that exits meanwhile.
 *
 * <p>Exit code 2, with the message on standard error and nothing started, on bad input (P out of
 * 1..{@value VoleryClusterFile#MAX_PARTITIONS}, an unknown ring kind, a {@code --dir} that is not
 * empty); 1 if a replica does not start (its log's last lines are printed). Blocks the caller's
 * thread until the JVM shuts down.
 */
@Command(name = "volery", mixinStandardHelpOptions = true,
        description = "Run a local Volery cluster (ZooKeeper's API over S-SMR: P partitions x 3 replica processes, each "
                + "with a ZooKeeper front end) until Ctrl-C; prints the connect string for zkCli and ZooKeeper clients.")
final class VoleryClusterCommand implements Callable<Integer> {
    /** How long each replica may take to print READY. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "2",
            description = "Partitions, 1.." + VoleryClusterFile.MAX_PARTITIONS + "; 3 replica processes each (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--dir", paramLabel = "D", description = "Work directory (cluster file, replica logs, data/); must be "
            + "new or empty (default: a new temporary directory, deleted on exit).")
    Path dir;

    @Option(names = "--ordering-kind", paramLabel = "KIND", defaultValue = RingPaxos.U_RING,
            description = "Every ring's variant: " + RingPaxos.U_RING + " (TCP only) or " + RingPaxos.M_RING
                    + " (IP multicast; needs multicast on loopback) (default ${DEFAULT-VALUE}).")
    String ringKind;

    @Option(names = "--heap-mib", paramLabel = "MIB", defaultValue = "256",
            description = "Heap of each replica JVM in MiB, at least 64 (default ${DEFAULT-VALUE}).")
    int heapMiB;

    private final PrintStream out;
    private final PrintStream err;

    /** Reports on standard output, errors on standard error (picocli's constructor). */
    VoleryClusterCommand() {
        this(System.out, System.err);
    }

    /** Reports on {@code out} and input errors on {@code err} (tests capture both). */
    VoleryClusterCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /**
     * The cluster the options describe, its file written into {@code workDir}, nothing started;
     * every replica serves metrics on a free port.
     *
     * @throws IllegalArgumentException naming the option if one is out of range
     * @throws IOException              if the directory or the file cannot be written
     */
    ProcessCluster cluster(Path workDir) throws IOException {
        Properties p = settings(workDir);
        return new ProcessCluster(workDir, VoleryClusterFile.replicas(partitions), p, false,
                List.of("-Xmx" + heapMiB + "m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))
                .replicaArgs("--metrics-port", "0");
    }

    /**
     * The cluster-file settings the options describe, durable state under {@code workDir/data}.
     *
     * @throws IllegalArgumentException naming the option if one is out of range
     */
    Properties settings(Path workDir) {
        if (heapMiB < 64) {
            throw new IllegalArgumentException("--heap-mib must be at least 64, not " + heapMiB);
        }
        Properties p;
        try {
            p = VoleryClusterFile.local(partitions, ringKind, workDir.resolve("data"), 20_000);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith("partitions")
                    ? "--" + e.getMessage() : "--ordering-kind: " + e.getMessage(), e);
        }
        p.putAll(VoleryClusterFile.sharedMachineSettings());
        return p;
    }

    @Override
    public Integer call() throws Exception {
        boolean temporary = dir == null;
        Path work;
        ProcessCluster cluster;
        try {
            settings(Path.of(".")); // the options first: a refused run leaves no directory behind
            work = LocalClusterRun.workDirectory(dir, "parallax-volery-");
            cluster = cluster(work);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        LocalClusterRun run = LocalClusterRun.open(cluster, work, temporary, "volery");
        long t0 = System.nanoTime();
        ClusterFile file = cluster.clusterFile();
        out.printf("Volery: %d partition%s x %d replica processes on 127.0.0.1 (multi-ring, %s rings, s-smr); work directory %s%n",
                partitions, partitions == 1 ? "" : "s", VoleryClusterFile.REPLICAS_PER_PARTITION, ringKind, work);
        try {
            cluster.startAll(START_TIMEOUT);
        } catch (IOException e) {
            err.println("a replica did not start: " + e.getMessage());
            return 1;
        }
        out.printf("replicas ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        out.print(describe(file));
        out.println("Ctrl-C stops the replicas.");
        out.flush();
        run.watch(err);
        return 0;
    }

    /**
     * What a newcomer needs: each partition's replicas and their front ends, the connect string,
     * and a zkCli session to try.
     */
    static String describe(ClusterFile file) {
        StringBuilder s = new StringBuilder();
        List<int[]> parts = file.partitionMembers();
        for (int p = 0; p < parts.size(); p++) {
            s.append(String.format("  partition %d: replicas %s, ZooKeeper front ends %s%n", p,
                    java.util.Arrays.toString(parts.get(p)), VoleryClusterFile.connectString(file, parts.get(p))));
        }
        String all = VoleryClusterFile.connectString(file);
        String first = VoleryClusterFile.connectString(file, 0);
        s.append("ZooKeeper connect string: ").append(all).append(System.lineSeparator());
        s.append("zkCli (any front end serves the whole tree):").append(System.lineSeparator());
        s.append("  ./parallax zkcli -server ").append(first).append(System.lineSeparator());
        s.append("  then: create /app hello | ls / | get /app | set /app again | stat /app | delete /app").append(System.lineSeparator());
        s.append("  one command and exit: ./parallax zkcli -server ").append(all).append(" ls /").append(System.lineSeparator());
        return s.toString();
    }
}
