package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.replica.Replica;
import dev.parallax.scheduler.ssmr.PartitionedStateMachine;
import dev.parallax.scheduler.ssmr.ReplicaSsmrExecutor;
import dev.parallax.scheduler.ssmr.SsmrConfig;
import dev.parallax.scheduler.ssmr.SsmrKeys;
import dev.parallax.scheduler.ssmr.SsmrStateMachine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What every partitioned service of a cluster file ({@code execution=s-smr}, seed 004 (S-SMR) §IV)
 * builds alike, in one place for the key-value store ({@code service=kv}, {@code KvPartition}) and
 * Volery ({@code service=volery}): the replica of one partition (the service's
 * {@link PartitionedStateMachine} behind an {@link SsmrStateMachine}, executed by a
 * {@link ReplicaSsmrExecutor}, ordered by multi-ring with its partition's ring and the global ring)
 * and the clients of each partition's replicas a front end or a client sends commands through.
 *
 * <p>Stateless; what it builds follows its own thread contract. Nothing blocks but
 * {@link #connect}, which opens connections.
 */
final class PartitionedReplicas {
    private PartitionedReplicas() {
    }

    /**
     * The replica {@code id} of {@code file}'s partitioned cluster, unstarted, over {@code machine}
     * (the state of the partition {@code id} holds; the caller keeps it for its digest).
     *
     * @throws IllegalArgumentException naming the file and the key if {@code file} is not an
     *                                  {@code execution=s-smr} cluster or {@code id} is not a member
     */
    static Replica.Builder replica(ClusterFile file, int id, PartitionedStateMachine machine) {
        return replica(file, id, null, machine);
    }

    /**
     * As {@link #replica(ClusterFile, int, PartitionedStateMachine)}, for a replica that joins its
     * partition at {@code join} ({@code host:port}, {@code --join}; null for a member of the file):
     * one of a partition's {@code multiring.ring.<p>.joiners}, with {@code ring.member.ids} set.
     *
     * @throws IllegalArgumentException also if {@code join} is given and the file does not let
     *                                  replica {@code id} join ({@link ClusterFile#joinRefusal})
     */
    static Replica.Builder replica(ClusterFile file, int id, String join, PartitionedStateMachine machine) {
        if (!file.execution().partitioned()) {
            throw new IllegalArgumentException("not a partitioned cluster: " + Executions.KEY + "=" + file.execution().configName());
        }
        if (join == null && (id < 0 || id >= file.members().size())) {
            throw new IllegalArgumentException("--id " + id + " is not a member of " + file.members());
        }
        String refused = join == null ? null : file.joinRefusal(id);
        if (refused != null) {
            throw new IllegalArgumentException("--join: " + refused);
        }
        SsmrConfig config = SsmrKeys.apply(file.settings(), SsmrConfig.of(file.partitionOf(id), file.partitions()));
        Replica.Builder builder = Replica.builder().config(file.replica(id, join)).stateMachine(new SsmrStateMachine(machine))
                .ordering(file.orderingProtocol()).executor(new ReplicaSsmrExecutor(config, file.partitionReplicas()));
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
     * One connected client per partition, partition by partition, each trusting the file's CA
     * ({@code tls.client}) and then adjusted by {@code configure}. Client p starts at replica
     * {@code near} when {@code near} holds partition p (its own partition's commands stay local),
     * else at replica {@code near mod size} of p (front ends of different replicas spread their
     * load); {@code near < 0} starts every client at its partition's first replica. The caller owns
     * the clients and closes them.
     */
    static List<SmrClient> connect(ClusterFile file, int near, Consumer<ClientConfig.Builder> configure) {
        List<SmrClient> clients = new ArrayList<>();
        try {
            for (int p = 0; p < file.partitions(); p++) {
                int[] ids = file.partitionMembers().get(p);
                ClientConfig.Builder b = ClientConfig.builder(partitionClients(file, p));
                int own = indexOf(ids, near);
                b.startAt(own >= 0 ? own : near < 0 ? 0 : Math.floorMod(near, ids.length));
                file.clientTrust().ifPresent(b::tlsTrust);
                configure.accept(b);
                clients.add(SmrClient.connect(b.build()));
            }
            return clients;
        } catch (RuntimeException | Error e) {
            clients.forEach(SmrClient::close);
            throw e;
        }
    }

    private static int indexOf(int[] ids, int id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }
}
