package dev.parallax.examples.cli;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.RoutingInvoker;
import dev.parallax.examples.kv.KvRouter;

import java.util.Optional;

/**
 * How clients of the key-value store address their commands on the cluster a {@link ClusterFile}
 * describes: with {@code ordering=multi-ring} (Multi-Ring Paxos, seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 5) by key over the {@code multiring.rings} groups ({@link KvRouter}); with any other
 * ordering to the default group, as before. The Redis front end, the demo's and chaos run's loads,
 * the history clients of the process tests and the benchmark clients all go through
 * {@link #invoker}.
 *
 * <p>Stateless and thread-safe; nothing blocks.
 */
public final class KvRouting {
    private KvRouting() {
    }

    /** The router of {@code file}'s cluster: a {@link KvRouter} over k groups with Multi-Ring, else empty. */
    public static Optional<KvRouter> router(ClusterFile file) {
        return file.ordering() == Orderings.MULTI_RING ? Optional.of(new KvRouter(file.multiRing().rings())) : Optional.empty();
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
