package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.DriverSsmr;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import dev.parallax.scheduler.ssmr.SsmrCacheConfig;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link VoleryCachedReads}, Volery's caching SPI (seed 004 (S-SMR) §IV-C): the assembled variables
 * are the owner's localReads bytes, and random mixes of creates, setData and reads multicast beyond
 * the owner (an over-approximating oracle) answer the same with caching as without, with ⊥ used.
 */
class VoleryCachedReadsTest {
    private static final int P = 3;
    private final VoleryOracle oracle = new VoleryOracle(P);

    @Test
    void theAssembledVariablesAreTheOwnersReply() {
        DriverSsmr<VoleryPartition> ssmr = new DriverSsmr<>(P, 1, p -> new VoleryPartition(), SsmrCacheConfig.OFF);
        VoleryCommand create = new Create("/a", new byte[]{1}, CreateMode.PERSISTENT, 5);
        ssmr.run(create.encode(), oracle.route(create));
        VoleryCommand set = new SetData("/a", new byte[]{2, 3}, -1, 6);
        ssmr.run(set.encode(), oracle.route(set));
        int owner = oracle.partitionOf("/a");
        VoleryPartition o = ssmr.replica(owner, 0);
        GroupSet all = GroupSet.partition(P);
        for (VoleryCommand read : List.of(new GetData("/a"), new Exists("/a"), new GetChildren("/"), new Exists("/none"))) {
            int readOwner = oracle.partitionOf(read.path());
            VoleryPartition m = ssmr.replica(readOwner, 0);
            VoleryCachedReads spi = (VoleryCachedReads) m.cachedReads();
            ByteBuffer cmd = ByteBuffer.wrap(read.encode());
            List<ByteBuffer> values = spi.reads(cmd, readOwner, P).stream().map(spi::value).toList();
            assertThat(spi.assemble(cmd, readOwner, values)).as(read.toString())
                    .isEqualTo(m.localReads(cmd, new IdealSsmr.View(readOwner, P, all)));
            assertThat(spi.reads(cmd, (readOwner + 1) % P, P)).isEmpty();
        }
        VoleryCachedReads spi = (VoleryCachedReads) o.cachedReads();
        assertThat(spi.writes(ByteBuffer.wrap(create.encode()), owner, P)).as("create: every variable").isNull();
        for (VoleryCommand global : List.<VoleryCommand>of(new Multi(List.of(new SetData("/a", new byte[0], -1))),
                new SessionTick(new long[]{1}), new CloseSession(1))) {
            assertThat(spi.writes(ByteBuffer.wrap(global.encode()), owner, P)).as("%s: every variable", global).isNull();
        }
        assertThat(spi.writes(ByteBuffer.wrap(set.encode()), owner, P)).hasSize(4);
        assertThat(spi.writes(ByteBuffer.wrap(set.encode()), (owner + 1) % P, P)).isEmpty();
        assertThat(spi.reads(ByteBuffer.wrap(new byte[]{9, 9, 9}), 0, P)).as("malformed").isNull();
    }

    @Test
    void randomMixesAnswerTheSameWithAndWithoutCaching() {
        for (long seed = 1; seed <= 4; seed++) {
            Random random = new Random(seed);
            DriverSsmr<VoleryPartition> plain = new DriverSsmr<>(P, 2, p -> new VoleryPartition(), SsmrCacheConfig.OFF);
            DriverSsmr<VoleryPartition> cached = new DriverSsmr<>(P, 2, p -> new VoleryPartition(), SsmrCacheConfig.ON);
            for (int i = 0; i < 300; i++) {
                String path = "/n" + random.nextInt(6);
                VoleryCommand c = switch (random.nextInt(12)) {
                    case 0 -> new Create(path, new byte[]{(byte) i}, CreateMode.PERSISTENT, i);
                    case 1, 2 -> new SetData(path, new byte[]{(byte) i, 1}, -1, i);
                    case 10 -> new Multi(List.of(new SetData(path, new byte[]{(byte) i, 2}, -1),
                            new SetData("/n" + random.nextInt(6), new byte[]{3}, -1)), i);
                    case 11 -> random.nextBoolean() ? Create.ephemeral("/e" + random.nextInt(3), new byte[0], false,
                            1 + random.nextInt(2), 50).withTime(i) : new SessionTick(new long[]{1}, i);
                    case 3 -> new Exists(path);
                    case 4 -> new GetChildren("/");
                    default -> new GetData(path);
                };
                GroupSet dests = random.nextInt(4) == 0 ? oracle.route(c) : GroupSet.partition(P);
                Map<String, String> a = plain.run(c.encode(), dests);
                Map<String, String> b = cached.run(c.encode(), dests);
                assertThat(b).as("seed %d command %d %s to %s", seed, i, c, dests).isEqualTo(a);
            }
            for (int p = 0; p < P; p++) {
                for (int r = 0; r < 2; r++) {
                    assertThat(cached.replica(p, r).digest()).isEqualTo(plain.replica(p, r).digest());
                }
            }
            assertThat(cached.cacheCounters().bottomsSent()).as("⊥ used").isPositive();
            assertThat(cached.cacheCounters().misses()).isZero();
        }
    }
}
