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
        return counted(cluster, replica, "served");
    }

    private static double counted(LocalCluster cluster, int replica, String outcome) {
        var c = cluster.replicas.get(replica).meterRegistry().find("parallax.queries").tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    /**
     * Writes {@code writes} values of key {@code k}; after each completed, a query at every one of the
     * cluster's first three replicas must see it; each of them must have served queries itself, and
     * together all of them (none was ordered instead).
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
        double total = 0;
        StringBuilder counts = new StringBuilder();
        for (int r = 0; r < 3; r++) {
            counts.append(" replica ").append(r).append(": served ").append((long) served(cluster, r)).append(", asked again ")
                    .append((long) counted(cluster, r, "redirected"));
        }
        System.out.println("queries after " + writes + " writes:" + counts);
        for (int r = 0; r < 3; r++) {
            double served = served(cluster, r);
            if (served <= 0) {
                throw new AssertionError("replica " + r + " served no query");
            }
            total += served;
        }
        // Each query is served once, by its reader's replica or, after that replica told it to ask
        // again (no position yet: an election, a stream without a leader), by another one.
        if (total < 3.0 * writes) {
            throw new AssertionError("the replicas served " + total + " queries, expected " + 3 * writes
                    + ": some were ordered instead");
        }
    }
}
