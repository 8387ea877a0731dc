package dev.parallax.bench.systems;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.cli.KvRouting;
import dev.parallax.examples.cli.ProcessCluster;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The client connections of a {@link ParallaxSystem}: {@link SmrClient}s (or, for a store
 * partitioned by S-SMR, {@link PartitionedInvoker}s) sharing two client event loops, spread over
 * the replicas: connection {@code k} starts at replica {@code k mod replicas}. With an ordering that
 * orders by group (multi-ring, multicast) each command is addressed by key ({@link KvRouting}).
 *
 * <p>Not thread-safe: one owner thread opens ({@link #connect}) and {@link #close}s; the invokers
 * returned are thread-safe. {@link #connect} blocks until connected.
 */
final class ParallaxClients implements AutoCloseable {
    private static final Duration INVOKE_TIMEOUT = Duration.ofSeconds(30);

    private final ProcessCluster cluster;
    private final boolean partitioned;
    private final NioEventLoopGroup group = new NioEventLoopGroup(2, new DefaultThreadFactory("bench-client", true));
    private final List<SmrClient> clients = new ArrayList<>();
    /** The clients of a partitioned store, each owning one client per partition. */
    private final List<PartitionedInvoker> partitionedClients = new ArrayList<>();

    /**
     * Clients of {@code cluster} (started); no connection is opened yet.
     *
     * @param partitioned whether the replicas run the store partitioned by S-SMR
     */
    ParallaxClients(ProcessCluster cluster, boolean partitioned) {
        this.cluster = cluster;
        this.partitioned = partitioned;
    }

    /**
     * A client that talks to replica {@code k mod replicas} first, {@code k} counting the
     * connections opened: the load is spread over the replicas. With S-Paxos and Ring Paxos each
     * replica serves its own clients; with Multi-Paxos each client is redirected to the leader once.
     * With Multi-Ring or the reference multicast the client addresses each command by key
     * ({@link KvRouting}); under S-SMR it is one client per partition, each starting at replica
     * {@code k mod replicas} for its own partition.
     */
    CommandInvoker connect(int maxOutstanding) {
        int first = (clients.size() + partitionedClients.size()) % cluster.size();
        if (partitioned) {
            PartitionedInvoker p = KvRouting.partitionedInvoker(cluster.clusterFile(), first, b -> b.eventLoopGroup(group)
                    .maxOutstanding(Math.max(1, maxOutstanding)).invokeTimeout(INVOKE_TIMEOUT));
            partitionedClients.add(p);
            return p;
        }
        SmrClient c = SmrClient.connect(cluster.clientConfig().startAt(first).eventLoopGroup(group)
                .maxOutstanding(Math.max(1, maxOutstanding)).invokeTimeout(INVOKE_TIMEOUT).build());
        clients.add(c);
        return KvRouting.invoker(cluster.clusterFile(), c);
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
