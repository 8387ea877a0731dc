package dev.parallax.examples.cli;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.examples.volery.VoleryPartition;
import dev.parallax.examples.volery.zk.ReplicatedVoleryBackend;
import dev.parallax.examples.volery.zk.ZkServer;
import dev.parallax.examples.volery.zk.ZkServerConfig;
import dev.parallax.scheduler.ssmr.SsmrStateMachine;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Volery (seed 004 (S-SMR) §V-B) as a cluster file runs it ({@code service=volery},
 * {@code execution=s-smr}): the replica of one partition (a {@link VoleryPartition} behind an
 * {@link SsmrStateMachine}, executed by a {@link dev.parallax.scheduler.ssmr.ReplicaSsmrExecutor}, ordered by multi-ring with
 * its partition's ring and the global ring), and the ZooKeeper-protocol front end a replica
 * serves ({@code zookeeper=}, and {@code zookeeper.secure=} for TLS), whose commands go to the partitions {@code VoleryOracle} names
 * through one client per partition. The parts every partitioned service shares are
 * {@link PartitionedReplicas}'.
 *
 * <p>Stateless but for a flag that logs the missing cluster secret once; thread-safe. What it builds
 * follows its own thread contract.
 */
final class VoleryService {
    /** What the cluster secret's key for Volery session passwords is derived for ({@link ClusterSecret#derive}). */
    static final String SESSION_KEY_PURPOSE = "parallax volery zookeeper session passwords";

    private static final Logger LOG = LoggerFactory.getLogger(VoleryService.class);
    private static final AtomicBoolean NO_SECRET_LOGGED = new AtomicBoolean();

    private VoleryService() {
    }

    /**
     * The replica {@code id} of a Volery cluster, unstarted, over {@code partition}'s state (the
     * caller keeps it for its digest).
     *
     * @throws IllegalArgumentException naming the file and the key if {@code file} is not a Volery
     *                                  cluster or {@code id} is not a member
     */
    static Replica.Builder replica(ClusterFile file, int id, VoleryPartition partition) {
        return replica(file, id, null, partition);
    }

    /** As {@link #replica(ClusterFile, int, VoleryPartition)}, joining its partition at {@code join} (null: a member). */
    static Replica.Builder replica(ClusterFile file, int id, String join, VoleryPartition partition) {
        if (!file.service().equals(ClusterFile.VOLERY)) {
            throw new IllegalArgumentException("not a Volery cluster: service=" + file.service());
        }
        return PartitionedReplicas.replica(file, id, join, partition);
    }

    /**
     * The ZooKeeper front end of replica {@code id}: a {@link ZkServer} (server id {@code id}) over a
     * {@link ReplicatedVoleryBackend} with one client per partition, each starting at this replica when
     * it holds that partition, started on its {@code zookeeper=} address (plain TCP) and its
     * {@code zookeeper.secure=} address (TLS with the replica's certificate, ZooKeeper's
     * {@code secureClientPort}), whichever the file names. Both servers use one session secret: a
     * session moves between them, and, with a cluster secret, to every front end of the cluster.
     * Blocks while it binds.
     *
     * @throws IllegalArgumentException if the file names neither, or the TLS files cannot be read
     * @throws IOException              if an address cannot be bound
     */
    static FrontEnd frontEnd(ClusterFile file, int id, MeterRegistry registry) throws IOException {
        if (!hasFrontEnds(file)) {
            throw new IllegalArgumentException("no zookeeper= or zookeeper.secure= front ends");
        }
        byte[] shared = new byte[ClusterSecret.GENERATED_BYTES];
        if (ReplicaKeys.clusterSecret(file.settings()).isEmpty()) {
            new SecureRandom().nextBytes(shared);
            if (NO_SECRET_LOGGED.compareAndSet(false, true)) {
                LOG.warn("no {}: the ZooKeeper front end of replica {} makes its session passwords under a random"
                        + " secret of its own, so a session does not move to another replica's front end (its client"
                        + " gets SessionExpired); ./parallax certs writes a cluster secret", ReplicaKeys.CLUSTER_SECRET.name(), id);
            }
        }
        List<SmrClient> clients = PartitionedReplicas.connect(file, id, b -> { });
        List<ZkServer> servers = new ArrayList<>();
        try {
            ReplicatedVoleryBackend backend = ReplicatedVoleryBackend.over(clients);
            Optional<Member> plain = file.zookeeper().map(z -> z.member(id));
            Optional<Member> secure = file.zookeeperSecure().map(z -> z.member(id));
            TlsContexts tls = secure.isPresent() ? TlsContexts.load(file.tls(id)) : null;
            for (Member at : plain.isPresent() && secure.isPresent() ? List.of(plain.get(), secure.get())
                    : List.of(plain.orElseGet(secure::get))) {
                ZkServerConfig config = serverConfig(file, id, at.host(), at.port());
                if (config.sessionSecret() == null) {
                    config = config.withSessionSecret(shared);
                }
                if (secure.isPresent() && at == secure.get()) {
                    config = config.withTls(tls);
                }
                ZkServer server = new ZkServer(config, backend, registry);
                servers.add(server);
                server.start();
            }
            return new FrontEnd(servers, clients);
        } catch (IOException | RuntimeException e) {
            servers.forEach(ZkServer::close);
            clients.forEach(SmrClient::close);
            throw e;
        }
    }

    /** Whether {@code file} names ZooKeeper front ends ({@code zookeeper=} or {@code zookeeper.secure=}). */
    static boolean hasFrontEnds(ClusterFile file) {
        return file.zookeeper().isPresent() || file.zookeeperSecure().isPresent();
    }

    /**
     * The settings of replica {@code id}'s ZooKeeper front end on {@code host:port}, plain TCP: server
     * id {@code id}, {@code zookeeper.max.connections}, and the session secret — with a cluster secret
     * ({@code cluster.secret}) the key it derives for Volery sessions, the same at every front end of
     * the cluster and unknown to anyone without the secret file (sessions move between front ends);
     * without one none (each server then makes a random secret of its own).
     *
     * @throws IllegalArgumentException naming the file and the key if the secret file cannot be read
     */
    static ZkServerConfig serverConfig(ClusterFile file, int id, String host, int port) {
        ZkServerConfig config = ZkServerConfig.of(host, port).withServerId(id)
                .withMaxConnections(file.settings().get(ExamplesKeys.ZOOKEEPER_MAX_CONNECTIONS));
        return ReplicaKeys.clusterSecret(file.settings())
                .map(secret -> config.withSessionSecret(secret.derive(SESSION_KEY_PURPOSE)))
                .orElse(config);
    }

    /**
     * A started ZooKeeper front end — its servers (plain, TLS, or both, in that order) — and its
     * partition clients; closing closes both.
     */
    record FrontEnd(List<ZkServer> servers, List<SmrClient> clients) implements AutoCloseable {
        /** The port of the first server: the plain one if there is one. */
        int port() {
            return servers.get(0).port();
        }

        @Override
        public void close() {
            servers.forEach(ZkServer::close);
            clients.forEach(SmrClient::close);
        }
    }
}
