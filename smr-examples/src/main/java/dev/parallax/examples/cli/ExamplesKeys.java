package dev.parallax.examples.cli;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.KeyTableProvider;
import dev.parallax.examples.kv.RespServerConfig;

import java.util.List;

/**
 * The cluster-file keys of the bundled services: which service the replicas run
 * ({@code service}) and its front ends ({@code redis}, {@code redis.max.connections}, {@code zookeeper},
 * {@code zookeeper.secure}, {@code zookeeper.max.connections}), where each replica serves its
 * metrics and admin routes ({@code metrics}) and how long {@code parallax replica} hands its
 * leadership over when stopped ({@code shutdown.handover.ms}, {@link ShutdownHandover}). The executor's keys are
 * the cluster's ({@code ClusterConfig}). A {@link java.util.ServiceLoader} service; stateless and
 * thread-safe.
 */
public final class ExamplesKeys implements KeyTableProvider {


    public static final ConfigKey<String> SERVICE = ConfigKey.choice("service", ClusterFile.KV,
            "The replicated service: kv (the key-value store with a Redis front end) or volery (the ZooKeeper service of "
                    + "seed 004 §V-B; needs execution=s-smr).", ClusterFile.KV, ClusterFile.VOLERY);
    public static final ConfigKey<String> REDIS = ConfigKey.text("redis", null, true,
            "Redis-protocol (RESP2) front ends of service=kv, one id=host:port per member.");
    public static final ConfigKey<Integer> REDIS_MAX_CONNECTIONS = ConfigKey.integer(RespServerConfig.MAX_CONNECTIONS_KEY,
            RespServerConfig.DEFAULT_MAX_CONNECTIONS, 1, Integer.MAX_VALUE,
            "Connections each Redis front end keeps open at once; a connection beyond gets '-ERR max number of clients "
                    + "reached' (without TLS) and is closed, as Redis does at maxclients.");
    public static final ConfigKey<String> ZOOKEEPER = ConfigKey.text("zookeeper", null, true,
            "ZooKeeper-protocol front ends of service=volery, one id=host:port per member.");
    public static final ConfigKey<String> ZOOKEEPER_SECURE = ConfigKey.text("zookeeper.secure", null, true,
            "ZooKeeper-protocol front ends over TLS (ZooKeeper's secureClientPort), one id=host:port per member, with "
                    + "or instead of zookeeper; each serves the replica's tls.cert.<id>, so it needs the tls.* files.");
    public static final ConfigKey<Integer> ZOOKEEPER_MAX_CONNECTIONS = ConfigKey.integer(dev.parallax.examples.volery.zk.ZkServerConfig.MAX_CONNECTIONS_KEY,
            4096, 1, Integer.MAX_VALUE, "Open connections per ZooKeeper front-end port past which a new one is closed "
                    + "at once (counted, WARN rate-limited).");

    public static final ConfigKey<String> METRICS = ConfigKey.text("metrics", null, true,
            "Metrics endpoints (HTTP: /metrics and the admin routes of parallax admin), one id=host:port per member; a "
                    + "replica started without --metrics-port serves there, and parallax admin reaches it there.");

    public static final ConfigKey<Long> SHUTDOWN_HANDOVER = ConfigKey.longInteger("shutdown.handover.ms", null, 0, Long.MAX_VALUE,
            "On SIGTERM, how long a replica that leads (ordering=multi-paxos or s-paxos) waits for its leadership to pass to "
                    + "the most caught-up voter before it stops, so a rolling restart has no election gap; 0: stop at once; "
                    + "absent: twice paxos.suspect.ms.");

    /** The table. */
    public static final KeyTable TABLE = KeyTable.of("Services", SERVICE, REDIS, REDIS_MAX_CONNECTIONS, ZOOKEEPER,
            ZOOKEEPER_SECURE, ZOOKEEPER_MAX_CONNECTIONS, METRICS,
            SHUTDOWN_HANDOVER);

    @Override
    public List<KeyTable> keyTables() {
        return List.of(TABLE);
    }
}
