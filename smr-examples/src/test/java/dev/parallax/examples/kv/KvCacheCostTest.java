package dev.parallax.examples.kv;

import dev.parallax.scheduler.ssmr.DriverSsmr;
import dev.parallax.scheduler.ssmr.SsmrCacheConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-process cost of S-SMR caching (seed 004 (S-SMR) §IV-C; docs/results/history.md "S-SMR caching"):
 * the key-value store over 2 partitions × 3 replicas through the real drivers in one thread
 * ({@link DriverSsmr}), 90% MGET of one key per partition and 10% SET over 32 keys per partition,
 * caching off and on, four alternating rounds; prints the executor time per command (all six
 * replicas) and the value bytes between partitions. A measurement, not a check (no timing is
 * asserted); runs only with {@code -Dcache.cost=true}.
 */
class KvCacheCostTest {
    @Test
    @EnabledIfSystemProperty(named = "cache.cost", matches = "true")
    void printTheExecutorCostAndTheBytesOfCachingOffAndOn() {
        for (int valueSize : new int[]{32, 1024}) {
            List<byte[]> commands = mix(valueSize, 20_000);
            KvRouter router = new KvRouter(2);
            for (int round = 0; round < 4; round++) {
                for (SsmrCacheConfig cache : List.of(SsmrCacheConfig.OFF, SsmrCacheConfig.ON)) {
                    DriverSsmr<KvPartition> ssmr = new DriverSsmr<>(2, 3, p -> new KvPartition(2), cache);
                    long t0 = System.nanoTime();
                    for (byte[] c : commands) {
                        ssmr.run(c, router.route(ByteBuffer.wrap(c)));
                    }
                    long nanos = System.nanoTime() - t0;
                    System.out.printf("KvCacheCostTest: round %d, caching %-3s, values %4d B: %6.1f us/command (6 replicas), "
                                    + "%7.1f value bytes/command, %d variables sent as current, %d with their value%n",
                            round, cache.enabled() ? "on" : "off", valueSize, nanos / 1000.0 / commands.size(),
                            (double) ssmr.valueBytesSent() / commands.size(), ssmr.cacheCounters().bottomsSent(),
                            ssmr.cacheCounters().valuesSent());
                    assertThat(ssmr.cacheCounters().misses()).isZero();
                }
            }
        }
    }

    private static List<byte[]> mix(int valueSize, int n) {
        KvRouter router = new KvRouter(2);
        List<List<byte[]>> keys = List.of(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; keys.get(0).size() < 32 || keys.get(1).size() < 32; i++) {
            byte[] k = ("m0:" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            if (keys.get(router.groupOf(k)).size() < 32) {
                keys.get(router.groupOf(k)).add(k);
            }
        }
        SplittableRandom rnd = new SplittableRandom(1);
        byte[] value = new byte[valueSize];
        List<byte[]> commands = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ByteBuffer c = rnd.nextInt(100) < 90
                    ? KvCommand.of(KvOp.MGET, keys.get(0).get(rnd.nextInt(32)), keys.get(1).get(rnd.nextInt(32))).encode()
                    : KvCommand.of(KvOp.SET, keys.get(rnd.nextInt(2)).get(rnd.nextInt(32)), value).encode();
            byte[] b = new byte[c.remaining()];
            c.get(b);
            commands.add(b);
        }
        return commands;
    }
}
