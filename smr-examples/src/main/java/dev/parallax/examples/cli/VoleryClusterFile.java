package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.ringpaxos.RingPaxos;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;

/**
 * The cluster-file settings of a Volery cluster (seed 004 (S-SMR) §V-B and §VI) on this machine:
 * P partitions of {@value #REPLICAS_PER_PARTITION} replicas ({@code service=volery},
 * {@code execution=s-smr}, {@code ordering=multi-ring} with {@code multiring.rings=P}: one ring per
 * partition over its replicas and the global ring over all; members {@code 0..3P-1}, partition p =
 * replicas 3p..3p+2), every replica with a ZooKeeper-protocol front end ({@code zookeeper=}) on a
 * port free now. The one builder of such a file: {@code parallax volery}, {@code parallax demo},
 * {@code chaos --service volery} and the process tests use it (the benchmarks write their own from a spec);
 * {@link ProcessCluster} adds the members and client ports (and, for M-Ring rings, a free UDP port
 * run and a multicast group).
 *
 * <p>Stateless; thread-safe.
 */
public final class VoleryClusterFile {
    /** Replicas per partition (seed 004 §VI: three acceptors and replicas per ring). */
    public static final int REPLICAS_PER_PARTITION = 3;
    /** The most partitions a local cluster runs: 3P replica JVMs on one machine (Multi-Ring allows more rings). */
    public static final int MAX_PARTITIONS = 21;

    private VoleryClusterFile() {
    }

    /**
     * The number of replicas of {@code partitions} partitions, 3P.
     *
     * @throws IllegalArgumentException naming the range if {@code partitions} is not 1..{@value #MAX_PARTITIONS}
     */
    public static int replicas(int partitions) {
        checkPartitions(partitions);
        return REPLICAS_PER_PARTITION * partitions;
    }

    /**
     * @throws IllegalArgumentException naming the range if {@code partitions} is not 1..{@value #MAX_PARTITIONS}
     */
    public static void checkPartitions(int partitions) {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be 1.." + MAX_PARTITIONS + ", not " + partitions);
        }
    }

    /**
     * The keys that make a cluster file Volery's, in this order: {@code service}, {@code execution},
     * {@code ordering}, {@code multiring.rings} (P) and {@code multiring.kind} ({@code ringKind}).
     *
     * @param ringKind every ring's variant, {@value RingPaxos#U_RING} (TCP only) or
     *                 {@value RingPaxos#M_RING} (IP multicast)
     * @throws IllegalArgumentException naming the accepted values if {@code partitions} or
     *                                  {@code ringKind} is not one
     */
    public static Map<String, String> settings(int partitions, String ringKind) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put(ClusterFile.SERVICE_KEY, ClusterFile.VOLERY);
        s.putAll(ssmrSettings(partitions, ringKind));
        return s;
    }

    /**
     * The keys of any service's S-SMR cluster of P partitions (seed 004 (S-SMR) §IV), in this order:
     * {@code execution=s-smr}, {@code ordering=multi-ring}, {@code multiring.rings} (P) and
     * {@code multiring.kind} ({@code ringKind}); {@link #settings} adds {@code service=volery}, the
     * key-value store's demo and chaos run ({@link PartitionedClusters}) take them as they are.
     *
     * @throws IllegalArgumentException as {@link #settings}
     */
    public static Map<String, String> ssmrSettings(int partitions, String ringKind) {
        checkPartitions(partitions);
        if (!RingPaxos.U_RING.equals(ringKind) && !RingPaxos.M_RING.equals(ringKind)) {
            throw new IllegalArgumentException("the ring kind must be " + RingPaxos.U_RING + " or " + RingPaxos.M_RING
                    + ", not '" + ringKind + "'");
        }
        Map<String, String> s = new LinkedHashMap<>();
        s.put(Executions.KEY, Executions.S_SMR.configName());
        s.put(Orderings.KEY, Orderings.MULTI_RING.configName());
        s.put("multiring.rings", Integer.toString(partitions));
        s.put("multiring.kind", ringKind);
        return s;
    }

    /**
     * The settings of a local Volery cluster: {@link ProcessCluster#localDefaults} (durable state
     * under {@code dataDir} with a snapshot every {@code snapshotEvery} instances, when
     * {@code dataDir} is given), {@link #settings}, and {@code zookeeper=} front ends on 3P ports of
     * 127.0.0.1 free now. Pass them, with any extra keys, to
     * {@code new ProcessCluster(dir, replicas(partitions), ...)}.
     *
     * @throws IllegalArgumentException as {@link #settings}
     */
    public static Properties local(int partitions, String ringKind, Path dataDir, long snapshotEvery) {
        Map<String, String> volery = settings(partitions, ringKind);
        Properties p = ProcessCluster.localDefaults(dataDir, snapshotEvery);
        p.putAll(volery);
        p.setProperty("zookeeper", LocalPorts.endpoints(replicas(partitions)));
        return p;
    }

    /**
     * Settings for 3P replica JVMs that share one small machine (a laptop, a 2-core CI runner):
     * {@code threads=compact} (one stage thread per protocol instead of a staged pipeline),
     * {@code ring.lambda=2000} (a smaller logical rate for the rings' numbering),
     * {@code ring.delta.ms=20} (each ring's coordinator decides a skip instance every 20 ms instead of
     * 5: an idle Multi-Ring replica costs about 0.2 of a core instead of 0.4 on the 2-core machine,
     * docs/benchmarks.md "Idle CPU", for up to 20 ms more merge wait behind an idle ring),
     * {@code ring.heartbeat.ms=100} and {@code ring.suspect.ms=1000} (a JVM paused
     * by start-up compilation or a busy machine is not taken for a crashed one; a real crash is
     * still noticed within a second) and {@code ring.restart.hold.ms=500}. {@code parallax volery}
     * and the process tests add them to {@link #local}; a benchmark sets its own.
     */
    public static Map<String, String> sharedMachineSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("threads", "compact");
        s.put("ring.lambda", "2000");
        s.put("ring.delta.ms", "20");
        s.put("ring.heartbeat.ms", "100");
        s.put("ring.suspect.ms", "1000");
        s.put("ring.restart.hold.ms", "500");
        return s;
    }

    /**
     * The ZooKeeper connect string of {@code file}'s front ends {@code ids} (all of them, in replica
     * order, when none is given): {@code host:port,host:port,...}, as ZooKeeper's client and zkCli
     * take it.
     *
     * @throws IllegalArgumentException if {@code file} has no {@code zookeeper=} front ends
     */
    public static String connectString(ClusterFile file, int... ids) {
        ClusterMembers zk = file.zookeeper().orElseThrow(() -> new IllegalArgumentException("no zookeeper= front ends"));
        StringJoiner s = new StringJoiner(",");
        if (ids.length == 0) {
            for (Member m : zk.members()) {
                s.add(m.host() + ":" + m.port());
            }
        } else {
            for (int id : ids) {
                Member m = zk.member(id);
                s.add(m.host() + ":" + m.port());
            }
        }
        return s.toString();
    }
}
