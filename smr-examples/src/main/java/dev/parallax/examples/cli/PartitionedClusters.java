package dev.parallax.examples.cli;

import dev.parallax.examples.testbed.Testbed;

import dev.parallax.ringpaxos.RingPaxos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The local partitioned clusters ({@code execution=s-smr}, seed 004 (S-SMR) §IV) of the demo and the
 * chaos run, nothing started: P partitions x 3 replica processes on 127.0.0.1 with durable state,
 * {@code ordering=multi-ring} with a U-Ring ring per partition (partition p = replicas 3p..3p+2) and
 * the global ring over all, {@link VoleryClusterFile#sharedMachineSettings()} (3P JVMs share this
 * machine), a small heap each, and a metrics port each (digests, ring coordinators). One builder for
 * Volery ({@link #volery}) and the key-value store ({@link #kv}).
 *
 * <p>Stateless; blocks only for writing the cluster file.
 */
final class PartitionedClusters {
    /** Instances between snapshots. */
    static final long SNAPSHOT_EVERY = 20_000;
    private static final List<String> JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private PartitionedClusters() {
    }

    /**
     * Volery ({@link VoleryClusterFile#local}, ZooKeeper front ends included) of {@code partitions}
     * partitions in {@code dir}.
     *
     * @throws IllegalArgumentException if P is out of range
     */
    static ProcessCluster volery(Path dir, int partitions) throws IOException {
        return volery(dir, partitions, Map.of());
    }

    /** As {@link #volery(Path, int)}, {@code overrides} replacing the keys of the same name (e.g. {@code ring.member.ids}). */
    static ProcessCluster volery(Path dir, int partitions, Map<String, String> overrides) throws IOException {
        return volery(dir, partitions, overrides, null);
    }

    /** As {@link #volery(Path, int, Map)}, on the hosts of {@code bed} when it is not null. */
    static ProcessCluster volery(Path dir, int partitions, Map<String, String> overrides, Testbed bed) throws IOException {
        return cluster(dir, partitions, VoleryClusterFile.local(partitions, RingPaxos.U_RING, dir.resolve("data"), SNAPSHOT_EVERY),
                overrides, bed);
    }

    /**
     * The key-value store ({@code service=kv}, a {@code KvPartition} per replica) of
     * {@code partitions} partitions in {@code dir}; {@code overrides} (e.g. {@code threads} from the
     * command line) replace the keys of the same name.
     *
     * @throws IllegalArgumentException if P is out of range, or the cluster file refuses an override
     */
    static ProcessCluster kv(Path dir, int partitions, Map<String, String> overrides) throws IOException {
        return kv(dir, partitions, overrides, null);
    }

    /** As {@link #kv(Path, int, Map)}, on the hosts of {@code bed} when it is not null. */
    static ProcessCluster kv(Path dir, int partitions, Map<String, String> overrides, Testbed bed) throws IOException {
        Properties p = ProcessCluster.localDefaults(dir.resolve("data"), SNAPSHOT_EVERY);
        p.putAll(VoleryClusterFile.ssmrSettings(partitions, RingPaxos.U_RING));
        return cluster(dir, partitions, p, overrides, bed);
    }

    private static ProcessCluster cluster(Path dir, int partitions, Properties p, Map<String, String> overrides, Testbed bed)
            throws IOException {
        p.putAll(VoleryClusterFile.sharedMachineSettings());
        p.putAll(overrides);
        return new ProcessCluster(dir, VoleryClusterFile.replicas(partitions), p, false, JVM, false, bed)
                .replicaArgs("--metrics-port", "0");
    }
}
