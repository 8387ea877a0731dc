package dev.parallax.examples.cli;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.RoutingInvoker;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.kv.KvStateMachine;

import java.util.Optional;

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
 * <p>Stateless and thread-safe; nothing blocks.
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
     */
    public static CommandInvoker invoker(ClusterFile file, CommandInvoker delegate) {
        Optional<KvRouter> router = router(file);
        return router.isPresent() ? new RoutingInvoker(delegate, router.get()) : delegate;
    }
}
