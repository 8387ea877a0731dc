package dev.parallax.examples.cli;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.KeyTableProvider;

import java.util.List;

/**
 * The cluster-file keys of the bundled services and of executor selection: which service the
 * replicas run ({@code service}), its front ends ({@code redis}, {@code zookeeper}) and the
 * executor ({@code execution}, {@code execution.threads}). A {@link java.util.ServiceLoader}
 * service; stateless and thread-safe.
 */
public final class ExamplesKeys implements KeyTableProvider {

    /** Workers of a parallel executor when {@code execution.threads} is absent. */
    public static final int DEFAULT_EXECUTION_THREADS = 2;

    public static final ConfigKey<String> SERVICE = ConfigKey.choice("service", ClusterFile.KV,
            "The replicated service: kv (the key-value store with a Redis front end) or volery (the ZooKeeper service of "
                    + "seed 004 §V-B; needs execution=s-smr).", ClusterFile.KV, ClusterFile.VOLERY);
    public static final ConfigKey<String> REDIS = ConfigKey.text("redis", null, true,
            "Redis-protocol (RESP2) front ends of service=kv, one id=host:port per member.");
    public static final ConfigKey<String> ZOOKEEPER = ConfigKey.text("zookeeper", null, true,
            "ZooKeeper-protocol front ends of service=volery, one id=host:port per member.");
    public static final ConfigKey<String> EXECUTION = ConfigKey.text("execution", Executions.DEFAULT.configName(), false,
            "The executor: sequential (default), late-scheduling, early-barrier, early-busy-wait, early-ws-queue, "
                    + "early-ws-semi-blocked, early-ws-non-blocked, early-ws-opt, p-smr or s-smr.");
    public static final ConfigKey<Integer> EXECUTION_THREADS = ConfigKey.integer("execution.threads", DEFAULT_EXECUTION_THREADS,
            Integer.MIN_VALUE, Integer.MAX_VALUE,
            "Workers of a parallel executor (>= 1); with p-smr one per group, equal to the ordering's groups (its default).");

    /** The table. */
    public static final KeyTable TABLE = KeyTable.of("Services and execution", SERVICE, REDIS, ZOOKEEPER, EXECUTION,
            EXECUTION_THREADS);

    @Override
    public List<KeyTable> keyTables() {
        return List.of(TABLE);
    }
}
