package dev.parallax.bench.systems;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.RoutingInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.kv.KvRouter;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The client connections of a {@link ParallaxSystem}: {@link SmrClient}s (or, for a store
 * partitioned by S-SMR, {@link PartitionedInvoker}s) sharing two client event loops, spread over
 * the replicas: connection {@code k} starts at replica {@code k mod replicas}. With an ordering that
 * orders by group (multi-ring, multicast) each command is addressed by key: a {@link RoutingInvoker}
 * with the key-value store's C-G function, {@link KvRouter} over the spec's
 * {@link ParallaxSpec#groups} groups (the replicas split their store by the same function). Under
 * S-SMR each connection is a {@link PartitionedInvoker} over one client per partition with
 * {@link KvRouter} over the partitions as the oracle (seed 004 (S-SMR) §IV Alg. 1 l.4-7).
 *
 * <p>Not thread-safe: one owner thread opens ({@link #connect}) and {@link #close}s; the invokers
 * returned are thread-safe. {@link #connect} blocks until connected.
 */
final class ParallaxClients implements AutoCloseable {
    private static final Duration INVOKE_TIMEOUT = Duration.ofSeconds(30);

    private final ReplicaCluster cluster;
    private final NioEventLoopGroup group = new NioEventLoopGroup(2, new DefaultThreadFactory("bench-client", true));
    private final List<SmrClient> clients = new ArrayList<>();
    /** The clients of a partitioned store, each owning one client per partition. */
    private final List<PartitionedInvoker> partitionedClients = new ArrayList<>();

    /** The oracle of a partitioned service's clients; null: {@link KvRouter} over the partitions. */
    private final dev.parallax.core.spi.CommandRouter oracle;

    /** Clients of {@code cluster} (started); no connection is opened yet. */
    ParallaxClients(ReplicaCluster cluster) {
        this(cluster, null);
    }

    /** As {@link #ParallaxClients(ReplicaCluster)}, a partitioned service's clients routing with {@code oracle}. */
    ParallaxClients(ReplicaCluster cluster, dev.parallax.core.spi.CommandRouter oracle) {
        this.cluster = cluster;
        this.oracle = oracle;
    }

    /**
     * A client that talks to replica {@code k mod replicas} first, {@code k} counting the
     * connections opened: the load is spread over the replicas. With S-Paxos and Ring Paxos each
     * replica serves its own clients; with Multi-Paxos each client is redirected to the leader once.
     * With Multi-Ring or the reference multicast the client addresses each command by key
     * ({@link KvRouter}); under S-SMR it is one client per partition, client p starting at replica
     * {@code k mod replicas} when that replica holds partition p, else at the
     * {@code (k mod replicas) mod size}-th of p's replicas.
     */
    CommandInvoker connect(int maxOutstanding) {
        int first = (clients.size() + partitionedClients.size()) % cluster.size();
        Consumer<ClientConfig.Builder> configure = b -> b.eventLoopGroup(group).maxOutstanding(Math.max(1, maxOutstanding))
                .invokeTimeout(INVOKE_TIMEOUT);
        ParallaxSpec spec = cluster.spec();
        if (spec.partitioned()) {
            PartitionedInvoker p = partitionedInvoker(first, configure);
            partitionedClients.add(p);
            return p;
        }
        ClientConfig.Builder b = cluster.clientConfig().startAt(first);
        configure.accept(b);
        SmrClient c = SmrClient.connect(b.build());
        clients.add(c);
        return spec.routesByKey() ? new RoutingInvoker(c, new KvRouter(spec.groups())) : c;
    }

    /**
     * One connected client per partition, client p starting at replica {@code near} when it holds
     * partition p (its own partition's commands stay local), else at replica {@code near mod size}
     * of p, behind a {@link PartitionedInvoker} with {@link KvRouter} over the partitions (the
     * function the replicas' partitions split the keys by), which re-sends a command refused with
     * WrongPartitions to the wider set. The invoker owns the clients.
     */
    private PartitionedInvoker partitionedInvoker(int near, Consumer<ClientConfig.Builder> configure) {
        List<int[]> partitions = cluster.partitionMembers();
        List<SmrClient> perPartition = new ArrayList<>();
        try {
            for (int p = 0; p < partitions.size(); p++) {
                int[] ids = partitions.get(p);
                int own = java.util.Arrays.stream(ids).boxed().toList().indexOf(near);
                ClientConfig.Builder b = cluster.trusting(ClientConfig.builder(cluster.partitionClients(p)))
                        .startAt(own >= 0 ? own : Math.floorMod(near, ids.length));
                configure.accept(b);
                perPartition.add(SmrClient.connect(b.build()));
            }
        } catch (RuntimeException | Error e) {
            perPartition.forEach(SmrClient::close);
            throw e;
        }
        return new PartitionedInvoker(perPartition, oracle != null ? oracle : new KvRouter(partitions.size()),
                PartitionedInvoker.DEFAULT_MAX_RETRIES);
    }

    /** Closes every connection opened here and shuts the event loops down (waiting up to a second). */
    @Override
    public void close() {
        clients.forEach(SmrClient::close);
        clients.clear();
        partitionedClients.forEach(PartitionedInvoker::close);
        partitionedClients.clear();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
