package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.kv.KvStateMachine;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code execution=p-smr} end to end in one JVM (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6):
 * three replicas of the key-value store assembled from a cluster file as {@code parallax replica}
 * assembles them ({@link KvRouting#stateMachine}, {@link ReplicaCommand#kvReplica}), executed by
 * P-SMR with one worker per group, ordered by either ordering with groups: Multi-Ring Paxos over two
 * U-Ring rings and the global ring ({@code ordering=multi-ring}), or the reference multicast over two
 * Multi-Paxos groups and the global one ({@code ordering=multicast}); the client routes by key
 * ({@link KvRouting#invoker}). Single-group commands
 * (SET, GET, INCR), multi-group ones (MSET, MGET, DEL over keys of both groups) and the whole-store
 * DBSIZE and FLUSHALL answer as a sequential store does, a concurrent load of both groups leaves
 * the expected counts, {@code parallax kv --config} routes as the file says, and the replicas'
 * digests converge.
 */
class PsmrKvClusterTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /**
     * A 3-replica p-smr cluster file over {@code ordering} (multi-ring or multicast) with two groups,
     * on free local ports, with test ring and Paxos timeouts.
     */
    private static ClusterFile clusterFile(String ordering) {
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(3));
        p.setProperty("clients", LocalPorts.endpoints(3));
        p.setProperty("client.io.threads", "1");
        p.setProperty("ordering", ordering);
        if (ordering.equals("multi-ring")) {
            p.setProperty("multiring.kind", "u-ring");
            p.setProperty("multiring.rings", "2");
            InProcessClusterFiles.putTestRingTimeouts(p);
        } else {
            p.setProperty("multicast.groups", "2");
            p.setProperty("paxos.heartbeat.ms", "30");
            p.setProperty("paxos.suspect.ms", "400");
            p.setProperty("paxos.retransmit.ms", "100");
            p.setProperty("paxos.catchup.ms", "50");
            p.setProperty("paxos.restart.hold.ms", "500");
        }
        p.setProperty("execution", "p-smr");
        p.setProperty("threads", "compact");
        return ClusterFile.of(p);
    }

    @ParameterizedTest(name = "ordering={0}")
    @ValueSource(strings = {"multi-ring", "multicast"})
    @DisplayName("seed 003 ch. 6: three replicas over an ordering with groups with execution=p-smr from the cluster file "
            + "answer like a sequential store, single-, multi-group and whole-store commands alike, and converge")
    void pSmrReplicasFromTheClusterFileAnswerLikeASequentialStoreAndConverge(String ordering, @TempDir Path dir) throws Exception {
        ClusterFile file = clusterFile(ordering);
        assertThat(file.ordering().configName()).isEqualTo(ordering);
        assertThat(file.executionThreads()).as("one worker per group").isEqualTo(2);
        KvRouter router = KvRouting.router(file).orElseThrow();
        byte[][] group0 = keysOf(router, 0, 4);
        byte[][] group1 = keysOf(router, 1, 4);
        List<KvStateMachine> stores = new ArrayList<>();
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                KvStateMachine store = KvRouting.stateMachine(file);
                assertThat(store.partitions()).isEqualTo(2);
                stores.add(store);
                replicas.add(ReplicaCommand.kvReplica(file, i, store).build());
            }
            replicas.forEach(Replica::start);
            KvStateMachine reference = new KvStateMachine();
            List<SmrClient> clients = new ArrayList<>();
            try {
                for (int c = 0; c < 3; c++) {
                    clients.add(SmrClient.connect(ClientConfig.builder(file.replica(0).clientMembers()).startAt(c)
                            .invokeTimeout(TIMEOUT).build()));
                }
                CommandInvoker invoker = KvRouting.invoker(file, clients.get(0));
                List<KvCommand> script = new ArrayList<>();
                for (int round = 0; round < 3; round++) {
                    for (int k = 0; k < 4; k++) {
                        script.add(KvCommand.of(KvOp.SET, group0[k], b("a" + round + k)));
                        script.add(KvCommand.of(KvOp.INCR, group1[k]));
                        script.add(KvCommand.of(KvOp.GET, group0[k]));
                    }
                    script.add(KvCommand.of(KvOp.MSET, group0[round], b("m" + round), group1[round], b("n" + round)));
                    script.add(KvCommand.of(KvOp.MGET, group0[round], group1[round], group0[3], group1[3]));
                    script.add(KvCommand.of(KvOp.DBSIZE));
                    script.add(KvCommand.of(KvOp.DEL, group0[round + 1], group1[round]));
                    script.add(KvCommand.of(KvOp.EXISTS, group0[round + 1], group1[round], group1[3]));
                    script.add(KvCommand.of(KvOp.DBSIZE));
                    if (round == 1) {
                        script.add(KvCommand.of(KvOp.FLUSHALL));
                        script.add(KvCommand.of(KvOp.DBSIZE));
                        script.add(KvCommand.of(KvOp.GET, group1[0]));
                    }
                }
                for (int i = 0; i < script.size(); i++) {
                    KvCommand c = script.get(i);
                    ByteBuffer expected = reference.execute(c.encode());
                    ByteBuffer actual = invoker.invoke(c.encode()).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    assertThat(KvReply.decode(actual)).as("reply %d to %s", i, c).isEqualTo(KvReply.decode(expected));
                }
                // Concurrent load: each client increments its own keys of both groups, with a whole-store read among them.
                int increments = 40;
                List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
                for (int n = 0; n < increments; n++) {
                    for (int c = 0; c < clients.size(); c++) {
                        CommandInvoker routed = KvRouting.invoker(file, clients.get(c));
                        replies.add(routed.invoke(KvCommand.of(KvOp.INCR, counter(router, c, 0)).encode()));
                        replies.add(routed.invoke(KvCommand.of(KvOp.INCR, counter(router, c, 1)).encode()));
                        if (n % 10 == 0) {
                            replies.add(routed.invoke(KvCommand.of(KvOp.DBSIZE).encode()));
                        }
                    }
                }
                for (CompletableFuture<ByteBuffer> r : replies) {
                    r.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                }
                for (int c = 0; c < clients.size(); c++) {
                    for (int g = 0; g < 2; g++) {
                        byte[] key = counter(router, c, g);
                        ByteBuffer value = invoker.invoke(KvCommand.of(KvOp.GET, key).encode()).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                        assertThat(KvReply.decode(value)).as("client %d's counter of group %d", c, g)
                                .isEqualTo(new KvReply.Bulk(b(Integer.toString(increments))));
                        reference.execute(KvCommand.of(KvOp.SET, key, b(Integer.toString(increments))).encode());
                    }
                }
                // Bad input: a client that does not route (its commands travel to group 0) writing a
                // group-1 key would race worker 1; it gets an error, the same at every replica, and
                // the key keeps its value.
                byte[] other = counter(router, 0, 1);
                assertThatThrownBy(() -> clients.get(1).invoke(KvCommand.of(KvOp.SET, other, b("unrouted")).encode())
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .hasCauseInstanceOf(dev.parallax.core.client.CommandRejectedException.class)
                        .hasMessageContaining("was addressed to groups");
                assertThat(KvReply.decode(invoker.invoke(KvCommand.of(KvOp.GET, other).encode())
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)))
                        .isEqualTo(new KvReply.Bulk(b(Integer.toString(increments))));
            } finally {
                clients.forEach(SmrClient::close);
            }
            // parallax kv --config routes by key as the cluster file says: a group-1 key, then the whole store.
            Path configFile = dir.resolve("cluster.properties");
            file.write(configFile);
            assertThat(InProcessClusterFiles.kv(configFile, "set", "cli-key", "via-cli")).isEqualTo("OK");
            reference.execute(KvCommand.of(KvOp.SET, b("cli-key"), b("via-cli")).encode());
            assertThat(InProcessClusterFiles.kv(configFile, "get", "cli-key")).isEqualTo("\"via-cli\"");
            long size = ((KvReply.Int) KvReply.decode(reference.execute(KvCommand.of(KvOp.DBSIZE).encode()))).value();
            assertThat(InProcessClusterFiles.kv(configFile, "dbsize")).isEqualTo("(integer) " + size);
            Await.until(TIMEOUT, () -> stores.stream().allMatch(s -> s.digest() == reference.digest()),
                    () -> "every replica's store to match the reference");
            for (int i = 0; i < 3; i++) {
                assertThat(stores.get(i).digest()).as("replica %d's store", i).isEqualTo(reference.digest());
                assertThat(replicas.get(i).failure()).isEmpty();
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    /** The first {@code count} keys {@code k<i>} of group {@code group}. */
    private static byte[][] keysOf(KvRouter router, int group, int count) {
        byte[][] keys = new byte[count][];
        int found = 0;
        for (int i = 0; found < count; i++) {
            byte[] key = b("k" + i);
            if (router.groupOf(key) == group) {
                keys[found++] = key;
            }
        }
        return keys;
    }

    /** Client {@code client}'s counter key in group {@code group}. */
    private static byte[] counter(KvRouter router, int client, int group) {
        for (int i = 0; ; i++) {
            byte[] key = b("counter-" + client + "-" + i);
            if (router.groupOf(key) == group) {
                return key;
            }
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
