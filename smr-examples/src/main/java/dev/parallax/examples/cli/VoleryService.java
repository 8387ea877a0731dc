package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.replica.Replica;
import dev.parallax.examples.volery.VoleryPartition;
import dev.parallax.examples.volery.zk.ReplicatedVoleryBackend;
import dev.parallax.examples.volery.zk.ZkServer;
import dev.parallax.examples.volery.zk.ZkServerConfig;
import dev.parallax.scheduler.ssmr.ReplicaSsmrExecutor;
import dev.parallax.scheduler.ssmr.SsmrConfig;
import dev.parallax.scheduler.ssmr.SsmrStateMachine;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Volery (seed 004 (S-SMR) §V-B) as a cluster file runs it ({@code service=volery},
 * {@code execution=s-smr}): the replica of one partition (a {@link VoleryPartition} behind an
 * {@link SsmrStateMachine}, executed by a {@link ReplicaSsmrExecutor}, ordered by multi-ring with
 * its partition's ring and the global ring), and the ZooKeeper-protocol front end a replica
 * serves ({@code zookeeper=}), whose commands go to the partitions {@code VoleryOracle} names
 * through one client per partition.
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
        if (id < 0 || id >= file.members().size()) {
            throw new IllegalArgumentException("--id " + id + " is not a member of " + file.members());
        }
        SsmrConfig config = SsmrConfig.of(file.partitionOf(id), file.partitions());
        Replica.Builder builder = Replica.builder().config(file.replica(id)).stateMachine(new SsmrStateMachine(partition))
                .ordering(file.orderingProtocol()).executor(new ReplicaSsmrExecutor(config, file.partitionMembers()));
        file.snapshotEvery().ifPresent(builder::snapshotEvery);
        return builder;
    }

    /**
     * The client endpoints of partition {@code p}'s replicas, numbered 0.. in replica-id order (the
     * multi-ring ordering serves clients at every replica, so no redirect names a replica id).
     */
    static ClusterMembers partitionClients(ClusterFile file, int p) {
        ClusterMembers all = file.replica(0).clientMembers();
        int[] ids = file.partitionMembers().get(p);
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            Member m = all.member(ids[i]);
            members.add(new Member(i, m.host(), m.port()));
        }
        return ClusterMembers.of(members);
    }

    /**
     * The ZooKeeper front end of replica {@code id}, started on its {@code zookeeper=} address: a
     * {@link ZkServer} (server id {@code id}) over a {@link ReplicatedVoleryBackend} with one client
     * per partition, each starting at this replica when it holds that partition.
     */
    static FrontEnd frontEnd(ClusterFile file, int id, MeterRegistry registry) throws IOException {
        Member at = file.zookeeper().orElseThrow(() -> new IllegalArgumentException("no zookeeper= front ends")).member(id);
        int own = file.partitionOf(id);
        int[] ownIds = file.partitionMembers().get(own);
        List<SmrClient> clients = new ArrayList<>();
        try {
            for (int p = 0; p < file.partitions(); p++) {
                ClientConfig.Builder b = ClientConfig.builder(partitionClients(file, p));
                if (p == own) {
                    b.startAt(indexOf(ownIds, id)); // this replica first: its own partition's commands stay local
                } else {
                    b.startAt(Math.floorMod(id, file.partitionMembers().get(p).length));
                }
                file.clientTrust().ifPresent(b::tlsTrust);
                clients.add(SmrClient.connect(b.build()));
            }
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

    private static int indexOf(int[] ids, int id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        throw new IllegalArgumentException("replica " + id + " is not in " + java.util.Arrays.toString(ids));
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
