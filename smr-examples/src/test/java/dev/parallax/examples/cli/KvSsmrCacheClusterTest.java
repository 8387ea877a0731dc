package dev.parallax.examples.cli;

import dev.parallax.core.client.PartitionedInvoker;
import dev.parallax.core.replica.Replica;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvPartition;
import dev.parallax.examples.kv.KvReply;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.kv.KvStateMachine;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key-value store over 2 partitions × 3 replicas, as {@code parallax replica} assembles them,
 * with {@code ssmr.cache=on} (seed 004 (S-SMR) §IV-C): MGETs across the partitions with writes in
 * between answer as a sequential store, and the owners answered some variables as current
 * ({@code parallax.ssmr.cache.current}).
 */
class KvSsmrCacheClusterTest {
    private static final int PARTITIONS = 2;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] keyOf(KvRouter router, String prefix, int p) {
        for (int i = 0; ; i++) {
            byte[] key = b(prefix + i);
            if (router.groupOf(key) == p) {
                return key;
            }
        }
    }

    @Test
    void multiPartitionReadsWithCachingAnswerAsASequentialStore(@TempDir Path dir) throws Exception {
        Properties p = InProcessClusterFiles.ssmr(PARTITIONS, dir.resolve("data"));
        p.setProperty("ssmr.cache", "on");
        ClusterFile file = ClusterFile.of(p);
        KvRouter router = new KvRouter(PARTITIONS);
        List<Replica> replicas = new ArrayList<>();
        List<SimpleMeterRegistry> registries = new ArrayList<>();
        try {
            for (int id = 0; id < 3 * PARTITIONS; id++) {
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                registries.add(registry);
                KvPartition partition = KvRouting.partition(file);
                replicas.add(PartitionedReplicas.replica(file, id, partition).meterRegistry(registry).bootstrap(true).build());
            }
            replicas.forEach(Replica::start);
            KvStateMachine reference = new KvStateMachine();
            byte[] a = keyOf(router, "a", 0);
            byte[] x = keyOf(router, "x", 1);
            try (PartitionedInvoker invoker = KvRouting.partitionedInvoker(file, 0, b -> b.invokeTimeout(Duration.ofSeconds(60)))) {
                for (int i = 0; i < 15; i++) {
                    KvCommand c = i % 3 == 2 ? KvCommand.of(KvOp.SET, i % 2 == 0 ? a : x, b("v" + i)) : KvCommand.of(KvOp.MGET, a, x);
                    ByteBuffer expected = reference.execute(c.encode());
                    assertThat(KvReply.decode(invoker.invoke(c.encode()).get(60, TimeUnit.SECONDS))).as("reply %d to %s", i, c)
                            .isEqualTo(KvReply.decode(expected));
                }
            }
            double current = 0;
            for (SimpleMeterRegistry r : registries) {
                for (FunctionCounter f : r.find("parallax.ssmr.cache.current").functionCounters()) {
                    current += f.count();
                }
            }
            assertThat(current).as("variables answered as current").isPositive();
        } finally {
            replicas.forEach(Replica::close);
        }
    }
}
