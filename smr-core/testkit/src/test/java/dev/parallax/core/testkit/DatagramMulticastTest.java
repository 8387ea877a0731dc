package dev.parallax.core.testkit;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The simulator's datagram multicast channel (seed 003 (Ring Paxos) §3.3.2): every member of a
 * group independently loses, duplicates and reorders datagrams at the plan's rates, oversize
 * datagrams are refused, partitions and crashes are respected, and runs replay from their seed.
 * Counts are exact functions of the seed, so the rate checks cannot flake.
 */
class DatagramMulticastTest {
    private static final long MS = 1_000_000L;
    private static final long US = 1_000L;
    private static final int GROUP = 7;

    /** One numbered datagram with a payload (its length drives the default sizer). */
    record Packet(int n, String payload) {
    }

    /** Joins the given groups at every start and records every datagram it gets. */
    static final class Listener implements SimNode<Packet> {
        final NodeContext<Packet> ctx;
        final int[] joins;
        final List<Integer> received = new ArrayList<>();
        final List<Integer> plain = new ArrayList<>();

        Listener(NodeContext<Packet> ctx, int... joins) {
            this.ctx = ctx;
            this.joins = joins;
        }

        @Override
        public void onStart() {
            for (int g : joins) {
                ctx.joinGroup(g);
            }
        }

        @Override
        public void onDatagram(int from, int group, Packet p) {
            assertThat(group).isEqualTo(GROUP);
            received.add(p.n());
        }

        @Override
        public void onMessage(int from, Packet p) {
            plain.add(p.n());
        }

        @Override
        public void onTick() {
        }
    }

    private static Simulation<Packet> world(long seed, FaultPlan plan, int receivers) {
        Simulation<Packet> sim = new Simulation<>(seed, plan);
        sim.addNode(0, ctx -> new Listener(ctx), true);
        for (int i = 1; i <= receivers; i++) {
            sim.addNode(i, ctx -> new Listener(ctx, GROUP), true);
        }
        return sim;
    }

    /** Node {@code from} multicasts datagrams 0..count-1 to {@link #GROUP}, one every 10 µs. */
    private static void stream(Simulation<Packet> sim, int from, int count) {
        for (int k = 0; k < count; k++) {
            int n = k;
            sim.schedule(k * 10 * US, "multicast " + n, () -> {
                Listener sender = sim.node(from);
                assertThat(sender.ctx.sendDatagram(GROUP, new Packet(n, "x"))).isTrue();
            });
        }
    }

    private static Listener listener(Simulation<Packet> sim, int id) {
        return sim.node(id);
    }

