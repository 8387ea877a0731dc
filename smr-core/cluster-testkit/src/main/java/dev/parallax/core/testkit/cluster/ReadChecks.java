package dev.parallax.core.testkit.cluster;

import dev.parallax.core.client.SmrClient;

import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;

/**
 * Checks of the read-only query path on a {@link LocalCluster} of {@link TextKv} replicas, shared by
 * every ordering's replica tests. Blocking; call from the test's thread.
 */
public final class ReadChecks {
    private ReadChecks() {
    }

    /** The queries replica {@code replica} served itself (metric {@code parallax.queries{outcome=served}}). */
    public static double served(LocalCluster cluster, int replica) {
        var c = cluster.replicas.get(replica).meterRegistry().find("parallax.queries").tag("outcome", "served").counter();
        return c == null ? 0 : c.count();
    }

    /**
     * Writes {@code writes} values of key {@code k}; after each completed, a query at every one of the
     * cluster's first three replicas must see it; and each of them must have served at least
     * {@code writes} queries itself (none was ordered instead).
     */
    public static void everyReplicaSeesEveryCompletedWrite(LocalCluster cluster, int writes) throws Exception {
        SmrClient writer = cluster.client();
        SmrClient[] readers = {cluster.readingClient(0), cluster.readingClient(1), cluster.readingClient(2)};
        for (int i = 0; i < writes; i++) {
            writer.invoke(cmd("SET k " + i)).get(20, TimeUnit.SECONDS);
            for (SmrClient r : readers) {
                String seen = text(r.query(cmd("GET k")).get(20, TimeUnit.SECONDS));
                if (!Integer.toString(i).equals(seen)) {
                    throw new AssertionError("after write " + i + " a query read " + seen);
                }
            }
        }
        for (int r = 0; r < 3; r++) {
            if (served(cluster, r) < writes) {
                throw new AssertionError("replica " + r + " served " + served(cluster, r) + " queries, expected "
                        + writes + " at least");
            }
        }
    }
}
