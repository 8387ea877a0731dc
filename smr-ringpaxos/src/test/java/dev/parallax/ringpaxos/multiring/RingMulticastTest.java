package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.ringpaxos.Ring;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The merge cases of Multi-Ring Paxos at the multicast level (seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 5, Alg. 1): a subscription merging a ring with traffic and an idle one delivers thanks
 * to the idle ring's skips at rate λ, and stalls without them (λ = 0: the negative control).
 */
class RingMulticastTest {
    private static final long TIMEOUT_S = 60;
    private static final GroupSet G01 = GroupSet.of(0, 1);
    private static final int MESSAGES = 20;
    private static final int CREDITS = 4;
    private final List<AtomicMulticast> created = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(AtomicMulticast::close);
    }

    /** Deliveries of one subscription, with the position after each. */
    private static final class Recorder {
        private final List<String> got = new ArrayList<>();
        private final List<MulticastPosition> positions = new ArrayList<>();

        synchronized void add(GroupSet g, ByteBuffer m, MulticastPosition after) {
            got.add(StandardCharsets.UTF_8.decode(m).toString());
            positions.add(after);
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

        synchronized List<String> got() {
            return new ArrayList<>(got);
        }

        synchronized MulticastPosition last() {
            return positions.get(positions.size() - 1);
        }
    }

    private List<AtomicMulticast> cluster(long lambda) {
        List<MeterRegistry> meters = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
        List<AtomicMulticast> c = RingMulticastContractTest.cluster(3, G01, Ring.Kind.U_RING, meters,
                b -> b.lambda(lambda).credits(CREDITS));
        created.addAll(c);
        return c;
    }

    /**
     * Multicasts {@link #MESSAGES} messages to group 1 from process 0. With {@link #CREDITS}
     * credits, the last ones are accepted only once earlier ones were seen decided, so when this
     * returns, ring 1 has decided all but the last {@code CREDITS} at least.
     */
    private static List<String> trafficOnRing1(AtomicMulticast origin) {
        List<String> sent = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        for (int i = 0; i < MESSAGES; i++) {
            String m = "ring1-" + i;
            while (!origin.multicast(GroupSet.of(1), ByteBuffer.wrap(m.getBytes(StandardCharsets.UTF_8)))) {
                assertThat(System.nanoTime()).as("could not multicast " + m + ": credits not returned?").isLessThan(deadline);
                Thread.yield();
            }
            sent.add(m);
        }
        return sent;
    }

    @Test
    @DisplayName("seed 003 ch. 5, Alg. 1: a subscription on {0, 1} with traffic on ring 1 only delivers it, thanks to the "
            + "skips of ring 0 and of the global ring")
    void anIdleRingSkipsAndTheMergeDelivers() throws InterruptedException {
        long startMillis = System.currentTimeMillis();
        List<AtomicMulticast> c = cluster(RingMulticastContractTest.LAMBDA);
        Recorder merged = new Recorder();
        c.get(2).subscribe(G01, merged::add);
        List<String> sent = trafficOnRing1(c.get(0));
        assertThat(merged.await(MESSAGES)).as("every message once").containsExactlyInAnyOrderElementsOf(sent);
        MulticastPosition after = merged.last();
        assertThat(after.next(0)).as("ring 0 decided no message: its logical sequence moved by skips only, to the "
                + "target λ·⌊epoch ms⌋/1000").isGreaterThanOrEqualTo(RingMulticastContractTest.LAMBDA * (startMillis - 1000) / 1000);
        assertThat(after.next(MulticastPosition.GLOBAL_STREAM)).as("so did the global ring's").isPositive();
        assertThat(after.next(MulticastPosition.resumeStream(1))).as("ring 1's delivery resumes after its instances")
                .isGreaterThanOrEqualTo(MESSAGES);
    }

    @Test
    @DisplayName("negative control: with λ = 0 no ring skips, and a subscription on {0, 1} stays stuck at idle ring 0 "
            + "while ring 1 decides its traffic")
    void withoutSkipsTheMergeStallsAtTheIdleRing() throws InterruptedException {
        List<AtomicMulticast> c = cluster(0);
        Recorder merged = new Recorder();
        c.get(2).subscribe(G01, merged::add);
        trafficOnRing1(c.get(0));
        // The traffic was decided (the credits came back); waiting longer only proves absence.
        Thread.sleep(2_000); // sleep is the scenario: time passes to show nothing is delivered
        assertThat(merged.got()).as("ring 0 (lowest id) is merged first and has no index 0 decided: nothing comes")
                .isEmpty();
    }

    @Test
    @DisplayName("the rings' members are rotated so that the fresh rings' first coordinators are different processes")
    void ringMembersAreRotated() {
        assertThat(RingMulticast.ringMember(0, 0, 3)).isZero();
        assertThat(RingMulticast.ringMember(0, 1, 3)).isEqualTo(1);
        assertThat(RingMulticast.ringMember(2, 1, 3)).isZero();
        assertThat(RingMulticast.ringMember(1, 2, 3)).isZero();
        assertThatThrownBy(() -> RingMulticast.ringMember(3, 0, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RingMulticast.builder().self(0).members(3).groups(G01).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("required");
        assertThatThrownBy(() -> RingMulticast.builder().self(0).members(3).groups(G01).lambda(-1)
                .transports((stream, member) -> null).logs(stream -> null).build())
                .as("refused before any ring is built").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ring.lambda");
    }
}
