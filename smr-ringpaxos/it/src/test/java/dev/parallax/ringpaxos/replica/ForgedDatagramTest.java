package dev.parallax.ringpaxos.replica;

import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.ringpaxos.InstanceVid;
import dev.parallax.ringpaxos.MPacket;
import dev.parallax.ringpaxos.Phase2Entry;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.RingWireBounds;
import dev.parallax.ringpaxos.ValueId;
import dev.parallax.ringpaxos.multiring.MultiRing;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import io.micrometer.core.instrument.Counter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.parallax.core.testkit.cluster.AppendLoad;

import static dev.parallax.core.testkit.cluster.AppendLoad.awaitConverged;
import static dev.parallax.core.testkit.cluster.AppendLoad.routed;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outsider on the M-Ring datagram group ({@link DatagramForger}: a plain {@code DatagramChannel},
 * the valid cluster tag, a claimed sender, no cluster secret) sends the three datagrams that broke
 * a live cluster: a NOOP decision for instances no learner has decided, a Phase 2A in a round near
 * 2^62, and a maximal skip on a Multi-Ring ring. Each forgery is sent in both wire forms (without a
 * trailer, and with a made-up epoch, counter and tag). The cluster must take none of them: every
 * later write is answered, the replicas hold the same state, and every replica that heard the
 * forgeries dropped and counted them ({@code parallax.net.datagrams{result=dropped,reason=unauthenticated}}).
 */
class ForgedDatagramTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    /** The member the forger claims to be: it drops the forgeries as its own loop-back, so two replicas judge them. */
    private static final int CLAIMED = 1;
    private static final int[] OTHERS = {0, 2};

    private static String group() {
        return RingReplicaClusterTest.randomGroup();
    }

    private static int port() {
        return ThreadLocalRandom.current().nextInt(20_000, 60_000);
    }

    /** The M-Ring of a round the claimed sender coordinates, with one other acceptor (n = 3). */
    private static Ring claimedRing() {
        return Ring.mRing(CLAIMED, new int[] {0});
    }

    /** Decisions of {@code vid} for {@code from .. from + count - 1}, in packets of 250. */
    private static List<MPacket> decisions(long from, int count, ValueId vid) {
        List<MPacket> packets = new ArrayList<>();
        for (long i = from; i < from + count; i += 250) {
            List<InstanceVid> d = new ArrayList<>();
            for (long k = i; k < Math.min(from + count, i + 250); k++) {
                d.add(new InstanceVid(k, vid));
            }
            packets.add(new MPacket(CLAIMED, claimedRing(), d, List.of()));
        }
        return packets;
    }

    private static void writeAll(List<CompletableFuture<ByteBuffer>> replies) throws Exception {
        for (CompletableFuture<ByteBuffer> r : replies) {
            r.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /**
     * {@code count} appends to each client's own key and to the shared key through each replica's
     * client ({@link AppendLoad#load}: the order matters, so a replica that skipped or reordered a
     * command holds a different state); waits for every reply.
     */
    private static void load(LocalCluster c, String tag, int count) throws Exception {
        writeAll(AppendLoad.load(List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2)), tag, count));
    }

    /** Every replica holds the same state, and the shared key every append once. */
    private static void assertConverged(LocalCluster c, int appends) throws InterruptedException {
        awaitConverged(c);
        for (int r = 0; r < 3; r++) {
            assertThat(c.machines.get(r).data.get("shared").split(",")).as("replica %d: every append once", r)
                    .hasSize(appends).doesNotHaveDuplicates();
        }
    }

    private static double dropped(LocalCluster c, int replica, String reason) {
        double sum = 0;
        for (Counter counter : c.replicas.get(replica).meterRegistry().find("parallax.net.datagrams")
                .tag("result", "dropped").tag("reason", reason).counters()) {
            sum += counter.count();
        }
        return sum;
    }

    /**
     * Waits until every replica that judges the forgeries has heard the last of the {@code packets}
     * pairs: dropped as unauthenticated, or (a port that knows no authentication) the trailer form
     * refused as malformed, which arrives after the plain form it follows on the same socket.
     */
    private static void awaitHeard(LocalCluster c, int packets) throws InterruptedException {
        for (int r : OTHERS) {
            Await.until("replica " + r + " heard the " + packets + " forged pairs", PATIENCE,
                    () -> dropped(c, r, "unauthenticated") >= 2 * packets || dropped(c, r, "malformed") >= packets);
        }
    }

    private static void assertDroppedAndCounted(LocalCluster c, int[] replicas, int datagrams) {
        for (int r : replicas) {
            assertThat(dropped(c, r, "unauthenticated")).as("replica %d: forged datagrams dropped as unauthenticated", r)
                    .isEqualTo(datagrams);
        }
    }

    private static LocalCluster mRing(String group, int port) {
        RingConfig config = RingReplicaClusterTest.testConfig(3, Ring.Kind.M_RING).mringGroup(group).mringPort(port).build();
        return new LocalCluster(3, n -> RingPaxos.mRing(config), kv -> kv, 16 << 20);
    }

    @Test
    @DisplayName("a forged NOOP decision for instances no learner decided yet is dropped and counted; later writes reach every replica")
    void forgedNoopDecisionDropped() throws Exception {
        String group = group();
        int port = port();
        try (LocalCluster c = mRing(group, port); DatagramForger forger = new DatagramForger(c.members, group, port)) {
            load(c, "before", 5);
            List<MPacket> packets = decisions(0, 1000, ValueId.NOOP);
            // Forged while the writes are in flight, so some of them hit instances being decided.
            List<CompletableFuture<ByteBuffer>> replies = AppendLoad.load(List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2)),
                    "after", 100);
            int rounds = 10;
            for (int k = 1; k <= rounds; k++) {
                for (MPacket p : packets) {
                    forger.send(CLAIMED, p);
                }
                awaitHeard(c, k * packets.size());
            }
            writeAll(replies);
            assertConverged(c, 3 * 105);
            assertDroppedAndCounted(c, OTHERS, 2 * rounds * packets.size());
        }
    }

    @Test
    @DisplayName("forged Phase 2As in rounds near 2^62, claiming each member, are dropped and counted; the ring goes on deciding, "
            + "also in a new round")
    void forgedHighRoundDropped() throws Exception {
        String group = group();
        int port = port();
        try (LocalCluster c = mRing(group, port); DatagramForger forger = new DatagramForger(c.members, group, port)) {
            load(c, "before", 5);
            int packets = 0;
            for (int claimed = 0; claimed < 3; claimed++) {
                long round = RingWireBounds.MAX_NUMBER - Math.floorMod(RingWireBounds.MAX_NUMBER - claimed, 3);
                assertThat(round % 3).isEqualTo(claimed);
                ValueId vid = new ValueId(claimed, 1, 1);
                List<Phase2Entry> entries = new ArrayList<>();
                for (long i = 0; i < 64; i++) {
                    entries.add(new Phase2Entry(i, vid, ByteBuffer.wrap("forged".getBytes(StandardCharsets.UTF_8))
                            .asReadOnlyBuffer()));
                }
                for (int acceptor = 0; acceptor < 3; acceptor++) {
                    if (acceptor != claimed) {
                        forger.send(claimed, new MPacket(round, Ring.mRing(claimed, new int[] {acceptor}), List.of(), entries));
                        packets++;
                    }
                }
            }
            int each = packets * 2 / 3; // the packets claiming another member, in both forms
            for (int r = 0; r < 3; r++) {
                int replica = r;
                Await.until("replica " + r + " heard the forged rounds", PATIENCE,
                        () -> dropped(c, replica, "unauthenticated") >= 2 * each || dropped(c, replica, "malformed") >= each);
            }
            load(c, "after", 50);
            assertConverged(c, 3 * 55);
            Await.until("the coordinator to be published", PATIENCE, () -> c.leader("parallax.ring.coordinator") >= 0);
            int leader = c.leader("parallax.ring.coordinator");
            int[] survivors = {(leader + 1) % 3, (leader + 2) % 3};
            c.stop(leader); // a new round: the next coordinator's Phase 1 meets whatever the acceptors promised
            writeAll(AppendLoad.load(List.of(c.clientOf(survivors[0]), c.clientOf(survivors[1])), "new-round", 20));
            Await.until("the survivors hold the same state", PATIENCE, () -> AppendLoad.state(c.machines.get(survivors[0]))
                    .equals(AppendLoad.state(c.machines.get(survivors[1]))));
            assertThat(c.machines.get(survivors[0]).data.get("shared").split(",")).as("every append once")
                    .hasSize(3 * 55 + 2 * 20).doesNotHaveDuplicates();
            assertDroppedAndCounted(c, survivors, 2 * each);
        }
    }

    @Test
    @DisplayName("a forged maximal skip on a Multi-Ring ring is dropped and counted; routed writes still merge and execute")
    void forgedMaximalSkipDropped() throws Exception {
        String group = group();
        int port = port();
        RingConfig ring = RingReplicaClusterTest.testConfig(3, Ring.Kind.M_RING).mringGroup(group).mringPort(port).build();
        OrderingProtocol protocol = MultiRing.protocol(MultiRingConfig.builder(3).ringSettings(ring).rings(2).lambda(2_000).build());
        try (LocalCluster c = new LocalCluster(3, n -> protocol, kv -> kv, 16 << 20);
             DatagramForger forger = new DatagramForger(c.members, group, port)) {
            List<CommandInvoker> clients = routed(c, 2, 0, 1, 2);
            routedLoad(clients, "before", 5);
            List<MPacket> packets = decisions(0, 1000, ValueId.skip(RingWireBounds.MAX_NUMBER));
            for (MPacket p : packets) {
                forger.send(CLAIMED, p); // ring 0's datagram group: mring.port + 0
            }
            awaitHeard(c, packets.size());
            routedLoad(clients, "after", 50);
            awaitConverged(c);
            assertThat(c.machines.get(0).data).as("every routed write at every replica").hasSize(3 * 55);
            assertDroppedAndCounted(c, OTHERS, 2 * packets.size());
        }
    }

    private static void routedLoad(List<CommandInvoker> clients, String tag, int count) throws Exception {
        List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            for (int k = 0; k < clients.size(); k++) {
                replies.add(clients.get(k).invoke(cmd("SET " + tag + k + "-" + i + " v" + i)));
            }
        }
        writeAll(replies);
    }
}
