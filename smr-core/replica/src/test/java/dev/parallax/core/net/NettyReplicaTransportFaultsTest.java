package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.wire.Frames;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replica transport under link faults: reconnection with exponential back-off, a full send
 * queue, and a peer that sends half a frame and goes silent.
 */
class NettyReplicaTransportFaultsTest {
    private ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private NettyReplicaTransport<String> transport(int id, SimpleMeterRegistry registry, ReplicaConfig.Builder config) {
        NettyReplicaTransport<String> t = new NettyReplicaTransport<>(config.id(id).members(members).build(),
                TextCodec.INSTANCE, registry, WaitStrategies.yieldPark(), SystemClock.INSTANCE);
        open.add(t);
        return t;
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.find(name).tag("kind", "replica").counter().count();
    }

    /** Waits for a condition brought about by sockets and other threads, with a deadline. */
    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    void aPeerThatIsDownIsRetriedWithGrowingBackOffAndReachedWhenItComesUp() throws Exception {
        members = ClusterMembers.parse(LocalPorts.endpoints(2)); // one peer: its attempts alone are counted
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        NettyReplicaTransport<String> a = transport(0, registry, ReplicaConfig.builder());
        a.start((from, m) -> { });
        assertThat(a.send(1, "lost")).as("queued, then dropped: the link is down").isTrue();
        awaitTrue("a first failed attempt", () -> count(registry, "parallax.net.connect.failures") >= 1);
        long first = System.nanoTime();
        awaitTrue("five failed attempts", () -> count(registry, "parallax.net.connect.failures") >= 5);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - first);
        // Back-off 10, 20, 40, 80 ms between attempts 1..5: 150 ms (less the polling slack).
        assertThat(elapsedMillis).isGreaterThanOrEqualTo(120);
        awaitTrue("the message dropped", () -> count(registry, "parallax.net.dropped") >= 1);

        CountDownLatch arrived = new CountDownLatch(1);
        NettyReplicaTransport<String> b = transport(1, new SimpleMeterRegistry(), ReplicaConfig.builder());
        b.start((from, m) -> {
            if (from == 0 && m.equals("after")) {
                arrived.countDown();
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!arrived.await(20, TimeUnit.MILLISECONDS)) {
            assertThat(System.nanoTime() - deadline).as("reconnected").isNegative();
            a.send(1, "after"); // lost until the connection is up: the transport may drop while down
        }
        assertThat(arrived.getCount()).isZero();
    }

    @Test
    void aFullSendQueueRefusesAndCountsTheMessage() throws Exception {
        members = ClusterMembers.parse(LocalPorts.endpoints(2));
        CountDownLatch linked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        NettyReplicaTransport<String> b = transport(1, new SimpleMeterRegistry(), ReplicaConfig.builder());
        // A peer whose IO thread is stuck in its handler: it stops reading and TCP fills up.
        b.start((from, m) -> {
            linked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        NettyReplicaTransport<String> a = transport(0, registry, ReplicaConfig.builder().sendQueueCapacity(8));
        a.start((from, m) -> { });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!linked.await(5, TimeUnit.MILLISECONDS)) {
                assertThat(System.nanoTime() - deadline).as("linked").isNegative();
                a.send(1, "hello");
            }
            double droppedBefore = count(registry, "parallax.net.dropped");
            String big = "x".repeat(64 << 10);
            int refused = 0;
            while (refused == 0) {
                assertThat(System.nanoTime() - deadline).as("the send queue filled up").isNegative();
                if (!a.send(1, big)) {
                    refused++;
                }
            }
            // The link is up: the only drop is the refused message.
            assertThat(count(registry, "parallax.net.dropped") - droppedBefore).isEqualTo(refused);
        } finally {
            release.countDown();
        }
    }

    @Test
    void aHalfSentFrameClosesItsConnectionAfterTheTimeoutWhileAnIdlePeerStaysConnected() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch fromIdle = new CountDownLatch(1);
        long timeoutMillis = 300;
        NettyReplicaTransport<String> a = transport(0, registry,
                ReplicaConfig.builder().partialFrameTimeout(Duration.ofMillis(timeoutMillis)));
        a.start((from, m) -> {
            if (from == 2 && m.equals("still here")) {
                fromIdle.countDown();
            }
        });
        Member self = members.member(0);
        try (Socket idle = new Socket(self.host(), self.port()); Socket half = new Socket(self.host(), self.port())) {
            half.setSoTimeout(20_000);
            idle.getOutputStream().write(hello(2));
            long start = System.nanoTime();
            byte[] frame = message("never finished");
            ByteArrayOutputStream partial = new ByteArrayOutputStream();
            partial.write(hello(1));
            partial.write(frame, 0, frame.length - 4);
            half.getOutputStream().write(partial.toByteArray());
            assertThat(half.getInputStream().read()).as("closed by the replica").isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(timeoutMillis - 50);
            assertThat(count(registry, "parallax.net.stale.partial.frames")).isEqualTo(1.0);

            idle.getOutputStream().write(message("still here"));
            assertThat(fromIdle.await(20, TimeUnit.SECONDS)).as("the idle connection still delivers").isTrue();
        }
        assertThat(count(registry, "parallax.net.bad.frames")).isZero();
    }

    private byte[] hello(int id) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(11);
        d.writeByte(Frames.VERSION);
        d.writeByte(NettyReplicaTransport.HELLO);
        d.writeByte(0); // control channel
        d.writeInt(id);
        d.writeInt(members.size());
        // announce channel 1 = the transport's channel
        byte[] name = NettyReplicaTransport.CHANNEL.getBytes(StandardCharsets.UTF_8);
        d.writeInt(2 + 2 + 4 + name.length);
        d.writeByte(Frames.VERSION);
        d.writeByte(1); // ANNOUNCE
        d.writeByte(0);
        d.writeByte(1);
        d.writeInt(name.length);
        d.write(name);
        return b.toByteArray();
    }

    private static byte[] message(String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(2 + 1 + 4 + body.length);
        d.writeByte(Frames.VERSION);
        d.writeByte(1);
        d.writeByte(1); // channel 1
        d.writeInt(body.length);
        d.write(body);
        return b.toByteArray();
    }
}
