package dev.parallax.examples.cli;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.KeyTableProvider;

import java.util.List;

/**
 * The cluster-file keys of the bundled services: which service the replicas run
 * ({@code service}) and its front ends ({@code redis}, {@code zookeeper}). The executor's keys are
 * the cluster's ({@code ClusterConfig}). A {@link java.util.ServiceLoader} service; stateless and
 * thread-safe.
 */
public final class ExamplesKeys implements KeyTableProvider {


    public static final ConfigKey<String> SERVICE = ConfigKey.choice("service", ClusterFile.KV,
            "The replicated service: kv (the key-value store with a Redis front end) or volery (the ZooKeeper service of "
                    + "seed 004 §V-B; needs execution=s-smr).", ClusterFile.KV, ClusterFile.VOLERY);
    public static final ConfigKey<String> REDIS = ConfigKey.text("redis", null, true,
            "Redis-protocol (RESP2) front ends of service=kv, one id=host:port per member.");
    public static final ConfigKey<String> ZOOKEEPER = ConfigKey.text("zookeeper", null, true,
            "ZooKeeper-protocol front ends of service=volery, one id=host:port per member.");

    /** The table. */
    public static final KeyTable TABLE = KeyTable.of("Services", SERVICE, REDIS, ZOOKEEPER);

    @Override
    public List<KeyTable> keyTables() {
        return List.of(TABLE);
    }
}