    @Test
    void eachReceiverLosesDuplicatesAndReordersIndependentlyAtTheConfiguredRates() {
        int sent = 4_000;
        int receivers = 3;
        DatagramPlan dp = new DatagramPlan(0, 2 * MS, 0.2, 0.1, DatagramPlan.DEFAULT_PACKET_SIZE);
        Simulation<Packet> sim = world(21, FaultPlan.reliable().withDatagrams(dp), receivers);
        stream(sim, 0, sent);
        sim.runFor(sent * 10 * US + 10 * MS);

        SimulationStats s = sim.stats();
        long copies = (long) sent * receivers;
        assertThat(s.datagramsSent()).isEqualTo(sent);
        assertThat((double) s.datagramsLost() / copies).as("loss rate").isBetween(0.18, 0.22);
        assertThat((double) s.datagramsDuplicated() / (copies - s.datagramsLost())).as("duplication rate")
                .isBetween(0.085, 0.115);
        assertThat(s.datagramsDelivered()).isEqualTo(copies - s.datagramsLost() + s.datagramsDuplicated());
        assertThat(s.datagramsCut()).isZero();
        assertThat(s.delivered()).as("no point-to-point traffic").isZero();

        long lostSeen = 0;
        long dupSeen = 0;
        List<Set<Integer>> missing = new ArrayList<>();
        List<List<Integer>> orders = new ArrayList<>();
        for (int r = 1; r <= receivers; r++) {
            List<Integer> got = listener(sim, r).received;
            Set<Integer> distinct = new TreeSet<>(got);
            Set<Integer> miss = new HashSet<>();
            for (int n = 0; n < sent; n++) {
                if (!distinct.contains(n)) {
                    miss.add(n);
                }
            }
            lostSeen += miss.size();
            dupSeen += got.size() - distinct.size();
            missing.add(miss);
            List<Integer> firstArrivals = new ArrayList<>(new java.util.LinkedHashSet<>(got));
            orders.add(firstArrivals);
            assertThat(firstArrivals).as("receiver %d sees a reordered stream", r)
                    .isNotEqualTo(firstArrivals.stream().sorted().toList());
            assertThat((double) miss.size() / sent).as("receiver %d loss rate", r).isBetween(0.17, 0.23);
        }
        assertThat(lostSeen).isEqualTo(s.datagramsLost());
        assertThat(dupSeen).isEqualTo(s.datagramsDuplicated());
        // Independence: receivers lose different datagrams and see different orders.
        assertThat(missing.get(0)).isNotEqualTo(missing.get(1)).isNotEqualTo(missing.get(2));
        Set<Integer> lostByAll = new HashSet<>(missing.get(0));
        lostByAll.retainAll(missing.get(1));
        lostByAll.retainAll(missing.get(2));
        assertThat((double) lostByAll.size() / sent).as("lost by every receiver: about 0.2^3")
                .isLessThan(0.02);
        assertThat(orders.get(0)).isNotEqualTo(orders.get(1));
    }

    private static long hostileRun(long seed) {
        return hostileRun(seed, sim -> {
        }).traceHash();
    }

    private static Simulation<Packet> hostileRun(long seed, java.util.function.Consumer<Simulation<Packet>> setup) {
        DatagramPlan dp = new DatagramPlan(100 * US, 5 * MS, 0.1, 0.05, 64);
        Simulation<Packet> sim = world(seed, FaultPlan.hostile(1).withDatagrams(dp), 4);
        setup.accept(sim);
        for (int k = 0; k < 500; k++) {
            int n = k;
            sim.schedule(k * MS, "multicast " + n, () -> {
                int from = sim.random().nextInt(5);
                if (sim.isUp(from)) {
                    listener(sim, from).ctx.sendDatagram(GROUP, new Packet(n, n % 50 == 0 ? "x".repeat(100) : "y"));
                    listener(sim, from).ctx.send((from + 1) % 5, new Packet(n, "p2p"));
                }
            });
        }
        sim.runUntil(600 * MS);
        SimulationStats s = sim.stats();
        assertThat(s.datagramsLost()).isPositive();
        assertThat(s.datagramsDuplicated()).isPositive();
        assertThat(s.datagramsCut()).as("crashes and partitions cut datagrams").isPositive();
        assertThat(s.datagramsRefused()).isPositive();
        assertThat(s.crashes()).isPositive();
        return sim;
    }

    @Test
    void multicastObserversAndDatagramRulesThatMatchNothingDrawNothing() {
        long plain = hostileRun(5);
        List<Integer> seen = new ArrayList<>();
        Simulation<Packet> watched = hostileRun(5, sim -> {
            sim.observeDatagrams((from, group, p) -> {
                assertThat(group).isEqualTo(GROUP);
                seen.add(p.n());
            });
            for (int to = 1; to <= 4; to++) {
                sim.dropDatagramsMatching(0, to, p -> p.n() < 0);
            }
        });
        assertThat(watched.traceHash()).as("same trace as without observer and rules").isEqualTo(plain);
        assertThat(seen).as("every accepted multicast, once").hasSize((int) watched.stats().datagramsSent());
        assertThat(watched.stats().droppedByRule()).isZero();
    }

