package dev.parallax.ringpaxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.EpochClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Skips through the real runtime (stage threads over a {@link LocalNetwork}, an {@link EpochClock}):
 * an idle ring with {@code ring.lambda} &gt; 0 decides skips to the epoch-based target and, with
 * {@link RingPaxosBroadcast.Builder#skipDelivery}, delivers them in order between client values at
 * every member (Multi-Ring plan decisions 2 and 4; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5,
 * Alg. 1 l.13-20). Waits on deliveries with generous time-outs; no timing assertion.
 */
class RingSkipBroadcastTest {

    @Test
    @DisplayName("λ > 0 over the runtime: skips to λ·⌊epoch ms⌋/1000 are decided and delivered as encoder(upTo), in one order everywhere")
    void skipsAreDecidedAndDeliveredThroughTheEncoder() throws InterruptedException {
        for (Ring.Kind kind : Ring.Kind.values()) {
            long startedMs = System.currentTimeMillis();
            LocalNetwork<RingWire> net = new LocalNetwork<>(3);
            // RingPaxosBroadcastTest's short time-outs, and λ = 1000/s, Δ = 5 ms.
            RingConfig skipping = RingConfig.builder(3, kind).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(200))
                    .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).restartHold(Duration.ofMillis(200))
                    .lambda(1000).skipInterval(Duration.ofMillis(5)).build();
            List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
            RingPaxosBroadcast[] members = new RingPaxosBroadcast[3];
            // Copy-on-write: the waits below iterate while the delivery threads append.
            List<List<String>> delivered = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                    new CopyOnWriteArrayList<>());
            try {
                for (int i = 0; i < 3; i++) {
                    members[i] = RingPaxosBroadcast.builder().config(skipping).self(i).transport(net.transport(i))
                            .log(InMemoryDurableLog.create()).clock(new EpochClock())
                            .options(RuntimeOptions.builder().meterRegistry(registries.get(i)).build())
                            .skipDelivery(upTo -> ByteBuffer.wrap(("skip:" + upTo).getBytes(StandardCharsets.UTF_8)))
                            .build();
                    List<String> mine = delivered.get(i);
                    members[i].start((s, v) -> mine.add(StandardCharsets.UTF_8.decode(v.duplicate()).toString()));
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                awaitSkips(delivered, 3, kind, deadline);
                ByteBuffer v = ByteBuffer.wrap("client".getBytes(StandardCharsets.UTF_8));
                Await.until(Await.timeLeft(deadline), () -> members[1].propose(v.duplicate()),
                        () -> kind + ": the proposal is taken");
                for (int i = 0; i < 3; i++) {
                    List<String> mine = delivered.get(i);
                    int at = i;
                    Await.until(Await.timeLeft(deadline), () -> mine.contains("client") && skipsAfter(mine, "client") >= 2,
                            () -> kind + ": member " + at + " delivers the value and skips after it");
                }
                List<String> first = List.copyOf(delivered.get(0));
                long lastTarget = -1;
                for (String d : first) {
                    if (d.startsWith("skip:")) {
                        long upTo = Long.parseLong(d.substring(5));
                        // λ = 1000/s: the target is the epoch time in milliseconds at the coordinator's check.
                        assertThat(upTo).as("%s: an epoch-based target", kind).isGreaterThanOrEqualTo(startedMs).isGreaterThan(lastTarget);
                        lastTarget = upTo;
                    }
                }
                for (int i = 1; i < 3; i++) {
                    List<String> mine = List.copyOf(delivered.get(i));
                    int common = Math.min(mine.size(), first.size());
                    assertThat(mine.subList(0, common)).as("%s: member %d delivers in the same order", kind, i)
                            .isEqualTo(first.subList(0, common));
                }
                for (int i = 0; i < 3; i++) {
                    assertThat(registries.get(i).get("parallax.ring.logical.next").gauge().value())
                            .as("%s: member %d's logical next follows the epoch target", kind, i)
                            .isGreaterThanOrEqualTo((double) startedMs);
                }
            } finally {
                for (RingPaxosBroadcast m : members) {
                    if (m != null) {
                        m.close();
                    }
                }
            }
        }
    }

    private static void awaitSkips(List<List<String>> delivered, int count, Ring.Kind kind, long deadline)
            throws InterruptedException {
        for (int i = 0; i < delivered.size(); i++) {
            List<String> mine = delivered.get(i);
            int at = i;
            Await.until(Await.timeLeft(deadline), () -> mine.stream().filter(d -> d.startsWith("skip:")).count() >= count,
                    () -> kind + ": member " + at + " delivers " + count + " skips");
        }
    }

    private static long skipsAfter(List<String> delivered, String value) {
        List<String> copy = List.copyOf(delivered);
        int at = copy.indexOf(value);
        return at < 0 ? 0 : copy.subList(at + 1, copy.size()).stream().filter(d -> d.startsWith("skip:")).count();
    }
}
