package dev.parallax.examples.cli;

import dev.parallax.core.GroupSet;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvPartition;
import dev.parallax.examples.kv.KvReply;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.kv.KvStateMachine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key-value store under S-SMR end to end in one JVM (seed 004 (S-SMR) §IV): 2 partitions × 3
 * replicas assembled from a cluster file ({@code service=kv}, {@code execution=s-smr}) as
 * {@code parallax replica} assembles them ({@link KvRouting#partition}, {@link PartitionedReplicas}),
 * driven through {@link KvRouting#partitionedInvoker}: single-key, multi-partition (MSET, MGET, DEL,
 * EXISTS) and whole-store (DBSIZE, FLUSHALL) commands answer as a sequential store does;
 * concurrent history clients (with DBSIZE and FLUSHALL) leave a linearizable history; a too-narrow
 * oracle is corrected by WrongPartitions; {@code parallax kv --config} works; the replicas of each
 * partition end with equal digests.
 */
class KvSsmrClusterTest {
    private static final long WAIT_SECONDS = 60;
    private static final int PARTITIONS = 2;

    private static ClusterFile clusterFile(Path dir) {
        Properties p = InProcessClusterFiles.ssmr(PARTITIONS, dir.resolve("data"));
        p.setProperty("redis", LocalPorts.endpoints(3 * PARTITIONS));
        return ClusterFile.of(p);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer call(PartitionedInvoker invoker, KvCommand c) throws Exception {
        return invoker.invoke(c.encode()).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** The first key {@code prefix<i>} of partition {@code p}. */
    private static byte[] keyOf(KvRouter router, String prefix, int p) {
        for (int i = 0; ; i++) {
            byte[] key = b(prefix + i);
            if (router.groupOf(key) == p) {
                return key;
            }
        }
    }

    @Test
    @DisplayName("seed 004 §IV: the KV store over 2 partitions × 3 replicas answers as a sequential store, stays "
            + "linearizable under concurrent clients and converges within each partition")
    void kvUnderSsmr(@TempDir Path dir) throws Exception {
        ClusterFile file = clusterFile(dir);
        assertThat(file.service()).isEqualTo(ClusterFile.KV);
        assertThat(file.partitionMembers()).containsExactly(new int[]{0, 1, 2}, new int[]{3, 4, 5});
        KvRouter router = new KvRouter(PARTITIONS);
        List<KvPartition> state = new ArrayList<>();
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int id = 0; id < 3 * PARTITIONS; id++) {
                KvPartition partition = KvRouting.partition(file);
                state.add(partition);
                replicas.add(PartitionedReplicas.replica(file, id, partition).meterRegistry(new SimpleMeterRegistry())
                        .bootstrap(true).build());
            }
            replicas.forEach(Replica::start);
            assertThatThrownBy(() -> KvRouting.invoker(file, command -> null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("KvRouting.partitionedInvoker");
            KvStateMachine reference = new KvStateMachine();
            try (PartitionedInvoker invoker = KvRouting.partitionedInvoker(file, 0, b -> b.invokeTimeout(Duration.ofSeconds(WAIT_SECONDS)))) {
                byte[] a = keyOf(router, "a", 0);
                byte[] x = keyOf(router, "x", 1);
                byte[] a2 = keyOf(router, "b", 0);
                byte[] x2 = keyOf(router, "y", 1);
                List<KvCommand> script = List.of(
                        KvCommand.of(KvOp.SET, a, b("1")),
                        KvCommand.of(KvOp.INCR, x),
                        KvCommand.of(KvOp.MSET, a2, b("two"), x2, b("zwei"), a, b("10")),
                        KvCommand.of(KvOp.MGET, x2, a, x, a2, b("missing")),
                        KvCommand.of(KvOp.EXISTS, a, a, x, x2, b("missing")),
                        KvCommand.of(KvOp.DBSIZE),
                        KvCommand.of(KvOp.SET_IF_ABSENT, a, b("no")),
                        KvCommand.of(KvOp.INCR, a),
                        KvCommand.of(KvOp.DEL, a, x, x, b("missing")),
                        KvCommand.of(KvOp.DBSIZE),
                        KvCommand.of(KvOp.FLUSHALL),
                        KvCommand.of(KvOp.DBSIZE),
                        KvCommand.of(KvOp.MSET, a, b("A"), x, b("X")),
                        KvCommand.of(KvOp.MGET, a, x));
                for (int i = 0; i < script.size(); i++) {
                    KvCommand c = script.get(i);
                    ByteBuffer expected = reference.execute(c.encode());
                    assertThat(KvReply.decode(call(invoker, c))).as("reply %d to %s", i, c).isEqualTo(KvReply.decode(expected));
                }
                // An error reply, alike at both partitions: INCR of a non-integer sent wide.
                assertThatThrownBy(() -> invoker.invoke(GroupSet.partition(PARTITIONS), KvCommand.of(KvOp.INCR, x).encode())
                        .get(WAIT_SECONDS, TimeUnit.SECONDS)).hasCauseInstanceOf(CommandRejectedException.class)
                        .hasMessageContaining("not an integer");
                // A too-narrow oracle: an MGET sent to one partition is refused and re-sent to both.
                try (PartitionedInvoker narrow = new PartitionedInvoker(clientsOf(file), command -> GroupSet.of(0),
                        PartitionedInvoker.DEFAULT_MAX_RETRIES)) {
                    KvCommand mget = KvCommand.of(KvOp.MGET, a, x);
                    assertThat(KvReply.decode(narrow.invoke(mget.encode()).get(WAIT_SECONDS, TimeUnit.SECONDS)))
                            .isEqualTo(KvReply.decode(reference.execute(mget.encode())));
                }
                // The history below starts from an empty store.
                assertThat(KvReply.decode(call(invoker, KvCommand.of(KvOp.FLUSHALL)))).isEqualTo(new KvReply.Ok());
            }
            // Concurrent history clients over a few keys, with DBSIZE and FLUSHALL among SET and GET.
            HistoryRecorder<dev.parallax.core.check.KvOp, String> history = new HistoryRecorder<>();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> workers = new ArrayList<>();
            List<PartitionedInvoker> invokers = new ArrayList<>();
            CountDownLatch warm = new CountDownLatch(4);
            try {
                for (int c = 0; c < 4; c++) {
                    PartitionedInvoker invoker = KvRouting.partitionedInvoker(file, c, b -> b.invokeTimeout(Duration.ofSeconds(20)));
                    invokers.add(invoker);
                    int id = c;
                    Thread t = new Thread(() -> HistoryClient.run(id, invoker, history, running,
                            HistoryClient.Workload.withGlobalCommands(4), warm::countDown), "kv-ssmr-history-" + c);
                    workers.add(t);
                    t.start();
                }
                assertThat(warm.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                Thread.sleep(1500); // sleep is the scenario: the history clients run concurrently a while
                // A loaded machine records fewer operations in these seconds: go on until the history
                // holds enough for the check below to mean something.
                dev.parallax.core.testkit.Await.until("more than 20 completed operations", Duration.ofSeconds(30),
                        () -> history.history().operations().stream().filter(op -> !op.outcomeUnknown()).count() > 20);
            } finally {
                running.set(false);
                for (Thread t : workers) {
                    t.join(40_000);
                }
                invokers.forEach(PartitionedInvoker::close);
            }
            CheckResult result = LinearizabilityChecker.check(new KvModel(), history.history());
            assertThat(result.isLinearizable()).as("%s", result).isTrue();
            assertThat(result.operations()).isGreaterThan(20);
            // The Redis front ends of a replica of each partition (as parallax replica starts them).
            try (ReplicaCommand.RedisFrontEnd first = ReplicaCommand.redisFrontEnd(file, 0, new SimpleMeterRegistry());
                 ReplicaCommand.RedisFrontEnd last = ReplicaCommand.redisFrontEnd(file, 3 * PARTITIONS - 1, new SimpleMeterRegistry());
                 Jedis one = new Jedis("127.0.0.1", first.port(), (int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                 Jedis other = new Jedis("127.0.0.1", last.port(), (int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS))) {
                one.flushAll();
                assertThat(one.mset("r-a", "1", "r-b", "2", "r-c", "3", "r-d", "4")).isEqualTo("OK");
                assertThat(other.mget("r-d", "r-missing", "r-a", "r-c")).containsExactly("4", null, "1", "3");
                assertThat(other.incr("r-b")).isEqualTo(3);
                assertThat(one.exists("r-a", "r-b", "r-a", "r-missing")).isEqualTo(3);
                assertThat(other.dbSize()).isEqualTo(4);
                assertThat(one.del("r-a", "r-b", "r-missing")).isEqualTo(2);
                assertThat(other.dbSize()).isEqualTo(2);
                assertThat(other.get("r-c")).isEqualTo("3");
            }
            // parallax kv --config sends through one client per partition.
            Path configFile = dir.resolve("cluster.properties");
            file.write(configFile);
            assertThat(InProcessClusterFiles.kv(configFile, "mset", "cli-1", "one", "cli-2", "two", "cli-3", "three")).isEqualTo("OK");
            assertThat(InProcessClusterFiles.kv(configFile, "mget", "cli-3", "cli-1")).isEqualTo("1) \"three\"\n2) \"one\"");
            InProcessClusterFiles.awaitPartitionsConverged(state, KvPartition::digest, WAIT_SECONDS);
            for (Replica r : replicas) {
                assertThat(r.failure()).isEmpty();
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    private static List<SmrClient> clientsOf(ClusterFile file) {
        List<SmrClient> clients = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            clients.add(SmrClient.connect(dev.parallax.core.client.ClientConfig.builder(PartitionedReplicas.partitionClients(file, p))
                    .invokeTimeout(Duration.ofSeconds(WAIT_SECONDS)).build()));
        }
        return clients;
    }
}
