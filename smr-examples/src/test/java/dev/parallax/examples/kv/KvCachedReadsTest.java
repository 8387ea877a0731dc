package dev.parallax.examples.kv;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.DriverSsmr;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import dev.parallax.scheduler.ssmr.SsmrCacheConfig;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KvCachedReads}, the key-value store's caching SPI (seed 004 (S-SMR) §IV-C): its lists, its
 * per-key values assembling to {@link KvPartition#localReads}' bytes, and random mixes run through the
 * S-SMR executor machinery with caching on ({@link DriverSsmr}) answering what the sequential store
 * answers, with ⊥ actually used.
 */
class KvCachedReadsTest {
    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] toBytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void valueReadsAreListedPerOwnerAndTheirAssemblyIsTheLocalReadsFormat() {
        DriverSsmr<KvPartition> ssmr = new DriverSsmr<>(2, 1, p -> new KvPartition(2), SsmrCacheConfig.OFF);
        KvRouter router = new KvRouter(2);
        byte[][] keys = {k("a"), k("b"), k("c"), k("d"), k("e"), k("a")};
        for (byte[] key : keys) {
            ByteBuffer set = KvCommand.of(KvOp.SET, key, k("v-" + new String(key, StandardCharsets.US_ASCII))).encode();
            ssmr.run(toBytes(set), router.route(set));
        }
        KvPartition[] parts = {ssmr.replica(0, 0), ssmr.replica(1, 0)};
        assertThat(parts[0].size()).isPositive();
        assertThat(parts[1].size()).isPositive();
        ByteBuffer mget = KvCommand.of(KvOp.MGET, keys).encode();
        GroupSet both = GroupSet.of(0, 1);
        for (int p = 0; p < 2; p++) {
            KvCachedReads spi = (KvCachedReads) parts[p].cachedReads();
            List<byte[]> listed = spi.reads(mget, p, 2);
            assertThat(listed).allSatisfy(key -> assertThat(router.groupOf(key)).isEqualTo(router.groupOf(listed.get(0))));
            List<ByteBuffer> values = listed.stream().map(spi::value).toList();
            assertThat(spi.assemble(mget, p, values)).isEqualTo(parts[p].localReads(mget, new IdealSsmr.View(p, 2, both)));
        }
        KvCachedReads spi = (KvCachedReads) parts[0].cachedReads();
        assertThat(spi.reads(KvCommand.of(KvOp.DEL, k("a")).encode(), 0, 2)).as("presence reads keep today's exchange").isNull();
        assertThat(spi.writes(KvCommand.of(KvOp.FLUSHALL).encode(), 0, 2)).as("FLUSHALL writes every key").isNull();
        assertThat(spi.writes(KvCommand.of(KvOp.MSET, k("a"), k("1"), k("b"), k("2")).encode(), router.groupOf(k("b")), 2))
                .extracting(b -> new String(b, StandardCharsets.US_ASCII)).contains("b");
        assertThat(spi.reads(ByteBuffer.wrap(new byte[]{42, 0}), 0, 2)).as("malformed").isNull();
        assertThat(spi.writes(ByteBuffer.wrap(new byte[]{42, 0}), 0, 2)).isEmpty();
    }

    @Test
    void randomMixesWithCachingAnswerAsTheSequentialStore() {
        for (int partitions = 2; partitions <= 3; partitions++) {
            for (long seed = 1; seed <= 4; seed++) {
                check(partitions, seed, 400, SsmrCacheConfig.ON);
                check(partitions, seed, 200, SsmrCacheConfig.ON.withBounds(2, 64)); // evictions
            }
        }
    }

    private static void check(int partitions, long seed, int count, SsmrCacheConfig cache) {
        Random random = new Random(seed);
        KvCommandMix mix = new KvCommandMix(seed, 6);
        KvRouter router = new KvRouter(partitions);
        KvStateMachine reference = new KvStateMachine();
        DriverSsmr<KvPartition> ssmr = new DriverSsmr<>(partitions, 2, p -> new KvPartition(partitions), cache);
        for (int i = 0; i < count; i++) {
            byte[] command = mix.next(1).get(0);
            GroupSet dests = router.route(ByteBuffer.wrap(command));
            if (random.nextInt(3) == 0) {
                dests = GroupSet.partition(partitions); // over-approximated: every read crosses partitions
            }
            String expected;
            try {
                ByteBuffer r = reference.execute(ByteBuffer.wrap(command));
                byte[] b = new byte[r.remaining()];
                r.get(b);
                expected = HexFormat.of().formatHex(b);
            } catch (RuntimeException e) {
                expected = null;
            }
            Map<String, String> outcomes = ssmr.run(command, dests);
            for (Map.Entry<String, String> o : outcomes.entrySet()) {
                if (expected != null) {
                    assertThat(o.getValue()).as("seed %d, P %d, command %d at %s", seed, partitions, i, o.getKey())
                            .isEqualTo(expected);
                } else {
                    assertThat(o.getValue()).startsWith("error");
                }
            }
        }
        long total = 0;
        for (int p = 0; p < partitions; p++) {
            assertThat(ssmr.replica(p, 1).digest()).isEqualTo(ssmr.replica(p, 0).digest());
            total += ssmr.replica(p, 0).size();
        }
        assertThat(total).isEqualTo(reference.size());
        assertThat(ssmr.cacheCounters().bottomsSent()).as("⊥ used").isPositive();
        assertThat(ssmr.cacheCounters().misses()).isZero();
    }
}
