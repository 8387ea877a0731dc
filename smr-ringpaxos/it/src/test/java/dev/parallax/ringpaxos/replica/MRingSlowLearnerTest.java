package dev.parallax.ringpaxos.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * M-Ring flow control in one JVM over a real loopback multicast group (seed 003 (Ring Paxos)
 * §3.3.6, M6): replica 2's state machine is held shut, so its learner falls behind the decided
 * prefix and reports a backlog; the coordinator halves its window (the {@code fc.decreases} event
 * count), the learner's buffer stays within {@code mring.learner.buffer}, and once the state
 * machine opens every write is answered and every replica holds the same data.
 *
 * <p>No timing decides the outcome: the load is closed-loop (a few writes in flight per client, so
 * it spreads over many instances however the proposers batch) and goes on until the halving is
 * observed. An earlier version sent 3,000 writes at once, slowed the learner by 1 ms a command and
 * sampled the window gauge; it failed once in CI under {@code threads=compact}.
 *
 * <p>Staged placement only. Under {@code threads=compact} a replica's execution shares the
 * pipeline thread with its protocol stage, so a slow state machine slows that replica's acceptor
 * too: when it sits on the ring the ring runs at its pace and no backlog forms (observed: 280
 * instances a second, window untouched), and a stopped one is excluded from the ring as silent.
 * Flow control is for learners whose execution lags their protocol, which needs the stages apart.
 */
class MRingSlowLearnerTest {
    private static final int WINDOW = 32;
    private static final int LEARNER_BUFFER = 4096;
    private static final int IN_FLIGHT_PER_CLIENT = 4;
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    /** Wraps the third state machine built (replica 2: LocalCluster builds 0, 1, 2 in order) to wait for {@code open}. */
    private static UnaryOperator<StateMachine> heldThird(CountDownLatch open) {
        AtomicInteger built = new AtomicInteger();
        return sm -> built.getAndIncrement() != 2 ? sm : new StateMachine() {
            @Override
            public ByteBuffer execute(ByteBuffer command) {
                try {
                    open.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return sm.execute(command);
            }

            @Override
            public void snapshot(WritableByteChannel out) throws IOException {
                sm.snapshot(out);
            }

            @Override
            public void restore(java.nio.channels.ReadableByteChannel in) throws IOException {
                sm.restore(in);
            }
        };
    }

    private static double gauge(MeterRegistry registry, String name, String unit) {
        Gauge g = unit == null ? registry.find(name).gauge() : registry.find(name).tag("unit", unit).gauge();
        return g == null ? -1 : g.value();
    }

    /** The coordinator's halvings so far, summed over the replicas (only a coordinator halves). */
    private static long halvings(LocalCluster c) {
        long sum = 0;
        for (int r = 0; r < 3; r++) {
            FunctionCounter counter = c.replicas.get(r).meterRegistry().find("parallax.protocol.events")
                    .tag("event", "fc.decreases").functionCounter();
            sum += counter == null ? 0 : (long) counter.count();
        }
        return sum;
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.6 (M6): a slow learner's backlog shrinks the coordinator's window, its buffer stays bounded, "
            + "every write is answered")
    void aSlowLearnerShrinksTheWindowAndStaysBounded() throws Exception {
        assumeTrue(ThreadPlacement.jvmDefault().resolve(Runtime.getRuntime().availableProcessors()) == ThreadPlacement.STAGED,
                "flow control needs execution apart from the protocol stage: staged placement only");
        String group = RingReplicaClusterTest.randomGroup();
        int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        RingConfig.Builder config = RingReplicaClusterTest.testConfig(3, Ring.Kind.M_RING).window(WINDOW).eagerBelow(1)
                .mringFcThreshold(8).mringLearnerBuffer(LEARNER_BUFFER).mringGroup(group).mringPort(port);
        CountDownLatch open = new CountDownLatch(1);
        try (LocalCluster c = new LocalCluster(3, n -> RingPaxos.mRing(config.build()), heldThird(open), 16 << 20)) {
            AtomicBoolean sampling = new AtomicBoolean(true);
            AtomicLong largestBuffer = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    for (int r = 0; r < 3; r++) {
                        MeterRegistry m = c.replicas.get(r).meterRegistry();
                        largestBuffer.accumulateAndGet((long) gauge(m, "parallax.ring.learner.buffered", "instances"), Math::max);
                    }
                    try {
                        Thread.sleep(1); // sleep is the scenario: the sampler's period, until told to stop
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "buffer-sampler");
            sampler.start();
            List<SmrClient> clients = List.of(c.clientOf(0), c.clientOf(1));
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            int writes = 0;
            try {
                while (halvings(c) == 0) {
                    assertThat(System.nanoTime() - deadline).as("the coordinator halved its window within " + PATIENCE
                            + " of a held learner (" + writes + " writes)").isNegative();
                    List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
                    for (int i = 0; i < IN_FLIGHT_PER_CLIENT; i++) {
                        for (int k = 0; k < clients.size(); k++) {
                            replies.add(clients.get(k).invoke(cmd("SET k" + k + "-" + writes + " v" + writes)));
                        }
                        writes++;
                    }
                    for (CompletableFuture<ByteBuffer> r : replies) {
                        r.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    }
                }
            } finally {
                open.countDown();
            }
            int expected = 2 * writes;
            Await.until("every replica executed every write", PATIENCE,
                    () -> c.machines.get(0).data.size() >= expected && c.machines.get(2).data.size() >= expected);
            sampling.set(false);
            sampler.join(10_000);
            assertThat(halvings(c)).as("the coordinator's window halvings").isPositive();
            assertThat(largestBuffer.get()).as("instances buffered by a learner").isBetween(0L, (long) LEARNER_BUFFER);
            assertThat(c.machines.get(0).data).hasSize(expected).isEqualTo(c.machines.get(2).data);
        }
    }
}
