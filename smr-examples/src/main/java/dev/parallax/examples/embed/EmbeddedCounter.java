package dev.parallax.examples.embed;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.runtime.ClusterConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Parallax embedded in a service, the whole of it (docs/embedding.md walks through it): three
 * replicas of a {@link Counter} started in this JVM from a cluster file, and a client that adds to
 * the counter through them. In production each replica runs in its own process on its own machine
 * with {@code Replica.builder().cluster(cluster, myId)}; the rest is the same.
 *
 * <p>Run: {@code java -cp parallax.jar dev.parallax.examples.embed.EmbeddedCounter cluster.properties}.
 * {@link #run} blocks until its increments are acknowledged and the replicas are closed.
 */
public final class EmbeddedCounter {

    private EmbeddedCounter() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("counter = " + run(Path.of(args.length > 0 ? args[0] : "cluster.properties"), 10));
    }

    /** Starts every replica of {@code clusterFile}, adds 1 {@code increments} times, returns the counter. */
    public static long run(Path clusterFile, int increments) throws Exception {
        ClusterConfig cluster = ClusterConfig.load(clusterFile);
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int id = 0; id < cluster.members().size(); id++) {
                Replica replica = Replica.builder().cluster(cluster, id).stateMachine(new Counter()).build();
                replica.start();
                replicas.add(replica);
            }
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(cluster.clientEndpoints()).build())) {
                long value = 0;
                for (int i = 0; i < increments; i++) {
                    value = client.invoke(Counter.add(1)).get(30, TimeUnit.SECONDS).getLong(0);
                }
                return value;
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }
}