    @Test
    void aDatagramRuleLosesExactlyTheMatchingDatagramsToOneMemberUntilStopped() {
        Simulation<Packet> sim = world(4, FaultPlan.reliable(), 3);
        sim.measureDatagramsWith(p -> p.payload().length());
        List<String> observed = new ArrayList<>();
        sim.observeDatagrams((from, group, p) -> observed.add(from + "->g" + group + ":" + p.n()));
        sim.dropDatagramsMatching(0, 2, p -> p.n() % 2 == 0);
        stream(sim, 0, 10);
        sim.runFor(10 * MS);
        assertThat(listener(sim, 1).received).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(listener(sim, 2).received).containsExactlyInAnyOrder(1, 3, 5, 7, 9);
        assertThat(listener(sim, 3).received).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(sim.stats().droppedByRule()).isEqualTo(5);
        assertThat(sim.stats().datagramsLost()).isZero();
        assertThat(observed).hasSize(10).first().isEqualTo("0->g7:0");

        sim.stopDropping();
        assertThat(listener(sim, 0).ctx.sendDatagram(GROUP, new Packet(10, "x"))).isTrue();
        Listener sender = listener(sim, 0);
        assertThat(sender.ctx.sendDatagram(GROUP, new Packet(11, "x".repeat(DatagramPlan.DEFAULT_PACKET_SIZE + 1))))
                .as("refused: not observed").isFalse();
        sim.runFor(10 * MS);
        assertThat(listener(sim, 2).received).contains(10);
        assertThat(observed).hasSize(11);
        assertThatThrownBy(() -> sim.dropDatagramsMatching(1, 1, p -> true)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameSeedReplaysTheIdenticalTraceWithMulticast() {
        assertThat(hostileRun(5)).isEqualTo(hostileRun(5));
        assertThat(hostileRun(5)).isNotEqualTo(hostileRun(6));
    }

    @Test
    void oversizeDatagramsAreRefusedAndCounted() {
        Simulation<Packet> sim = world(3, FaultPlan.reliable().withDatagrams(
                FaultPlan.reliable().datagrams().withMaxPacketSize(100)), 2);
        sim.measureDatagramsWith(p -> p.payload().length());
        Listener sender = listener(sim, 0);
        assertThat(sender.ctx.sendDatagram(GROUP, new Packet(1, "a".repeat(101)))).isFalse();
        assertThat(sender.ctx.sendDatagram(GROUP, new Packet(2, "a".repeat(100)))).isTrue();
        sim.runFor(10 * MS);
        assertThat(sim.stats().datagramsRefused()).isEqualTo(1);
        assertThat(sim.stats().datagramsSent()).isEqualTo(1);
        assertThat(listener(sim, 1).received).containsExactly(2);
        assertThat(listener(sim, 2).received).containsExactly(2);
        assertThat(sim.traceTail()).anyMatch(l -> l.contains("refuse datagram 0->g7 of 101 bytes"));
    }

    @Test
    void theDefaultSizerMeasuresTheTraceDescription() {
        Simulation<Packet> sim = world(3, FaultPlan.reliable().withDatagrams(
                FaultPlan.reliable().datagrams().withMaxPacketSize(40)), 1);
        Listener sender = listener(sim, 0);
        assertThat(sender.ctx.sendDatagram(GROUP, new Packet(1, "b".repeat(40)))).isFalse();
        assertThat(sender.ctx.sendDatagram(GROUP, new Packet(1, "b"))).isTrue();
        assertThat(sim.stats().datagramsRefused()).isEqualTo(1);
    }

    @Test
    void partitionsCrashesAndLeavingCutDatagrams() {
        Simulation<Packet> sim = new Simulation<>(8, FaultPlan.reliable().withDatagrams(
                new DatagramPlan(5 * MS, 5 * MS, 0, 0, 1024)));
        sim.addNode(0, ctx -> new Listener(ctx, GROUP), true);
        for (int i = 1; i <= 3; i++) {
            sim.addNode(i, ctx -> new Listener(ctx, GROUP), true);
        }
        sim.addNode(100, ctx -> new Listener(ctx, GROUP), false);   // a client: never partitioned
        assertThat(sim.groupMembers(GROUP)).containsExactly(0, 1, 2, 3, 100);

        sim.partition(Set.of(0, 1));
        listener(sim, 0).ctx.sendDatagram(GROUP, new Packet(1, "p"));
        assertThat(sim.stats().datagramsCut()).as("2 and 3 are across the partition").isEqualTo(2);
        assertThat(listener(sim, 0).received).as("loopback arrives at once").isEmpty();
        sim.runFor(MS);
        assertThat(listener(sim, 0).received).containsExactly(1);
        sim.runFor(10 * MS);
        assertThat(listener(sim, 1).received).containsExactly(1);
        assertThat(listener(sim, 100).received).containsExactly(1);
        assertThat(listener(sim, 2).received).isEmpty();
        assertThat(listener(sim, 3).received).isEmpty();
        sim.heal();

        // In flight when the receiver crashes, leaves, or the network splits: not delivered.
        listener(sim, 0).ctx.sendDatagram(GROUP, new Packet(2, "p"));
        Listener oldTwo = listener(sim, 2);
        sim.crash(2);
        assertThat(sim.groupMembers(GROUP)).doesNotContain(2);
        listener(sim, 3).ctx.leaveGroup(GROUP);
        sim.partition(Set.of(1));
        sim.runFor(10 * MS);
        assertThat(listener(sim, 1).received).containsExactly(1);
        assertThat(oldTwo.received).isEmpty();
        assertThat(listener(sim, 3).received).isEmpty();
        assertThat(listener(sim, 100).received).containsExactly(1, 2);
        assertThat(sim.stats().datagramsCut()).isEqualTo(2 + 3);
        sim.heal();

        // A restarted node rejoins in onStart; a stale context can neither join nor send.
        sim.restart(2);
        assertThat(sim.groupMembers(GROUP)).containsExactly(0, 1, 2, 100);
        oldTwo.ctx.joinGroup(GROUP + 1);
        assertThat(sim.groupMembers(GROUP + 1)).isEmpty();
        assertThat(oldTwo.ctx.sendDatagram(GROUP, new Packet(9, "stale"))).isFalse();
        listener(sim, 0).ctx.sendDatagram(GROUP, new Packet(3, "p"));
        sim.runFor(10 * MS);
        assertThat(listener(sim, 2).received).containsExactly(3);
        assertThat(listener(sim, 3).received).isEmpty();
    }

    @Test
    void aNodeThatDoesNotOverrideOnDatagramGetsDatagramsAsMessages() {
        Simulation<Packet> sim = world(4, FaultPlan.reliable(), 1);
        List<Integer> got = new ArrayList<>();
        sim.addNode(9, ctx -> new SimNode<>() {
            @Override
            public void onStart() {
                ctx.joinGroup(GROUP);
            }

            @Override
            public void onMessage(int from, Packet p) {
                got.add(p.n());
            }

            @Override
            public void onTick() {
            }
        }, true);
        listener(sim, 0).ctx.sendDatagram(GROUP, new Packet(4, "z"));
        sim.runFor(10 * MS);
        assertThat(got).containsExactly(4);
        assertThat(listener(sim, 1).received).containsExactly(4);
        assertThat(listener(sim, 1).plain).isEmpty();
    }

    @Test
    void badPlansAreRejected() {
        assertThatThrownBy(() -> new DatagramPlan(5, 4, 0, 0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DatagramPlan(0, 4, 1.0, 0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DatagramPlan(0, 4, 0, -0.1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DatagramPlan(0, 4, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultPlan.reliable().withDatagrams(null)).isInstanceOf(IllegalArgumentException.class);
        FaultPlan hostile = FaultPlan.hostile(1);
        assertThat(hostile.datagrams()).isEqualTo(new DatagramPlan(hostile.minDelay(), hostile.maxDelay(),
                hostile.dropProbability(), hostile.duplicateProbability(), DatagramPlan.DEFAULT_PACKET_SIZE));
    }
}
