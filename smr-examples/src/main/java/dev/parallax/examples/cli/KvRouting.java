package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.RoutingInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.kv.KvPartition;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.kv.KvStateMachine;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * How the key-value store is split by group on the cluster a {@link ClusterFile} describes, in one
 * place for its clients and its replicas. Clients address their commands, with an ordering that
 * orders by group ({@link ClusterFile#routesByKey()}: {@code ordering=multi-ring}, Multi-Ring Paxos,
 * or {@code ordering=multicast}, the reference multicast; seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5), by key over the ordering's groups ({@link ClusterFile#orderingGroups()}: {@code multiring.rings}
 * or {@code multicast.groups}; {@link KvRouter}, the store's C-G function); with any other
 * ordering to the default group, as before. The Redis front end, the demo's and chaos run's loads,
 * the history clients of the process tests and the benchmark clients all go through
 * {@link #invoker}. Replicas build their store with {@link #stateMachine}: with
 * {@code execution=p-smr} (seed 003 ch. 6) partitioned by the same k groups as the router, so that
 * the commands P-SMR's workers run concurrently (disjoint groups) touch disjoint partitions.
 *
 * <p><b>S-SMR</b> ({@code execution=s-smr}, seed 004 (S-SMR) §IV): each replica holds one partition
 * of the store, a {@link KvPartition} ({@link #partition}), partition p being the keys
 * {@link KvRouter} routes to group p; a client must send each command to a replica of a partition
 * it involves, so it goes through {@link #partitionedInvoker} (one client per partition, the
 * router as the oracle) instead of {@link #invoker}, which refuses such a cluster.
 *
 * <p>Stateless and thread-safe; nothing blocks but {@link #partitionedInvoker}, which connects.
 */
public final class KvRouting {
    private KvRouting() {
    }

    /** k, the number of groups the clients route over: {@link ClusterFile#orderingGroups()} (1 with an ordering without groups). */
    public static int groups(ClusterFile file) {
        return file.orderingGroups();
    }

    /**
     * The router of {@code file}'s cluster: a {@link KvRouter} over {@link #groups} groups with an
     * ordering that orders by group ({@link ClusterFile#routesByKey()}), else empty.
     */
    public static Optional<KvRouter> router(ClusterFile file) {
        return file.routesByKey() ? Optional.of(new KvRouter(groups(file))) : Optional.empty();
    }

    /**
     * The partitions of the store a replica of {@code file}'s cluster runs: {@link #groups} with an
     * executor that runs one worker per group ({@code execution=p-smr}), else 1 (every other
     * executor orders the store's commands by itself, see {@link KvClassifier}).
     */
    public static int partitions(ClusterFile file) {
        return file.execution().oneWorkerPerGroup() ? groups(file) : 1;
    }

    /** A new, empty store for a replica of {@code file}'s cluster, of {@link #partitions} partitions. */
    public static KvStateMachine stateMachine(ClusterFile file) {
        return new KvStateMachine(partitions(file));
    }

    /**
     * {@code delegate} addressing each command by {@link #router}'s router ({@link RoutingInvoker}),
     * or {@code delegate} itself when the ordering has one group.
     *
     * @throws IllegalArgumentException if the store is {@link #partitioned} (use {@link #partitionedInvoker})
     */
    public static CommandInvoker invoker(ClusterFile file, CommandInvoker delegate) {
        if (partitioned(file)) {
            throw new IllegalArgumentException(Executions.KEY + "=" + Executions.S_SMR.configName() + " splits the store into "
                    + file.partitions() + " partitions: send through KvRouting.partitionedInvoker (one client per partition), "
                    + "not one client of every replica");
        }
        Optional<KvRouter> router = router(file);
        return router.isPresent() ? new RoutingInvoker(delegate, router.get()) : delegate;
    }

    /** Whether {@code file}'s replicas each hold one partition of the store ({@code execution=s-smr}). */
    public static boolean partitioned(ClusterFile file) {
        return file.execution().partitioned();
    }

    /**
     * A new, empty partition of the store for a replica of {@code file}'s {@link #partitioned}
     * cluster: a {@link KvPartition} of {@link ClusterFile#partitions()} partitions.
     *
     * @throws IllegalArgumentException if the cluster is not partitioned
     */
    public static KvPartition partition(ClusterFile file) {
        if (!partitioned(file)) {
            throw new IllegalArgumentException("the store is partitioned with " + Executions.KEY + "="
                    + Executions.S_SMR.configName() + " only, got " + Executions.KEY + "=" + file.execution().configName());
        }
        return new KvPartition(file.partitions());
    }

    /**
     * The client side of a {@link #partitioned} store (seed 004 (S-SMR) §IV Alg. 1 l.4-7): a
     * {@link PartitionedInvoker} over one {@link SmrClient} per partition, with {@link KvRouter}
     * over the partitions as the oracle (the same function the replicas' {@link KvPartition}s split
     * the keys by), re-sending a command refused with WrongPartitions to the wider set
     * ({@link PartitionedInvoker#DEFAULT_MAX_RETRIES}). Client p starts at replica {@code near}
     * when it holds partition p, else spreads by {@code near} ({@code near < 0}: each partition's
     * first replica); each trusts the file's CA and is then adjusted by {@code configure}. The
     * returned invoker owns the clients: closing it closes them.
     *
     * @throws IllegalArgumentException if the cluster is not partitioned
     */
    public static PartitionedInvoker partitionedInvoker(ClusterFile file, int near, Consumer<ClientConfig.Builder> configure) {
        if (!partitioned(file)) {
            throw new IllegalArgumentException("not a partitioned store: " + Executions.KEY + "=" + file.execution().configName()
                    + "; use KvRouting.invoker");
        }
        List<SmrClient> clients = PartitionedReplicas.connect(file, near, configure);
        return new PartitionedInvoker(clients, new KvRouter(file.partitions()), PartitionedInvoker.DEFAULT_MAX_RETRIES);
    }
}
