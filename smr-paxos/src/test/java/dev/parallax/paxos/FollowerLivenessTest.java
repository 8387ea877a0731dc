package dev.parallax.paxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three Multi-Paxos replicas on real stage threads. Replica 2's execution stalls: its protocol
 * stage keeps a bounded number of decisions, then leaves its inbox alone, which fills up and drops
 * the leader's messages. Its failure detector reads the transport's arrival stamps, so it does not
 * suspect the leader that keeps sending; once execution resumes it catches up. Then the leader
 * falls silent and is suspected within its timeout, and closing the replicas leaves no detector
 * thread behind.
 */
class FollowerLivenessTest {
    private static final int N = 400;
    private static final int MAX_UNDELIVERED = 16;
    // Heartbeat and suspect timeout long enough that a loaded machine does not trip a suspicion by
    // accident (the test asserts there is none while the leader lives); the stall and the
    // detection below are measured against these timeouts, whatever they are.
    private static final PaxosConfig CONFIG = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(50))
            .suspect(Duration.ofSeconds(1)).retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).catchUpMaxInstances(32).build();

    /** Counts the leader's heartbeats arriving at one replica, and Prepares it sends. */
    private static final class Watched implements Transport<PaxosMessage> {
        private final Transport<PaxosMessage> inner;
        final AtomicReference<CountDownLatch> heartbeatsFromLeader = new AtomicReference<>(new CountDownLatch(0));
        final AtomicReference<CountDownLatch> preparesSent = new AtomicReference<>(new CountDownLatch(0));
        /** When the last message from replica 0 arrived, taken before the liveness stamp. */
        volatile long lastFromLeader;
        final java.util.concurrent.atomic.AtomicLong firstPrepareAt = new java.util.concurrent.atomic.AtomicLong();

        Watched(Transport<PaxosMessage> inner) {
            this.inner = inner;
        }

        @Override
        public int localId() {
            return inner.localId();
        }

        @Override
        public void start(MessageHandler<PaxosMessage> handler) {
            inner.start((from, m) -> {
                if (from == 0) {
                    lastFromLeader = System.nanoTime();
                    if (m instanceof PaxosMessage.Heartbeat) {
                        heartbeatsFromLeader.get().countDown();
                    }
                }
                handler.onMessage(from, m);
            });
        }

        @Override
        public boolean send(int to, PaxosMessage message) {
            if (message instanceof PaxosMessage.Prepare) {
                firstPrepareAt.compareAndSet(0, System.nanoTime());
                preparesSent.get().countDown();
            }
            return inner.send(to, message);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /** Records deliveries; the first one blocks until {@code resume} opens when {@code stall} is set. */
    private static final class Recorder implements dev.parallax.core.spi.DeliveryListener {
        final List<String> values = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch all = new CountDownLatch(N);
        final CountDownLatch resume = new CountDownLatch(1);
        final CountDownLatch stalled = new CountDownLatch(1);
        final CountDownLatch afterFailover = new CountDownLatch(1);
        private final boolean stall;

        Recorder(boolean stall) {
            this.stall = stall;
        }

        @Override
        public void deliver(long instance, ByteBuffer value) throws InterruptedException {
            if (stall && stalled.getCount() > 0) {
                stalled.countDown();
                resume.await();
            }
            String s = StandardCharsets.UTF_8.decode(value).toString();
            values.add(s);
            if (s.equals("after")) {
                afterFailover.countDown();
            } else {
                all.countDown();
            }
        }
    }

    /** Offers {@code v} until the proposal queue takes it (it is full until the replica leads and orders). */
    private static void propose(PaxosBroadcast replica, String v) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!replica.propose(ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))) {
            assertThat(System.nanoTime()).as("proposal %s not taken within 30 s", v).isLessThan(deadline);
            Thread.yield();
        }
    }

    private static double value(MeterRegistry r, String name) {
        io.micrometer.core.instrument.Gauge g = r.find(name).gauge();
        if (g != null) {
            return g.value();
        }
        return r.find(name).functionCounter() != null ? r.find(name).functionCounter().count() : r.get(name).counter().count();
    }

    @Test
    void aFollowerWithAStalledExecutionKeepsItsLeaderStaysBoundedAndCatchesUp() throws InterruptedException {
        LocalNetwork<PaxosMessage> network = new LocalNetwork<>(3);
        List<PaxosBroadcast> replicas = new ArrayList<>();
        List<Watched> transports = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        List<MeterRegistry> registries = new ArrayList<>();
        try {
            for (int id = 0; id < 3; id++) {
                Watched t = new Watched(network.transport(id));
                MeterRegistry registry = new SimpleMeterRegistry();
                PaxosBroadcast.Builder b = PaxosBroadcast.builder().config(CONFIG).self(id).transport(t)
                        .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE);
                RuntimeOptions.Builder options = RuntimeOptions.builder().meterRegistry(registry);
                if (id == 2) {
                    options.decisionCapacity(8).maxUndelivered(MAX_UNDELIVERED).inboxCapacity(32);
                }
                b.options(options.build());
                Recorder r = new Recorder(id == 2);
                PaxosBroadcast p = b.build();
                transports.add(t);
                recorders.add(r);
                registries.add(registry);
                replicas.add(p);
                p.start(r);
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                String v = "v" + i;
                expected.add(v);
                propose(replicas.get(0), v);
                if ((i + 1) % MAX_UNDELIVERED == 0) {
                    // Paced: the followers learn decisions from the leader's heartbeats, so a burst of
                    // all N proposals between two heartbeats let one heartbeat decide every value
                    // replica 2 had accepted (391 once, on a loaded machine), which says nothing about
                    // the stage's bound. After each chunk a heartbeat reaches replica 2 first.
                    int proposed = i + 1;
                    Await.until("replica 1 executes the first " + proposed + " values", Duration.ofSeconds(60),
                            () -> recorders.get(1).values.size() >= proposed);
                    CountDownLatch heartbeat = new CountDownLatch(1);
                    transports.get(2).heartbeatsFromLeader.set(heartbeat);
                    assertThat(heartbeat.await(30, TimeUnit.SECONDS)).as("a heartbeat after value %d", i).isTrue();
                }
            }
            // The leader and the healthy follower are a quorum: everything is decided and executed there.
            assertThat(recorders.get(0).all.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(recorders.get(1).all.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(recorders.get(2).stalled.await(10, TimeUnit.SECONDS)).isTrue();
            long stalledSince = System.nanoTime();

            // Keep replica 2 stalled while the idle leader sends enough heartbeats to last well past
            // twice replica 2's suspect timeout in view 0 (rank 1: 1.5 x suspect): a third more
            // than that many heartbeat intervals (as 40 heartbeats of 20 ms were for 2 x 300 ms).
            long stallNanos = 2 * new SuspicionRule(CONFIG, 2).timeoutNanos(0);
            CountDownLatch heartbeats = new CountDownLatch((int) (stallNanos * 4 / 3 / CONFIG.heartbeatNanos()) + 1);
            transports.get(2).heartbeatsFromLeader.set(heartbeats);
            assertThat(heartbeats.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(System.nanoTime() - stalledSince)
                    .isGreaterThan(stallNanos);

            MeterRegistry stalledRegistry = registries.get(2);
            // Bounded: the stage takes no more messages than decisions still fit, so it overshoots
            // only by what one message releases — a catch-up reply (32) plus the instances the
            // learner had decided above the gap it fills (16-35 seen here). Unbounded, it would
            // hold nearly all N = 400.
            System.out.printf("stalled follower kept at most %.0f decisions (bound %d)%n",
                    value(stalledRegistry, "parallax.protocol.undelivered.max"), MAX_UNDELIVERED);
            assertThat(value(stalledRegistry, "parallax.protocol.undelivered.max")).isBetween((double) MAX_UNDELIVERED,
                    (double) N / 4);
            assertThat(value(stalledRegistry, "parallax.protocol.inbound.dropped")).isPositive();
            for (int id = 0; id < 3; id++) {
                assertThat(value(registries.get(id), "parallax.protocol.suspicions")).as("suspicions at %d", id).isZero();
                assertThat(value(registries.get(id), "parallax.paxos.view")).as("view at %d", id).isZero();
            }

            recorders.get(2).resume.countDown();
            assertThat(recorders.get(2).all.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(recorders.get(2).values).containsExactlyElementsOf(expected);
            assertThat(recorders.get(1).values).containsExactlyElementsOf(expected);
            assertThat(value(stalledRegistry, "parallax.paxos.view")).isZero();
            assertThat(value(stalledRegistry, "parallax.protocol.suspicions")).isZero();

            // The leader falls silent: replica 1, next in line, suspects it within its timeout.
            CountDownLatch prepare = new CountDownLatch(1);
            transports.get(1).firstPrepareAt.set(0);
            transports.get(1).preparesSent.set(prepare);
            long silentSince = System.nanoTime();
            replicas.get(0).close();
            assertThat(prepare.await(30, TimeUnit.SECONDS)).isTrue();
            long timeout = new SuspicionRule(CONFIG, 1).timeoutNanos(0);
            // Not before a full timeout of silence after the last arrival; soon after it (the
            // detector checks every quarter heartbeat; the bound is loose for loaded machines).
            long prepareAt = transports.get(1).firstPrepareAt.get();
            assertThat(prepareAt - transports.get(1).lastFromLeader).isGreaterThanOrEqualTo(timeout);
            assertThat(prepareAt - silentSince).isLessThan(timeout + TimeUnit.SECONDS.toNanos(2));
            assertThat(value(registries.get(1), "parallax.protocol.suspicions")).isEqualTo(1);

            propose(replicas.get(1), "after");
            assertThat(recorders.get(2).afterFailover.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(recorders.get(1).afterFailover.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            recorders.forEach(r -> r.resume.countDown());
            replicas.forEach(PaxosBroadcast::close);
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("paxos-fd-") && t.isAlive());
    }
}
