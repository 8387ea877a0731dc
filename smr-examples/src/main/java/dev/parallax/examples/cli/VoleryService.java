package dev.parallax.examples.cli;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.Member;
import dev.parallax.core.replica.Replica;
import dev.parallax.examples.volery.VoleryPartition;
import dev.parallax.examples.volery.zk.ReplicatedVoleryBackend;
import dev.parallax.examples.volery.zk.ZkServer;
import dev.parallax.examples.volery.zk.ZkServerConfig;
import dev.parallax.scheduler.ssmr.SsmrStateMachine;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.util.List;

/**
 * Volery (seed 004 (S-SMR) §V-B) as a cluster file runs it ({@code service=volery},
 * {@code execution=s-smr}): the replica of one partition (a {@link VoleryPartition} behind an
 * {@link SsmrStateMachine}, executed by a {@link dev.parallax.scheduler.ssmr.ReplicaSsmrExecutor}, ordered by multi-ring with
 * its partition's ring and the global ring), and the ZooKeeper-protocol front end a replica
 * serves ({@code zookeeper=}), whose commands go to the partitions {@code VoleryOracle} names
 * through one client per partition. The parts every partitioned service shares are
 * {@link PartitionedReplicas}'.
 *
 * <p>Stateless; what it builds follows its own thread contract.
 */
final class VoleryService {
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
        if (!file.service().equals(ClusterFile.VOLERY)) {
            throw new IllegalArgumentException("not a Volery cluster: service=" + file.service());
        }
        return PartitionedReplicas.replica(file, id, partition);
    }

    /**
     * The ZooKeeper front end of replica {@code id}, started on its {@code zookeeper=} address: a
     * {@link ZkServer} (server id {@code id}) over a {@link ReplicatedVoleryBackend} with one client
     * per partition, each starting at this replica when it holds that partition.
     */
    static FrontEnd frontEnd(ClusterFile file, int id, MeterRegistry registry) throws IOException {
        Member at = file.zookeeper().orElseThrow(() -> new IllegalArgumentException("no zookeeper= front ends")).member(id);
        List<SmrClient> clients = PartitionedReplicas.connect(file, id, b -> { });
        try {
            ZkServer server = new ZkServer(ZkServerConfig.of(at.host(), at.port()).withServerId(id)
                    .withSessionSecret(sessionSecret(file)), ReplicatedVoleryBackend.over(clients), registry);
            server.start();
            return new FrontEnd(server, clients);
        } catch (IOException | RuntimeException e) {
            clients.forEach(SmrClient::close);
            throw e;
        }
    }

    /**
     * The secret every front end of {@code file}'s cluster shares, so that a ZooKeeper session
     * opened at one front end is adopted by another when its server dies (the client reconnects
     * with the same session). Derived from the cluster's members and front ends: the same on every
     * replica, different between clusters. It keeps sessions apart, it protects no data (every
     * znode has the open ACL).
     */
    static byte[] sessionSecret(ClusterFile file) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(("parallax volery sessions\n" + file.members() + "\n" + file.zookeeper().map(Object::toString).orElse(""))
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return sha.digest();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A started ZooKeeper front end and its partition clients; closing closes both. */
    record FrontEnd(ZkServer server, List<SmrClient> clients) implements AutoCloseable {
        int port() {
            return server.port();
        }

        @Override
        public void close() {
            server.close();
            clients.forEach(SmrClient::close);
        }
    }
}
