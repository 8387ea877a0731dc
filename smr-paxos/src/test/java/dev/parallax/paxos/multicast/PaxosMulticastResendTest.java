package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Accepted messages survive a lossy forward transport: the origin resends what it does not see
 * decided, and a message decided twice is delivered once, at the same position, by every
 * subscriber.
 */
class PaxosMulticastResendTest {
    private static final long TIMEOUT_S = 60;
    private static final GroupSet G01 = GroupSet.of(0, 1);
    private final List<AtomicMulticast> created = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(AtomicMulticast::close);
    }

    /**
     * A forward transport that loses the first {@code drop} forwards it is given while saying they
     * were sent (as a replica port does for a peer it is not connected to yet), and sends every
     * other one {@code copies} times.
     */
    private static final class Meddling implements Transport<MulticastForward> {
        private final Transport<MulticastForward> inner;
        private final AtomicInteger toDrop;
        private final int copies;
        final AtomicInteger dropped = new AtomicInteger();

        Meddling(Transport<MulticastForward> inner, int drop, int copies) {
            this.inner = inner;
            this.toDrop = new AtomicInteger(drop);
            this.copies = copies;
        }

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
            if (toDrop.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                dropped.incrementAndGet();
                return true;
            }
            boolean sent = true;
            for (int i = 0; i < copies; i++) {
                sent &= inner.send(to, new MulticastForward(message.stream(), message.envelope().duplicate()));
            }
            return sent;
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /**
     * One subscription's deliveries, the position after each, and the instance each was taken
     * from (the position after a delivery names the next instance of the message's stream: its
     * group's, or the global one for several groups).
     */
    private static final class Recorder {
        final List<String> delivered = new ArrayList<>();
        final List<MulticastPosition> positions = new ArrayList<>();
        final List<Long> instances = new ArrayList<>();

        synchronized void record(GroupSet g, ByteBuffer m, MulticastPosition after) {
            byte[] a = new byte[m.remaining()];
            m.get(a);
            delivered.add(new String(a, StandardCharsets.UTF_8));
            positions.add(after);
            instances.add(after.next(g.size() == 1 ? g.first() : MulticastPosition.GLOBAL_STREAM) - 1);
            notifyAll();
        }

        synchronized void await(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (delivered.size() < n) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("delivered " + delivered.size() + " of " + n).isPositive();
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        synchronized List<String> delivered() {
            return new ArrayList<>(delivered);
        }

        synchronized List<MulticastPosition> positions() {
            return new ArrayList<>(positions);
        }

        synchronized List<Long> instances() {
            return new ArrayList<>(instances);
        }
    }

    private static void send(AtomicMulticast p, GroupSet g, String m) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!p.multicast(g, ByteBuffer.wrap(m.getBytes(StandardCharsets.UTF_8)))) {
            assertThat(System.nanoTime()).as("could not multicast " + m + ": credits not returned?").isLessThan(deadline);
            Thread.yield();
        }
    }

    private static double counter(MeterRegistry r, String name) {
        return r.find(name).counter() == null ? 0 : r.find(name).counter().count();
    }

    private List<MeterRegistry> registries() {
        return List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
    }

    /**
     * Multicasts {@code perProcess} messages from each process (groups 0, 1 and both in turn),
     * waits for every subscriber of {0, 1} (one per process) and of {0} (process 2), and checks
     * that each delivered every message once, and that all delivered the same sequence at the
     * same positions.
     */
    private void multicastAndCheck(List<AtomicMulticast> c, int perProcess) throws InterruptedException {
        List<Recorder> both = new ArrayList<>();
        for (AtomicMulticast p : c) {
            Recorder r = new Recorder();
            p.subscribe(G01, r::record);
            both.add(r);
        }
        Recorder zero = new Recorder();
        c.get(2).subscribe(GroupSet.of(0), zero::record);
        List<GroupSet> targets = List.of(GroupSet.of(0), GroupSet.of(1), G01);
        Map<String, GroupSet> sent = new LinkedHashMap<>();
        for (int i = 0; i < perProcess; i++) {
            for (int p = 0; p < c.size(); p++) {
                GroupSet g = targets.get((i + p) % targets.size());
                String m = "p" + p + "-" + i + g;
                send(c.get(p), g, m);
                sent.put(m, g);
            }
        }
        for (Recorder r : both) {
            r.await(sent.size());
        }
        List<String> toZero = sent.keySet().stream().filter(m -> sent.get(m).contains(0)).toList();
        zero.await(toZero.size());
        List<String> reference = both.get(0).delivered();
        assertThat(reference).as("every message, once").hasSize(sent.size()).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(sent.keySet());
        for (Recorder r : both) {
            assertThat(r.delivered()).as("the same sequence at every process").isEqualTo(reference);
            assertThat(r.positions()).as("at the same positions").isEqualTo(both.get(0).positions());
        }
        assertThat(zero.delivered()).as("group 0's messages once, in the merged order")
                .isEqualTo(reference.stream().filter(m -> sent.get(m).contains(0)).toList());
        List<Long> zeroInstances = new ArrayList<>();
        List<Long> referenceInstances = both.get(0).instances();
        for (int i = 0; i < reference.size(); i++) {
            if (sent.get(reference.get(i)).contains(0)) {
                zeroInstances.add(referenceInstances.get(i));
            }
        }
        assertThat(zero.instances()).as("from the same instances").isEqualTo(zeroInstances);
        assertThat(new HashSet<>(zero.delivered())).hasSize(toZero.size());
    }

    @Test
    void forwardsLostAtStartAreResentAndEveryMessageIsDeliveredOnceEverywhere() throws InterruptedException {
        List<MeterRegistry> meters = registries();
        LocalNetwork<MulticastForward> network = new LocalNetwork<>(3);
        List<Meddling> forwards = new ArrayList<>();
        List<AtomicMulticast> c = PaxosMulticastContractTest.cluster(3, G01, meters, id -> {
            Meddling m = new Meddling(network.transport(id), 6, 1);
            forwards.add(m);
            return m;
        }, b -> b.credits(4).resendAfter(Duration.ofMillis(50)));
        created.addAll(c);
        multicastAndCheck(c, 30); // 30 > credits: credits return for resent messages too

        int lostForwards = 0;
        double resends = 0;
        for (int p = 0; p < 3; p++) {
            lostForwards += forwards.get(p).dropped.get();
            resends += counter(meters.get(p), "parallax.multicast.resends");
        }
        assertThat(lostForwards).as("the transport lost forwards (of the processes not leading)").isGreaterThanOrEqualTo(6);
        assertThat(resends).as("and their origins resent them").isGreaterThanOrEqualTo(lostForwards);
    }

    @Test
    void aMessageDecidedTwiceIsDeliveredOnceAtTheSamePositionByEverySubscriber() throws InterruptedException {
        List<MeterRegistry> meters = registries();
        LocalNetwork<MulticastForward> network = new LocalNetwork<>(3);
        List<AtomicMulticast> c = PaxosMulticastContractTest.cluster(3, G01, meters,
                id -> new Meddling(network.transport(id), 0, 2), b -> b);
        created.addAll(c);
        multicastAndCheck(c, 20);
        for (int p = 0; p < meters.size(); p++) {
            MeterRegistry r = meters.get(p);
            int process = p;
            Await.until(Duration.ofSeconds(TIMEOUT_S), () -> counter(r, "parallax.multicast.duplicates") != 0,
                    () -> "copies decided, and dropped, at process " + process);
        }
    }
}
