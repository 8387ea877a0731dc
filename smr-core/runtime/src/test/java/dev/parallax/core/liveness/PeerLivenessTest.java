package dev.parallax.core.liveness;

import dev.parallax.core.spi.MessageHandler;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PeerLivenessTest {
    private final AtomicLong time = new AtomicLong(1_000);
    private final PeerLiveness liveness = new PeerLiveness(3, time::get);

    @Test
    void aPeerNeverHeardFromCountsAsHeardAtCreation() {
        time.set(5_000);
        assertThat(liveness.lastHeard(0)).isEqualTo(1_000);
        assertThat(liveness.lastHeard(2)).isEqualTo(1_000);
        assertThat(liveness.peers()).isEqualTo(3);
    }

    @Test
    void eachFrameStampsOnlyItsSenderWithTheClock() {
        time.set(2_000);
        liveness.heard(1);
        time.set(3_000);
        liveness.heard(2);
        assertThat(liveness.lastHeard(0)).isEqualTo(1_000);
        assertThat(liveness.lastHeard(1)).isEqualTo(2_000);
        assertThat(liveness.lastHeard(2)).isEqualTo(3_000);
    }

    @Test
    void anUnknownPeerIsCountedAndIgnoredWithoutThrowing() {
        liveness.heard(-1);
        liveness.heard(3);
        assertThat(liveness.unknownPeers()).isEqualTo(2);
        assertThat(liveness.lastHeard(0)).isEqualTo(1_000);
        assertThatThrownBy(() -> liveness.lastHeard(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new PeerLiveness(0, time::get)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTransportDefaultStampsBeforeTheMessageIsHandedOn() {
        List<Long> seenAtDelivery = new ArrayList<>();
        MessageHandler<String> next = (from, m) -> seenAtDelivery.add(liveness.lastHeard(from));
        List<MessageHandler<String>> installed = new ArrayList<>();
        dev.parallax.core.spi.Transport<String> transport = new dev.parallax.core.spi.Transport<>() {
            @Override
            public int localId() {
                return 0;
            }

            @Override
            public void start(MessageHandler<String> handler) {
                installed.add(handler);
            }

            @Override
            public boolean send(int to, String message) {
                return true;
            }

            @Override
            public void close() {
            }
        };
        transport.start(next, liveness);
        time.set(7_000);
        installed.get(0).onMessage(2, "hello");
        assertThat(seenAtDelivery).containsExactly(7_000L);
        assertThat(liveness.lastHeard(2)).isEqualTo(7_000);
    }

    @Test
    void stampsFromOtherThreadsAreVisibleAfterTheyFinish() throws InterruptedException {
        PeerLiveness shared = new PeerLiveness(2, System::nanoTime);
        long before = System.nanoTime();
        Thread a = new Thread(() -> {
            for (int i = 0; i < 10_000; i++) {
                shared.heard(0);
            }
        });
        Thread b = new Thread(() -> {
            for (int i = 0; i < 10_000; i++) {
                shared.heard(1);
            }
        });
        a.start();
        b.start();
        a.join();
        b.join();
        assertThat(shared.lastHeard(0)).isGreaterThanOrEqualTo(before);
        assertThat(shared.lastHeard(1)).isGreaterThanOrEqualTo(before);
        assertThat(shared.unknownPeers()).isZero();
    }
}
