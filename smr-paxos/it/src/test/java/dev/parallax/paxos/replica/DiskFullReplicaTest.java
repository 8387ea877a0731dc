package dev.parallax.paxos.replica;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.log.DiskFaults;
import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.testkit.cluster.ForwardingOrderingContext;
import dev.parallax.core.testkit.cluster.TextKv;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica whose real Chronicle log runs out of disk, or whose fsync fails, in a running
 * three-replica cluster: it reports the failure (gauge, ERROR line), stops voting (no Accept or
 * PrepareOk leaves it afterwards), and the other two keep serving clients without losing any
 * acknowledged write.
 */
class DiskFullReplicaTest {
    private static final String PADDING = "x".repeat(8000);

    @Test
    void aReplicaWhoseDiskFillsUpStopsVotingAndTheOthersServeEveryWrite(@TempDir Path dir) throws Exception {
        run(dir, DiskFaults::fillDisk, "disk full");
    }

    @Test
    void aReplicaWhoseFsyncFailsStopsVotingAndTheOthersServeEveryWrite(@TempDir Path dir) throws Exception {
        run(dir, DiskFaults::failForces, "EIO");
    }

    private static void run(Path dir, Consumer<DiskFaults> fault, String cause) throws Exception {
        int n = 3;
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(n));
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(n));
        PaxosConfig paxos = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
        List<Replica> replicas = new ArrayList<>();
        List<DiskFaults> disks = new ArrayList<>();
        List<CountingTransport<?>> transports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DiskFaults disk = new DiskFaults();
            disks.add(disk);
            MeterRegistry registry = new SimpleMeterRegistry();
            Path logDir = dir.resolve("replica-" + i).resolve("log");
            replicas.add(Replica.builder()
                    .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1).build())
                    .stateMachine(new TextKv()).meterRegistry(registry)
                    .ordering(faultyDisk(MultiPaxos.protocol(paxos), disk, logDir, transports)).build());
        }
        replicas.forEach(Replica::start);
        SmrClient client = SmrClient.connect(ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(500))
                .invokeTimeout(Duration.ofSeconds(10)).build());
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            Map<String, String> acknowledged = new LinkedHashMap<>();
            set(client, acknowledged, "k0", "before");
            int leader = replicas.get(0).leaderHint();
            int victim = (leader + 1) % n;
            CountingTransport<?> victimOut = transports.get(victim);
            assertThat(victimOut.firstVote.await(10, TimeUnit.SECONDS)).as("the victim votes while its disk is fine").isTrue();

            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            fault.accept(disks.get(victim));
            int i = 1;
            // Each write is acknowledged before the next; the victim fails once its log needs the disk.
            while (logFailed(replicas.get(victim)) == 0 && i < 2000) {
                set(client, acknowledged, "k" + i, i + PADDING);
                i++;
            }
            assertThat(logFailed(replicas.get(victim))).as("parallax.log.failed").isEqualTo(1.0);
            for (int j = 0; j < 50; j++, i++) {
                set(client, acknowledged, "k" + i, i + PADDING);
            }
            System.err.flush();
            System.setErr(stderr);

            String log = captured.toString(StandardCharsets.UTF_8);
            assertThat(log).contains("ERROR").contains("the durable log failed").contains(cause)
                    .contains("stops voting and proposing");
            assertThat(victimOut.votesAfterFailure.get()).as("Accept/PrepareOk sent by the victim after its log failed")
                    .isZero();
            for (int r = 0; r < n; r++) {
                if (r != victim) {
                    assertThat(logFailed(replicas.get(r))).as("replica " + r + "'s log").isZero();
                }
            }
            for (Map.Entry<String, String> e : acknowledged.entrySet()) {
                String read = text(client.invoke(cmd("GET " + e.getKey())).get(10, TimeUnit.SECONDS));
                assertThat(read).as("acknowledged write to " + e.getKey()).isEqualTo(e.getValue());
            }
        } finally {
            System.setErr(stderr);
            stderr.print(captured.toString(StandardCharsets.UTF_8));
            client.close();
            replicas.forEach(Replica::close);
        }
    }

    private static void set(SmrClient client, Map<String, String> acknowledged, String key, String value) throws Exception {
        client.invoke(cmd("SET " + key + " " + value)).get(10, TimeUnit.SECONDS);
        acknowledged.put(key, value);
    }

    private static double logFailed(Replica r) {
        return r.meterRegistry().find("parallax.log.failed").gauges().stream().mapToDouble(Gauge::value).max().orElse(-1);
    }

    /** Multi-Paxos with its log on a {@link DiskFaults} stack and its outbound messages counted. */
    private static OrderingProtocol faultyDisk(OrderingProtocol inner, DiskFaults disk, Path logDir,
                                               List<CountingTransport<?>> transports) {
        return ForwardingOrderingContext.around(inner, ctx -> new ForwardingOrderingContext(ctx) {
            @Override
            public <M> Transport<M> transport(String channel, MessageCodec<M> codec) {
                CountingTransport<M> t = new CountingTransport<>(ctx.transport(channel, codec), ctx.meterRegistry());
                synchronized (transports) {
                    while (transports.size() <= ctx.config().id()) {
                        transports.add(null);
                    }
                    transports.set(ctx.config().id(), t);
                }
                return t;
            }

            @Override
            public DurableLog durableLog(String name) {
                return disk.open(logDir, SyncPolicy.EVERY_BATCH);
            }
        });
    }

    /**
     * Counts the votes (Accept, PrepareOk) a replica sends, split by whether its log had already
     * failed ({@code parallax.log.failed} read at the moment of sending).
     */
    private static final class CountingTransport<M> implements Transport<M> {
        private final Transport<M> inner;
        private final MeterRegistry registry;
        final AtomicInteger votesBeforeFailure = new AtomicInteger();
        final AtomicInteger votesAfterFailure = new AtomicInteger();
        final CountDownLatch firstVote = new CountDownLatch(1);

        CountingTransport(Transport<M> inner, MeterRegistry registry) {
            this.inner = inner;
            this.registry = registry;
        }

        @Override
        public int localId() {
            return inner.localId();
        }

        @Override
        public void start(MessageHandler<M> handler) {
            inner.start(handler);
        }

        @Override
        public boolean send(int to, M message) {
            if (message instanceof PaxosMessage.Accept || message instanceof PaxosMessage.PrepareOk) {
                boolean failed = registry.find("parallax.log.failed").gauges().stream().anyMatch(g -> g.value() == 1.0);
                (failed ? votesAfterFailure : votesBeforeFailure).incrementAndGet();
                firstVote.countDown();
            }
            return inner.send(to, message);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
