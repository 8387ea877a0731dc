package dev.parallax.ringpaxos.replica;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.multiring.MultiRing;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingTopology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.AppendLoad.awaitConverged;
import static dev.parallax.core.testkit.cluster.AppendLoad.expectedOwn;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three replicas ordered by Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2)
 * laid out by a {@link MultiRingTopology} from cluster-file keys: ring 0 a U-Ring ring, ring 1 an
 * M-Ring ring on a datagram address of its own, the global ring an M-Ring ring on
 * {@code mring.group}, {@code mring.port} + 2. In one JVM over real loopback sockets, under both
 * thread placements. Clients route by key ({@link dev.parallax.core.testkit.cluster.AppendLoad#byKey}), so all
 * three rings carry commands and every replica merges them.
 */
class MultiRingTopologyReplicaClusterTest {

    @Test
    @DisplayName("seed 003 ch. 5 §5.2: a per-ring mix (ring 0 u-ring, ring 1 m-ring on its own address) — routed writes "
            + "all answered, per-key order, replicas equal")
    void aPerRingMixOfUringAndMringOrdersEveryCommand() throws Exception {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int port = r.nextInt(20_000, 60_000);
        String group = "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255);
        MultiRingTopology topology = MultiRingTopology.parse(Map.of(
                "multiring.rings", "2",
                "mring.group", group,
                "mring.port", Integer.toString(port),
                "multiring.ring.0.kind", "u-ring",
                "multiring.ring.1.kind", "m-ring",
                "multiring.ring.1.group", "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255) + ":" + (port + 7),
                "multiring.ring.1.members", "0,1,2"), 3);
        RingConfig template = RingConfig.builder(3, Ring.Kind.M_RING).heartbeat(Duration.ofMillis(30))
                .suspect(Duration.ofMillis(300)).retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50))
                .restartHold(Duration.ofMillis(500)).build();
        MultiRingConfig config = MultiRingConfig.builder(3).ringSettings(template).lambda(2_000).topology(topology).build();
        assertThat(config.ring(0).kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(config.ring(1).kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(config.ring(1).mringPort()).isEqualTo(port + 7);
        assertThat(config.ring(2).kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(config.ring(2).mringPort()).isEqualTo(port + 2);
        OrderingProtocol protocol = MultiRing.protocol(config);
        try (LocalCluster c = new LocalCluster(3, n -> protocol, kv -> kv, 16 << 20, null, 10_000)) {
            List<CommandInvoker> clients = dev.parallax.core.testkit.cluster.AppendLoad.routed(c, 2, 0, 1, 2);
            int count = 80;
            List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                for (int k = 0; k < clients.size(); k++) {
                    replies.add(clients.get(k).invoke(cmd("APPEND own" + k + " a" + i + ",")));
                    replies.add(clients.get(k).invoke(cmd("APPEND shared " + k + ":a" + i + ",")));
                }
            }
            for (CompletableFuture<ByteBuffer> reply : replies) {
                reply.get(60, TimeUnit.SECONDS);
            }
            for (int k = 0; k < 3; k++) {
                assertThat(text(clients.get(k).invoke(cmd("GET own" + k)).get(20, TimeUnit.SECONDS)))
                        .as("own%d in submission order", k).isEqualTo(expectedOwn("a", count));
            }
            awaitConverged(c);
            assertThat(c.machines.get(0).data.get("shared").split(",")).as("every append once").hasSize(3 * count)
                    .doesNotHaveDuplicates();
            for (int ring = 0; ring < 3; ring++) {
                String name = MultiRing.ringName(ring, 2);
                dev.parallax.core.testkit.Await.until(name + " has one coordinator", Duration.ofSeconds(30), () -> {
                    int leading = 0;
                    for (var replica : c.replicas) {
                        var g = replica.meterRegistry().find("parallax.ring.coordinator").tag("protocol", name).gauge();
                        leading += g != null && g.value() == 1 ? 1 : 0;
                    }
                    return leading == 1;
                });
            }
        }
    }
}
