package dev.parallax.paxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.protocol.SafetyAlarm;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.replica.SafetyAlarmException;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.core.time.Clock;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.Value;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running three-replica Multi-Paxos cluster where one replica hears, from a peer's channel, a
 * catch-up reply naming another value for an instance it decided: its learner reports the
 * conflict, and the replica raises the safety alarm ({@code parallax.safety.alarms}, an ERROR line
 * naming both origins) and stops serving — it closes itself ({@link Replica#failStopped()} with a
 * {@link SafetyAlarmException}, client port closed) rather than diverge; the other two go on
 * serving every write.
 */
class SafetyAlarmReplicaTest {
    private static final int N = 3;

    @Test
    void aReplicaThatHearsTwoDecisionsForOneInstanceStopsServingAndCountsTheAlarm() throws Exception {
        AtomicReferenceArray<MessageHandler<PaxosMessage>> inbound = new AtomicReferenceArray<>(N);
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (LocalCluster cluster = new LocalCluster(N, n -> new Injectable(PaxosClusters.multiPaxos(n), inbound))) {
            SmrClient client = cluster.client();
            text(client.invoke(cmd("SET k0 before")).get(10, TimeUnit.SECONDS));
            int leader = PaxosClusters.leader(cluster);
            int victim = (leader + 1) % N;
            int other = (leader + 2) % N;
            Replica r = cluster.replicas.get(victim);
            Await.until("the victim decided instance 0", Duration.ofSeconds(10), () -> decided(r) >= 1);
            assertThat(alarms(r)).isZero();

            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            inbound.get(victim).onMessage(other, new PaxosMessage.CatchUpReply(0, 0,
                    List.of(new PaxosMessage.Decided(0, Value.of("SET forged yes".getBytes(StandardCharsets.UTF_8))))));

            Throwable why = r.failStopped().get(10, TimeUnit.SECONDS);
            System.err.flush();
            System.setErr(stderr);
            assertThat(why).isInstanceOf(SafetyAlarmException.class)
                    .hasMessageContaining("two different decisions for instance 0")
                    .hasMessageContaining("from member " + other + " (CatchUpReply");
            assertThat(((SafetyAlarmException) why).violation().instance()).isZero();
            assertThat(r.failure()).containsSame(why);
            assertThat(alarms(r)).isEqualTo(1.0);
            String log = captured.toString(StandardCharsets.UTF_8);
            assertThat(log).contains("ERROR").contains("SAFETY ALARM").contains("member " + other + " (CatchUpReply")
                    .contains("stops serving");
            assertThat(refusesConnections(cluster.clients.member(victim).port())).as("the victim's client port").isTrue();

            // The healthy majority keeps serving.
            text(client.invoke(cmd("SET k1 after")).get(10, TimeUnit.SECONDS));
            assertThat(text(client.invoke(cmd("GET k0")).get(10, TimeUnit.SECONDS))).isEqualTo("before");
            assertThat(text(client.invoke(cmd("GET k1")).get(10, TimeUnit.SECONDS))).isEqualTo("after");
            assertThat(alarms(cluster.replicas.get(leader))).isZero();
            assertThat(alarms(cluster.replicas.get(other))).isZero();
        } finally {
            System.setErr(stderr);
            stderr.print(captured.toString(StandardCharsets.UTF_8));
        }
    }

    private static boolean refusesConnections(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return false;
        } catch (IOException refused) {
            return true;
        }
    }

    private static double decided(Replica r) {
        return r.meterRegistry().find("parallax.protocol.decided").functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }

    private static double alarms(Replica r) {
        return r.meterRegistry().find("parallax.safety.alarms").functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }

    /** Multi-Paxos whose replica channel's inbound handler is kept, per replica, for the test to inject into. */
    private record Injectable(OrderingProtocol inner, AtomicReferenceArray<MessageHandler<PaxosMessage>> inbound)
            implements OrderingProtocol {
        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public int batchBytes() {
            return inner.batchBytes();
        }

        @Override
        public long batchTimeoutNanos() {
            return inner.batchTimeoutNanos();
        }

        @Override
        public AtomicBroadcast create(OrderingContext ctx) {
            return inner.create(new OrderingContext() {
                @Override
                public ReplicaConfig config() {
                    return ctx.config();
                }

                @Override
                @SuppressWarnings("unchecked")
                public <M> Transport<M> transport(String channel, MessageCodec<M> codec) {
                    Transport<M> t = ctx.transport(channel, codec);
                    return new Transport<>() {
                        @Override
                        public int localId() {
                            return t.localId();
                        }

                        @Override
                        public void start(MessageHandler<M> handler) {
                            inbound.set(ctx.config().id(), (MessageHandler<PaxosMessage>) handler);
                            t.start(handler);
                        }

                        @Override
                        public void start(MessageHandler<M> handler, dev.parallax.core.spi.ArrivalStamps stamps) {
                            inbound.set(ctx.config().id(), (MessageHandler<PaxosMessage>) handler);
                            t.start(handler, stamps);
                        }

                        @Override
                        public boolean send(int to, M message) {
                            return t.send(to, message);
                        }

                        @Override
                        public void close() {
                            t.close();
                        }
                    };
                }

                @Override
                public DurableLog durableLog(String name) {
                    return ctx.durableLog(name);
                }

                @Override
                public Clock clock() {
                    return ctx.clock();
                }

                @Override
                public MeterRegistry meterRegistry() {
                    return ctx.meterRegistry();
                }

                @Override
                public SnapshotRequester snapshotRequester() {
                    return ctx.snapshotRequester();
                }

                @Override
                public StageThreads stageThreads() {
                    return ctx.stageThreads();
                }

                @Override
                public SafetyAlarm safetyAlarm() {
                    return ctx.safetyAlarm();
                }
            });
        }
    }
}
