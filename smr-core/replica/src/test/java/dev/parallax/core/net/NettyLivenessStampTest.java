package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.liveness.PeerLiveness;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The Netty transport stamps the sender's liveness on its IO thread for every frame, hello included. */
class NettyLivenessStampTest {

    @Test
    void everyFrameFromAPeerIsStampedBeforeItsMessageIsHandedOn() throws InterruptedException {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
        AtomicLong reads = new AtomicLong(); // a clock that ticks once per reading: stamps count frames
        PeerLiveness liveness = new PeerLiveness(3, reads::incrementAndGet);
        long created = liveness.lastHeard(1);
        AtomicLong stampAtDelivery = new AtomicLong();
        CountDownLatch delivered = new CountDownLatch(1);
        NettyReplicaTransport<String> receiver = transport(members, 0);
        NettyReplicaTransport<String> sender = transport(members, 1);
        try {
            receiver.start((from, m) -> {
                if (from == 1 && delivered.getCount() > 0) {
                    stampAtDelivery.set(liveness.lastHeard(1));
                    delivered.countDown();
                }
            }, liveness);
            sender.start((from, m) -> { });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            // Real sockets: messages sent before the connection is up are dropped, so resend until one lands.
            while (!delivered.await(20, TimeUnit.MILLISECONDS)) {
                assertThat(System.nanoTime()).as("no delivery within 20 s").isLessThan(deadline);
                sender.send(0, "ping");
            }
        } finally {
            sender.close();
            receiver.close();
        }
        // The hello frame and the message's own frame were both stamped before the handler ran.
        assertThat(stampAtDelivery.get()).isGreaterThanOrEqualTo(created + 2);
        assertThat(liveness.lastHeard(2)).isEqualTo(created);
        assertThat(liveness.unknownPeers()).isZero();
    }

    private static NettyReplicaTransport<String> transport(ClusterMembers members, int id) {
        return new NettyReplicaTransport<>(ReplicaConfig.builder().id(id).members(members).build(),
                TextCodec.INSTANCE, new SimpleMeterRegistry(), WaitStrategies.yieldPark(),
                SystemClock.INSTANCE);
    }
}
