package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.testkit.LocalNetwork;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What is specific to the reference multicast: skips for idle streams, forwarding, bad forwards. */
class PaxosMulticastTest {
    private static final long TIMEOUT_S = 60;
    private final List<AtomicMulticast> created = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(AtomicMulticast::close);
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(AtomicMulticast p, GroupSet g, String m) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!p.multicast(g, bytes(m))) {
            assertThat(System.nanoTime()).as("could not multicast " + m).isLessThan(deadline);
            Thread.yield();
        }
    }

    private static double counter(MeterRegistry r, String name) {
        return r.find(name).counter() == null ? 0 : r.find(name).counter().count();
    }

    /** Counts deliveries and waits for them. */
    private static final class Counted {
        private final List<String> got = new ArrayList<>();

        synchronized void add(GroupSet g, ByteBuffer m, MulticastPosition after) {
            byte[] a = new byte[m.remaining()];
            m.get(a);
            got.add(new String(a, StandardCharsets.UTF_8));
            notifyAll();
        }

        synchronized List<String> await(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (got.size() < n) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("delivered " + got.size() + " of " + n).isPositive();
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return new ArrayList<>(got);
        }
    }

    @Test
    void aSubscriberMergingAnIdleGroupKeepsDeliveringThroughSkips() throws InterruptedException {
        List<MeterRegistry> meters = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
        List<AtomicMulticast> c = PaxosMulticastContractTest.cluster(3, GroupSet.of(0, 1, 2), meters, new LocalNetwork<>(3));
        created.addAll(c);
        Counted merged = new Counted();
        c.get(1).subscribe(GroupSet.of(0, 1), merged::add);
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            send(c.get(2), GroupSet.of(0), "only-0-" + i); // groups 1 and 2 and the global stream stay idle
            sent.add("only-0-" + i);
        }
        assertThat(merged.await(50)).isEqualTo(sent);
        double skips = 0;
        for (MeterRegistry r : meters) {
            skips += counter(r, "parallax.multicast.skips.proposed");
        }
        assertThat(skips).as("the idle streams' leaders decided skips").isGreaterThanOrEqualTo(50);
    }

    @Test
    void badForwardsAreCountedAndIgnored() throws InterruptedException {
        List<MeterRegistry> meters = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
        LocalNetwork<MulticastForward> forwards = new LocalNetwork<>(2);
        List<AtomicMulticast> c = PaxosMulticastContractTest.cluster(2, GroupSet.of(0, 1), meters, forwards);
        created.addAll(c);
        Counted all = new Counted();
        c.get(0).subscribe(GroupSet.of(0, 1), all::add);
        for (AtomicMulticast m : c) {
            assertThat(m.groups()).isEqualTo(GroupSet.of(0, 1));
        }
        send(c.get(1), GroupSet.of(1), "before");
        all.await(1);
        // A stranger on member 1's forward address: an unknown stream, no envelope, bytes that are no envelope.
        Transport<MulticastForward> stranger = forwards.transport(1);
        stranger.send(0, new MulticastForward(7, bytes("x")));
        stranger.send(0, new MulticastForward(0, null));
        stranger.send(0, new MulticastForward(0, bytes("not an envelope")));
        assertThat(counter(meters.get(0), "parallax.multicast.forwards.dropped")).isEqualTo(2);
        send(c.get(1), GroupSet.of(0, 1), "after");
        assertThat(all.await(2)).containsExactly("before", "after");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (counter(meters.get(0), "parallax.multicast.unreadable") == 0) {
            assertThat(System.nanoTime()).as("the junk value is ordered, then consumed as nothing").isLessThan(deadline);
            Thread.yield();
        }
        send(c.get(0), GroupSet.of(0), "still");
        assertThat(all.await(3)).containsExactly("before", "after", "still");
    }
}
