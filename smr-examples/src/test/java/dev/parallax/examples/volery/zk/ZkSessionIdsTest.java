package dev.parallax.examples.volery.zk;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Session ids an outsider cannot predict: the server id in the high byte (as ZooKeeper's), the other
 * 56 bits a keyed permutation of a counter, so ids never repeat on a server while consecutive ones
 * look unrelated. The predictor that worked on ZooKeeper's shape (the next id is the last one plus
 * one) never hits, and consecutive ids differ in about half their 56 low bits.
 */
class ZkSessionIdsTest {
    private static final long LOW_56 = (1L << 56) - 1;

    private static ZkSessions sessions(int serverId) {
        return new ZkSessions(ZkServerConfig.of("127.0.0.1", 0).withServerId(serverId).withMaxSessions(20_000),
                System::nanoTime);
    }

    private static long[] ids(ZkSessions sessions, int count) {
        EmbeddedChannel owner = new EmbeddedChannel();
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ZkSessions.Grant g = sessions.create(10_000, owner);
            assertThat(g.outcome()).isEqualTo(ZkSessions.Outcome.CREATED);
            ids[i] = g.id();
        }
        return ids;
    }

    private static double meanBitsChanged(long[] a, long[] b) {
        long bits = 0;
        for (int i = 0; i < a.length; i++) {
            bits += Long.bitCount((a[i] ^ b[i]) & LOW_56);
        }
        return (double) bits / a.length;
    }

    @Test
    void consecutiveIdsAreNotSequentialAndDifferInAboutHalfTheirBits() {
        long[] ids = ids(sessions(7), 200);
        long[] previous = new long[199];
        long[] next = new long[199];
        for (int i = 1; i < ids.length; i++) {
            assertThat(ids[i]).as("the last id plus one").isNotEqualTo(ids[i - 1] + 1);
            assertThat(Math.abs(ids[i] - ids[i - 1])).as("close to the last id").isGreaterThan(1L << 20);
            previous[i - 1] = ids[i - 1];
            next[i - 1] = ids[i];
        }
        // 28 expected; the mean of 199 binomial(56, 1/2) draws strays by less than 1 but for odds of 1e-9
        assertThat(meanBitsChanged(previous, next)).isBetween(24.0, 32.0);
        for (long id : ids) {
            assertThat(id >>> 56).as("the server id in the high byte").isEqualTo(7);
        }
    }

    @Test
    void idsNeverRepeatOnAServerAndNeverZero() {
        long[] ids = ids(sessions(0), 10_000);
        Set<Long> seen = new HashSet<>();
        for (long id : ids) {
            assertThat(id).isNotZero();
            assertThat(seen.add(id)).as("id %x repeated", id).isTrue();
        }
    }

    @Test
    void twoServersStartedTogetherHandOutUnrelatedIds() {
        long[] one = ids(sessions(1), 100);
        long[] two = ids(sessions(2), 100);
        for (int i = 0; i < one.length; i++) {
            assertThat(one[i] >>> 56).isEqualTo(1);
            assertThat(two[i] >>> 56).isEqualTo(2);
        }
        assertThat(meanBitsChanged(one, two)).as("low bits of the i-th id of each server").isBetween(22.0, 34.0);
    }
}
