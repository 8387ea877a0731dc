package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.ringpaxos.RingWire;
import dev.parallax.ringpaxos.Ring;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Learners join only the rings they need (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2):
 * 4 processes, ring A (group 0) on {0, 1, 2}, ring B (group 1) on {1, 2, 3}, the global ring on
 * {0, 1, 2}. A process runs only its rings, subscribes only to groups whose rings it runs, and
 * multicasts to any group: a message for a ring it does not run is forwarded to a member, and
 * the members' decided notices return its credits; a copy decided after a lost notice is
 * delivered once. And S-SMR's layout: six processes in two partitions, a global ring of six.
 */
class RingMulticastTopologyTest {
    private static final long TIMEOUT_S = 60;
    private static final int A = 0;
    private static final int B = 1;
    private static final GroupSet AB = GroupSet.of(A, B);
    private static final int PROCESSES = 4;
    private static final int CREDITS = 4;
    private static final int PER_SENDER = 12;

    private final List<RingMulticast> created = new ArrayList<>();
    /** Per process, the (stream, member) pairs its transports factory was asked for. */
    private final Map<Integer, Set<Integer>> ringsBuilt = new ConcurrentHashMap<>();
    private final List<MeterRegistry> meters = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(RingMulticast::close);
    }

    private static MultiRingTopology topology(Ring.Kind kind) {
        return MultiRingTopology.builder(PROCESSES).rings(2).kind(kind).ring(A, 0, 1, 2).ring(B, 1, 2, 3).global(0, 1, 2)
                .build();
    }

    /**
     * The cluster over {@code topology}: one {@link LocalNetwork} per ring (sized to its members),
     * one forward network for every process; {@code forwardFilter(from, to)} false drops a forward.
     */
    private List<RingMulticast> cluster(MultiRingTopology topology, BiPredicate<Integer, Integer> forwardFilter) {
        Map<Integer, LocalNetwork<RingWire>> rings = new HashMap<>();
        for (int ring : topology.ringIds()) {
            rings.put(ring, new LocalNetwork<>(topology.members(ring).length));
        }
        LocalNetwork<MulticastForward> forwards = new LocalNetwork<>(topology.processes());
        List<RingMulticast> c = new ArrayList<>();
        for (int p = 0; p < topology.processes(); p++) {
            int self = p;
            MeterRegistry registry = new SimpleMeterRegistry();
            meters.add(registry);
            Set<Integer> built = ConcurrentHashMap.newKeySet();
            ringsBuilt.put(p, built);
            c.add(RingMulticast.builder().self(p).topology(topology)
                    .rings(stream -> topology.ringConfig(stream).heartbeat(Duration.ofMillis(20))
                            .suspect(Duration.ofMillis(200)).retransmit(Duration.ofMillis(50))
                            .catchUp(Duration.ofMillis(30)).restartHold(Duration.ofMillis(200)))
                    .lambda(RingMulticastContractTest.LAMBDA).credits(CREDITS).resendAfter(Duration.ofMillis(100))
                    .transports((stream, member) -> {
                        built.add(stream);
                        assertThat(RingMulticast.ringProcess(member, index(topology, stream), topology.members(stream)))
                                .as("ring member id maps back to this process").isEqualTo(self);
                        return rings.get(stream).transport(member);
                    })
                    .forwardTransport(filtered(forwards.transport(p), forwardFilter))
                    .logs(stream -> InMemoryDurableLog.create())
                    .options(stream -> RuntimeOptions.builder().name("ring-" + stream).meterRegistry(registry)
                            .waitStrategy(WaitStrategies.park()).build())
                    .meterRegistry(registry).build());
        }
        created.addAll(c);
        return c;
    }

    private static int index(MultiRingTopology t, int stream) {
        int[] ids = t.ringIds();
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == stream) {
                return i;
            }
        }
        throw new AssertionError("no ring " + stream);
    }

    /** {@code inner}, with the sends for which {@code keep(from, to)} is false dropped (reported as sent). */
    private static Transport<MulticastForward> filtered(Transport<MulticastForward> inner, BiPredicate<Integer, Integer> keep) {
        return new Transport<>() {
            @Override
            public int localId() {
                return inner.localId();
            }

            @Override
            public void start(MessageHandler<MulticastForward> handler) {
                inner.start(handler);
            }

            @Override
            public boolean send(int to, MulticastForward message) {
                return !keep.test(inner.localId(), to) || inner.send(to, message);
            }

            @Override
            public boolean sendDatagram(int group, MulticastForward message) {
                return inner.sendDatagram(group, message);
            }

            @Override
            public void close() {
                inner.close();
            }
        };
    }

    /** Deliveries of one subscription. */
    private static final class Recorder {
        private final List<String> got = new ArrayList<>();

        synchronized void add(GroupSet g, ByteBuffer m, MulticastPosition after) {
            got.add(g.bits() + ":" + StandardCharsets.UTF_8.decode(m));
            notifyAll();
        }

        synchronized List<String> await(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (got.size() < n) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("delivered " + got.size() + " of " + n + ": " + got).isPositive();
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return new ArrayList<>(got);
        }
    }

    /** Multicasts {@code count} messages from {@code origin} to {@code groups}, waiting for credits; returns them as recorded. */
    private static List<String> send(RingMulticast origin, int id, GroupSet groups, int count) {
        List<String> sent = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        for (int i = 0; i < count; i++) {
            String m = "p" + id + "->" + groups + "#" + i;
            while (!origin.multicast(groups, ByteBuffer.wrap(m.getBytes(StandardCharsets.UTF_8)))) {
                assertThat(System.nanoTime()).as("could not multicast " + m + ": credits not returned?").isLessThan(deadline);
                Thread.yield();
            }
            sent.add(groups.bits() + ":" + m);
        }
        return sent;
    }

    private double counter(int process, String name) {
        return meters.get(process).find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    @DisplayName("seed 003 §5.2: a learner runs only its rings; every subscriber of a group delivers the same order; "
            + "messages to rings the origin does not run are forwarded and delivered once")
    void learnersJoinOnlyTheRingsTheyNeed() throws InterruptedException {
        List<RingMulticast> c = cluster(topology(Ring.Kind.M_RING), (from, to) -> true);

        assertThat(ringsBuilt.get(0)).as("process 0 never built ring B").containsExactlyInAnyOrder(A,
                MulticastPosition.GLOBAL_STREAM);
        assertThat(ringsBuilt.get(3)).as("process 3 runs ring B only").containsExactly(B);
        assertThat(ringsBuilt.get(1)).containsExactlyInAnyOrder(A, B, MulticastPosition.GLOBAL_STREAM);
        assertThat(c.get(0).runsRing(B)).isFalse();
        assertThat(c.get(0).runsRing(A)).isTrue();
        assertThat(c.get(0).canSubscribe(GroupSet.of(A))).isTrue();
        assertThat(c.get(0).canSubscribe(AB)).isFalse();
        assertThat(c.get(3).canSubscribe(GroupSet.of(B))).as("process 3 does not run the global ring").isFalse();
        assertThatThrownBy(() -> c.get(0).subscribe(GroupSet.of(B), (g, m, p) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not run");
        assertThatThrownBy(() -> c.get(3).subscribe(GroupSet.of(B), (g, m, p) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not run");

        Recorder onlyA = new Recorder();
        Recorder both1 = new Recorder();
        Recorder both2 = new Recorder();
        c.get(0).subscribe(GroupSet.of(A), onlyA::add);
        c.get(1).subscribe(AB, both1::add);
        c.get(2).subscribe(AB, both2::add);

        List<String> toA = new ArrayList<>();
        List<String> toB = new ArrayList<>();
        List<String> toAB = new ArrayList<>();
        toB.addAll(send(c.get(0), 0, GroupSet.of(B), PER_SENDER)); // 0 does not run B: forwarded
        toA.addAll(send(c.get(3), 3, GroupSet.of(A), PER_SENDER)); // 3 does not run A: forwarded
        toAB.addAll(send(c.get(3), 3, AB, PER_SENDER)); // nor the global ring
        toA.addAll(send(c.get(0), 0, GroupSet.of(A), PER_SENDER));
        toAB.addAll(send(c.get(0), 0, AB, PER_SENDER));
        toB.addAll(send(c.get(3), 3, GroupSet.of(B), PER_SENDER));

        List<String> all = new ArrayList<>(toA);
        all.addAll(toB);
        all.addAll(toAB);
        List<String> seen1 = both1.await(all.size());
        assertThat(seen1).as("every message once at a subscriber of {A, B}").containsExactlyInAnyOrderElementsOf(all);
        assertThat(both2.await(all.size())).as("the same merged sequence at process 2").isEqualTo(seen1);
        List<String> withA = new ArrayList<>(toA);
        withA.addAll(toAB);
        List<String> seen0 = onlyA.await(withA.size());
        assertThat(seen0).as("A's messages (and those to A and B) once at process 0").containsExactlyInAnyOrderElementsOf(withA);
        assertThat(seen0).as("in the order every subscriber of A delivers them")
                .isEqualTo(seen1.stream().filter(withA::contains).toList());
        Thread.sleep(300); // sleep is the scenario: time passes to show nothing more arrives
        assertThat(onlyA.await(0)).as("nothing to B only reaches process 0").hasSize(withA.size());
        assertThat(ringsBuilt.get(0)).as("still no ring B at process 0").doesNotContain(B);
        assertThat(counter(0, "parallax.multicast.forgotten")).isZero();
    }

    @Test
    @DisplayName("multiring.group.<g>: groups 0 and 2 share ring 0 (one ring, no global ring); every subscriber "
            + "delivers its groups' messages in the ring's one order")
    void groupsShareARing() throws InterruptedException {
        Map<String, String> keys = Map.of("multiring.rings", "1", "multiring.kind", "u-ring", "multiring.group.2", "0",
                "multiring.ring.0.members", "0,1,2");
        MultiRingTopology t = MultiRingTopology.parse(keys, PROCESSES);
        assertThat(t.groups()).isEqualTo(GroupSet.of(0, 2));
        List<RingMulticast> c = cluster(t, (from, to) -> true);
        assertThat(ringsBuilt.get(1)).containsExactly(0);
        assertThat(ringsBuilt.get(3)).as("process 3 runs no ring").isEmpty();
        Recorder g0 = new Recorder();
        Recorder g2 = new Recorder();
        Recorder both = new Recorder();
        c.get(0).subscribe(GroupSet.of(0), g0::add);
        c.get(1).subscribe(GroupSet.of(2), g2::add);
        c.get(2).subscribe(GroupSet.of(0, 2), both::add);
        List<String> all = new ArrayList<>(send(c.get(3), 3, GroupSet.of(0, 2), PER_SENDER));
        all.addAll(send(c.get(0), 0, GroupSet.of(2), PER_SENDER));
        all.addAll(send(c.get(1), 1, GroupSet.of(0), PER_SENDER));
        List<String> seen = both.await(all.size());
        assertThat(seen).containsExactlyInAnyOrderElementsOf(all);
        assertThat(g0.await(2 * PER_SENDER)).isEqualTo(seen.stream().filter(m -> !m.contains("->{2}")).toList());
        assertThat(g2.await(2 * PER_SENDER)).isEqualTo(seen.stream().filter(m -> !m.contains("->{0}")).toList());
    }

    @Test
    @DisplayName("an unreachable proxy: the origin's forwards to its first proxy are lost, it resends to the ring's next "
            + "member, and every message is delivered once")
    void anUnreachableProxyIsLeftBehind() throws InterruptedException {
        // Process 0's first proxy for ring B is process 1 (member 0 mod 3 of {1, 2, 3}); 0 cannot reach it.
        List<RingMulticast> c = cluster(topology(Ring.Kind.U_RING), (from, to) -> !(from == 0 && to == 1));
        Recorder both = new Recorder();
        c.get(1).subscribe(AB, both::add);
        List<String> sent = send(c.get(0), 0, GroupSet.of(B), 3 * CREDITS);
        assertThat(both.await(sent.size())).as("every message once").containsExactlyInAnyOrderElementsOf(sent);
        assertThat(counter(0, "parallax.multicast.resends")).as("the first ones only after a resend").isPositive();
    }

    @Test
    @DisplayName("a lost decided notice: the origin resends to the ring's next member, the copy is decided and dropped, "
            + "every message is delivered once and the credits come back")
    void aLostNoticeMeansACopyDeliveredOnce() throws InterruptedException {
        // Process 0's first proxy for ring B is member 0 mod 3 of {1, 2, 3}: process 1. Every notice
        // 1 sends 0 is dropped, so 0 sees nothing decided until it resends, to process 2.
        List<RingMulticast> c = cluster(topology(Ring.Kind.U_RING), (from, to) -> !(from == 1 && to == 0));
        Recorder both = new Recorder();
        c.get(2).subscribe(AB, both::add);
        List<String> sent = send(c.get(0), 0, GroupSet.of(B), 3 * CREDITS);
        assertThat(both.await(sent.size())).as("every message once, in spite of the copies")
                .containsExactlyInAnyOrderElementsOf(sent);
        assertThat(counter(0, "parallax.multicast.resends")).as("the origin resent what process 1 decided unnoticed")
                .isPositive();
        double copies = 0;
        for (int p = 1; p < PROCESSES; p++) {
            copies = Math.max(copies, counter(p, "parallax.multicast.duplicates"));
        }
        assertThat(copies).as("a resent copy was decided in ring B and dropped").isPositive();
        Thread.sleep(300); // sleep is the scenario: time passes to show no copy arrives later
        assertThat(both.await(0)).as("no copy delivered later either").hasSize(sent.size());
        assertThat(Collections.frequency(both.await(0), sent.get(0))).isEqualTo(1);
    }

    @Test
    @DisplayName("S-SMR's rings (seed 004 (S-SMR) §IV): partitions {0,1,2} and {3,4,5} with a ring each, the global ring "
            + "over all six (even: quorum 4); each replica subscribes to its own group; every subscriber of a group "
            + "delivers the same order, messages to both groups in one relative order at both partitions")
    void partitionedReplicasWithAnEvenGlobalRing() throws InterruptedException {
        MultiRingTopology t = MultiRingTopology.builder(6).rings(2).kind(Ring.Kind.U_RING).ring(A, 0, 1, 2)
                .ring(B, 3, 4, 5).ringKind(B, Ring.Kind.M_RING).build();
        assertThat(t.members(MulticastPosition.GLOBAL_STREAM)).hasSize(6);
        assertThat(t.ringConfig(MulticastPosition.GLOBAL_STREAM).build().quorum()).isEqualTo(4);
        List<RingMulticast> c = cluster(t, (from, to) -> true);
        List<Recorder> recorders = new ArrayList<>();
        for (int p = 0; p < 6; p++) {
            assertThat(ringsBuilt.get(p)).as("process %d runs its partition's ring and the global ring", p)
                    .containsExactlyInAnyOrder(p / 3, MulticastPosition.GLOBAL_STREAM);
            Recorder r = new Recorder();
            c.get(p).subscribe(GroupSet.of(p / 3), r::add);
            recorders.add(r);
        }
        List<String> toA = new ArrayList<>(send(c.get(0), 0, GroupSet.of(A), PER_SENDER));
        List<String> toB = new ArrayList<>(send(c.get(4), 4, GroupSet.of(B), PER_SENDER));
        List<String> toAB = new ArrayList<>(send(c.get(2), 2, AB, PER_SENDER));
        toAB.addAll(send(c.get(5), 5, AB, PER_SENDER));
        List<String> withA = new ArrayList<>(toA);
        withA.addAll(toAB);
        List<String> withB = new ArrayList<>(toB);
        withB.addAll(toAB);
        List<String> seenA = recorders.get(0).await(withA.size());
        List<String> seenB = recorders.get(3).await(withB.size());
        assertThat(seenA).as("partition 0: its group's and both groups' messages, once").containsExactlyInAnyOrderElementsOf(withA);
        assertThat(seenB).as("partition 1: its group's and both groups' messages, once").containsExactlyInAnyOrderElementsOf(withB);
        for (int p = 1; p < 6; p++) {
            assertThat(recorders.get(p).await(p < 3 ? withA.size() : withB.size())).as("process %d", p)
                    .isEqualTo(p < 3 ? seenA : seenB);
        }
        assertThat(seenA.stream().filter(toAB::contains).toList()).as("messages to both groups in one order")
                .isEqualTo(seenB.stream().filter(toAB::contains).toList());
    }
}
