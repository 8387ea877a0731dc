package dev.parallax.ringpaxos.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.cluster.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * M-Ring flow control in one JVM over a real loopback multicast group (seed 003 (Ring Paxos)
 * §3.3.6, M6): replica 2's state machine sleeps 1 ms per command, so its learner falls behind the
 * decided prefix and reports a backlog; the coordinator halves its window, the learner's buffer
 * stays within {@code mring.learner.buffer}, and every write is answered.
 */
class MRingSlowLearnerTest {
    private static final int WINDOW = 32;
    private static final int LEARNER_BUFFER = 4096;

    /** Wraps the third state machine built (replica 2: LocalCluster builds 0, 1, 2 in order) to sleep 1 ms per command. */
    private static UnaryOperator<StateMachine> slowThird() {
        AtomicInteger built = new AtomicInteger();
        return sm -> built.getAndIncrement() != 2 ? sm : new StateMachine() {
            @Override
            public ByteBuffer execute(ByteBuffer command) {
                try {
                    Thread.sleep(1);
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

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.6 (M6): a slow learner's backlog shrinks the coordinator's window, its buffer stays bounded, "
            + "every write is answered")
    void aSlowLearnerShrinksTheWindowAndStaysBounded() throws Exception {
        String group = RingReplicaClusterTest.randomGroup();
        int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        RingConfig.Builder config = RingReplicaClusterTest.testConfig(3, Ring.Kind.M_RING).window(WINDOW).eagerBelow(1)
                .mringFcThreshold(8).mringLearnerBuffer(LEARNER_BUFFER).mringGroup(group).mringPort(port);
        try (LocalCluster c = new LocalCluster(3, n -> RingPaxos.mRing(config.build()), slowThird(), 16 << 20)) {
            AtomicBoolean sampling = new AtomicBoolean(true);
            AtomicLong smallestWindow = new AtomicLong(Long.MAX_VALUE);
            AtomicLong largestBuffer = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    for (int r = 0; r < 3; r++) {
                        MeterRegistry m = c.replicas.get(r).meterRegistry();
                        if (gauge(m, "parallax.ring.coordinator", null) == 1) {
                            smallestWindow.accumulateAndGet((long) gauge(m, "parallax.ring.window", null), Math::min);
                        }
                        largestBuffer.accumulateAndGet((long) gauge(m, "parallax.ring.learner.buffered", "instances"), Math::max);
                    }
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "window-sampler");
            sampler.start();
            List<SmrClient> clients = List.of(c.clientOf(0), c.clientOf(1));
            List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                for (int k = 0; k < clients.size(); k++) {
                    replies.add(clients.get(k).invoke(cmd("SET k" + k + "-" + i + " v" + i)));
                }
            }
            for (CompletableFuture<ByteBuffer> r : replies) {
                r.get(120, TimeUnit.SECONDS);
            }
            Await.until("every replica executed every write", Duration.ofSeconds(120),
                    () -> c.machines.get(0).data.size() >= 3000 && c.machines.get(2).data.size() >= 3000);
            sampling.set(false);
            sampler.join(10_000);
            assertThat(smallestWindow.get()).as("the coordinator's window fell below its maximum").isLessThan(WINDOW);
            assertThat(largestBuffer.get()).as("instances buffered by a learner").isBetween(0L, (long) LEARNER_BUFFER);
            assertThat(c.machines.get(0).data).isEqualTo(c.machines.get(2).data);
        }
    }
}
