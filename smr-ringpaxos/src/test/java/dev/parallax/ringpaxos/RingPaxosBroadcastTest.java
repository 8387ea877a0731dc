package dev.parallax.ringpaxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.testkit.AtomicBroadcastContract;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Ring Paxos broadcast, with real stage threads over one {@link LocalNetwork} (whose transports
 * also multicast, for M-Ring), passes the shared broadcast contract in both variants (seed 003
 * (Ring Paxos) §3.3.2, Alg. 2 and §3.3.3, Alg. 3), and never redirects a client.
 */
class RingPaxosBroadcastTest {

    /** Short test timeouts: heartbeat 20 ms, suspect 200 ms, retransmit 50 ms, catch-up 30 ms, restart hold 200 ms. */
    static RingConfig config(int n, Ring.Kind kind) {
        return RingConfig.builder(n, kind).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(200))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).restartHold(Duration.ofMillis(200))
                .build();
    }

    @SuppressWarnings("unchecked")
    static RingPaxosBroadcast create(int id, int n, LocalNetwork<?> network, Ring.Kind kind, MeterRegistry registry) {
        return RingPaxosBroadcast.builder().config(config(n, kind)).self(id)
                .transport(((LocalNetwork<RingWire>) network).transport(id))
                .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE)
                .options(RuntimeOptions.builder().meterRegistry(registry).build()).build();
    }

    /** U-Ring (seed 003 §3.3.3, Alg. 3): every message along the TCP ring. */
    @Nested
    class URing extends AtomicBroadcastContract {
        @Override
        protected LocalNetwork<?> network(int n) {
            return new LocalNetwork<RingWire>(n);
        }

        @Override
        protected AtomicBroadcast create(int id, int n, LocalNetwork<?> network) {
            return RingPaxosBroadcastTest.create(id, n, network, Ring.Kind.U_RING, new SimpleMeterRegistry());
        }
    }

    /** M-Ring (seed 003 §3.3.2, Alg. 2): Phase 2A and decisions multicast, 2B along the ring. */
    @Nested
    class MRing extends AtomicBroadcastContract {
        @Override
        protected LocalNetwork<?> network(int n) {
            return new LocalNetwork<RingWire>(n);
        }

        @Override
        protected AtomicBroadcast create(int id, int n, LocalNetwork<?> network) {
            return RingPaxosBroadcastTest.create(id, n, network, Ring.Kind.M_RING, new SimpleMeterRegistry());
        }
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.1: every member proposes, so the redirect hint is always ANY_REPLICA; the leader hint "
            + "and the gauges name the coordinator")
    void neverRedirectsAndPublishesTheCoordinator() throws InterruptedException {
        for (Ring.Kind kind : Ring.Kind.values()) {
            LocalNetwork<RingWire> net = new LocalNetwork<>(3);
            List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
            RingPaxosBroadcast[] members = new RingPaxosBroadcast[3];
            List<List<String>> delivered = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                    new CopyOnWriteArrayList<>());
            try {
                for (int i = 0; i < 3; i++) {
                    members[i] = create(i, 3, net, kind, registries.get(i));
                    assertThat(members[i].redirectHint()).isEqualTo(AtomicBroadcast.ANY_REPLICA);
                    assertThat(members[i].leaderHint()).as("no coordinator before start").isEqualTo(-1);
                    List<String> mine = delivered.get(i);
                    members[i].start((s, v) -> mine.add(java.nio.charset.StandardCharsets.UTF_8.decode(v.duplicate()).toString()));
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                // A proposal at each member (none is redirected), decided and delivered everywhere.
                for (int i = 0; i < 3; i++) {
                    ByteBuffer v = ByteBuffer.wrap(("from-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    RingPaxosBroadcast member = members[i];
                    int at = i;
                    Await.until(Await.timeLeft(deadline), () -> member.propose(v.duplicate()),
                            () -> kind + ": a proposal taken at member " + at);
                }
                for (int i = 0; i < 3; i++) {
                    List<String> mine = delivered.get(i);
                    int at = i;
                    Await.until(Await.timeLeft(deadline), () -> mine.containsAll(List.of("from-0", "from-1", "from-2")),
                            () -> kind + ": member " + at + " delivers every proposal");
                }
                // Every member names one coordinator, and publishes it, once the ring has settled: a
                // member may still name none (or an earlier one), so all are read again each round.
                int coordinator = Await.value(Await.timeLeft(deadline), () -> {
                    int named = members[0].leaderHint();
                    boolean agreed = named >= 0 && named <= 2;
                    for (int i = 0; i < 3 && agreed; i++) {
                        io.micrometer.core.instrument.Gauge published = registries.get(i).find("parallax.ring.coordinator").gauge();
                        agreed = members[i].leaderHint() == named && published != null
                                && published.value() == (i == named ? 1.0 : 0.0);
                    }
                    return agreed ? named : -1;
                }, named -> named >= 0, () -> kind + ": every member names one coordinator");
                assertThat(coordinator).isBetween(0, 2);
                for (int i = 0; i < 3; i++) {
                    assertThat(members[i].leaderHint()).isEqualTo(coordinator);
                    assertThat(members[i].redirectHint()).isEqualTo(AtomicBroadcast.ANY_REPLICA);
                    assertThat(registries.get(i).get("parallax.ring.coordinator").gauge().value())
                            .isEqualTo(i == coordinator ? 1.0 : 0.0);
                    assertThat(registries.get(i).get("parallax.ring.round").gauge().value()).isGreaterThanOrEqualTo(0);
                    assertThat(registries.get(i).get("parallax.ring.size").gauge().value()).isPositive();
                }
                assertThat(delivered.get(1)).containsExactlyElementsOf(delivered.get(0));
                assertThat(delivered.get(2)).containsExactlyElementsOf(delivered.get(0));
            } finally {
                for (RingPaxosBroadcast m : members) {
                    if (m != null) {
                        m.close();
                    }
                }
            }
        }
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.5: the member detector suspects a coordinator cut off from the others; a survivor "
            + "starts a higher round, re-forms the ring and the survivors go on deciding")
    void theSurvivorsGoOnWithoutTheCoordinator() throws InterruptedException {
        for (Ring.Kind kind : Ring.Kind.values()) {
            LocalNetwork<RingWire> net = new LocalNetwork<>(3);
            RingPaxosBroadcast[] members = new RingPaxosBroadcast[3];
            List<List<String>> delivered = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                    new CopyOnWriteArrayList<>());
            try {
                for (int i = 0; i < 3; i++) {
                    members[i] = create(i, 3, net, kind, new SimpleMeterRegistry());
                    List<String> mine = delivered.get(i);
                    members[i].start((s, v) -> mine.add(java.nio.charset.StandardCharsets.UTF_8.decode(v.duplicate()).toString()));
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                propose(members[0], "first", deadline);
                awaitDelivered(delivered, List.of(0, 1, 2), "first", deadline);
                int coordinator = members[0].leaderHint();
                assertThat(coordinator).isBetween(0, 2);
                net.isolate(coordinator);
                List<Integer> survivors = new ArrayList<>(List.of(0, 1, 2));
                survivors.remove(Integer.valueOf(coordinator));
                for (int k = 0; k < 20; k++) {
                    propose(members[survivors.get(k % 2)], "after-" + k, deadline);
                }
                for (int k = 0; k < 20; k++) {
                    awaitDelivered(delivered, survivors, "after-" + k, deadline);
                }
                for (int s : survivors) {
                    assertThat(members[s].leaderHint()).as("%s: survivor %d follows a new coordinator", kind, s)
                            .isNotEqualTo(coordinator).isBetween(0, 2);
                }
                assertThat(delivered.get(survivors.get(1))).containsExactlyElementsOf(delivered.get(survivors.get(0)));
            } finally {
                for (RingPaxosBroadcast m : members) {
                    if (m != null) {
                        m.close();
                    }
                }
            }
        }
    }

    @Test
    // Default placement only (see smr-ringpaxos/pom.xml): its subject is Phase 1 against members not yet
    // up, a matter of timing, not of threads; its 9 s are sleeps, the scenario's 1.5 s between starts.
    @org.junit.jupiter.api.Tag("one-placement")
    @DisplayName("seed 003 (Ring Paxos) §3.3.2 ¶4 (Phase 1): members started 1.5 s apart, as replica JVMs start, still form a ring "
            + "and decide every member's proposals (a Phase 1A sent to a member not yet up is lost)")
    void membersStartedSecondsApartFormARing() throws InterruptedException {
        for (Ring.Kind kind : Ring.Kind.values()) {
            LocalNetwork<RingWire> net = new LocalNetwork<>(3);
            RingPaxosBroadcast[] members = new RingPaxosBroadcast[3];
            List<List<String>> delivered = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(),
                    new CopyOnWriteArrayList<>());
            try {
                for (int i = 0; i < 3; i++) {
                    members[i] = create(i, 3, net, kind, new SimpleMeterRegistry());
                }
                for (int i = 0; i < 3; i++) {
                    List<String> mine = delivered.get(i);
                    members[i].start((s, v) -> mine.add(java.nio.charset.StandardCharsets.UTF_8.decode(v.duplicate()).toString()));
                    Thread.sleep(1500); // sleep is the scenario: members start 1.5 s apart, as replica JVMs do
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                for (int i = 0; i < 3; i++) {
                    propose(members[i], "late-" + i, deadline);
                }
                for (int i = 0; i < 3; i++) {
                    awaitDelivered(delivered, List.of(0, 1, 2), "late-" + i, deadline);
                }
                assertThat(delivered.get(1)).containsExactlyElementsOf(delivered.get(0));
                assertThat(delivered.get(2)).containsExactlyElementsOf(delivered.get(0));
            } finally {
                for (RingPaxosBroadcast m : members) {
                    if (m != null) {
                        m.close();
                    }
                }
            }
        }
    }

    private static void propose(RingPaxosBroadcast member, String value, long deadline) throws InterruptedException {
        ByteBuffer v = ByteBuffer.wrap(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Await.until(Await.timeLeft(deadline), () -> member.propose(v.duplicate()), () -> "proposal " + value + " taken");
    }

    private static void awaitDelivered(List<List<String>> delivered, List<Integer> at, String value, long deadline)
            throws InterruptedException {
        for (int i : at) {
            Await.until(Await.timeLeft(deadline), () -> delivered.get(i).contains(value),
                    () -> value + " delivered at member " + i);
        }
    }
}
