package dev.parallax.paxos.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import io.micrometer.core.instrument.Gauge;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

class BackPressureAndPartitionTest {

    /** Blocks every execution until released: execution falls behind, queues fill up. */
    static final class Gate implements StateMachine {
        final StateMachine inner;
        final CountDownLatch open;

        Gate(StateMachine inner, CountDownLatch open) {
            this.inner = inner;
            this.open = open;
        }

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return inner.execute(command);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            inner.snapshot(out);
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            inner.restore(in);
        }
    }

    @Test
    void whenExecutionStallsClientIoStopsReadingAndNothingIsLost() throws Exception {
        CountDownLatch open = new CountDownLatch(1);
        try (LocalCluster cluster = PaxosClusters.of(3, sm -> new Gate(sm, open), 16 << 20)) {
            SmrClient client = cluster.client(Duration.ofSeconds(90));
            List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
            for (int i = 0; i < 60_000; i++) {
                replies.add(client.invoke(cmd("SET k " + i)));
            }
            // Decision queue → protocol → proposals → batcher → RequestQueue fill up, then ClientIO
            // stops reading the leader's client connection.
            Await.until("a stalled client connection", Duration.ofSeconds(30), () -> stalled(cluster) > 0);
            open.countDown();
            // Every command executed once, in order: each SET returns the value the previous one set.
            for (int i = 0; i < replies.size(); i++) {
                assertThat(text(replies.get(i).get(60, TimeUnit.SECONDS))).isEqualTo(i == 0 ? "null" : Integer.toString(i - 1));
            }
            Await.until("reading resumed", Duration.ofSeconds(10), () -> stalled(cluster) == 0);
        }
    }

    private static double stalled(LocalCluster cluster) {
        double sum = 0;
        for (var r : cluster.replicas) {
            Gauge g = r.meterRegistry().find("parallax.client.connections.stalled").gauge();
            sum += g == null ? 0 : g.value();
        }
        return sum;
    }

    @Test
    void aPartitionedFollowerCatchesUpAfterTheHeal() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client();
            client.invoke(cmd("SET k start")).get(10, TimeUnit.SECONDS);
            int leader = cluster.replicas.get(0).leaderHint();
            int follower = (leader + 1) % 3;
            cluster.isolate(follower);
            CompletableFuture<ByteBuffer> last = null;
            for (int i = 0; i < 500; i++) {
                last = client.invoke(cmd("APPEND k ."));
            }
            assertThat(text(last.get(20, TimeUnit.SECONDS))).isEqualTo("start" + ".".repeat(500));
            String expected = cluster.machines.get(leader).data.get("k");
            assertThat(cluster.machines.get(follower).data.get("k")).isNotEqualTo(expected);
            cluster.heal();
            Await.until("the follower caught up", Duration.ofSeconds(20),
                    () -> expected.equals(readState(cluster, follower)));
        }
    }

    @Test
    void aFollowerWhosePeersTrimmedTheirLogsCatchesUpByASnapshot(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3, sm -> sm, 16 << 20, dir, 50)) {
            SmrClient client = cluster.client();
            client.invoke(cmd("SET k start")).get(10, TimeUnit.SECONDS);
            int leader = cluster.replicas.get(0).leaderHint();
            int follower = (leader + 1) % 3;
            cluster.isolate(follower);
            CompletableFuture<ByteBuffer> last = null;
            for (int i = 0; i < 3000; i++) {
                last = client.invoke(cmd("SET n" + (i % 100) + " " + i));
            }
            last.get(30, TimeUnit.SECONDS);
            String probe = text(client.invoke(cmd("APPEND k !")).get(10, TimeUnit.SECONDS));
            assertThat(probe).isEqualTo("start!");
            // The others snapshot every 50 instances and compact: the follower's gap is gone from their logs.
            assertThat(java.nio.file.Files.list(dir.resolve("replica-" + leader).resolve("snapshots")).count()).isPositive();
            cluster.heal();
            Await.until("the follower installed a snapshot and caught up", Duration.ofSeconds(30),
                    () -> "start!".equals(readState(cluster, follower)));
            assertThat(cluster.replicas.get(follower).meterRegistry().get("parallax.snapshots.installed").counter().count())
                    .as("the follower caught up by installing a snapshot from a peer").isPositive();
            assertThat(cluster.replicas.get(leader).meterRegistry().get("parallax.snapshots.served").counter().count()
                    + cluster.replicas.get((leader + 2) % 3).meterRegistry().get("parallax.snapshots.served").counter().count())
                    .as("a peer served it").isPositive();
        }
    }

    private static String readState(LocalCluster cluster, int replica) {
        synchronized (cluster.machines.get(replica)) {
            return cluster.machines.get(replica).data.get("k");
        }
    }
}
