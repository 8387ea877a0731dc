package dev.parallax.core.multicast;

import dev.parallax.core.exec.Joins;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A subscription opened before the streams start ({@code Builder.initialSubscription}) sees a
 * stream's log replay whole, however long; one opened after {@code build()} may find the bounded
 * history already past it. The case of a restarted replica on {@code ordering=multi-ring}: its
 * rings replay their logs the moment they start, and its merge position comes from its snapshot.
 */
class InitialSubscriptionTest {
    private static final int RETENTION = 4;
    private static final int REPLAYED = 20;
    private final List<StreamMulticast> created = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(StreamMulticast::close);
    }

    /** A one-process stream whose start replays {@code REPLAYED} decided messages on a thread of its own. */
    private static final class ReplayingBroadcast implements AtomicBroadcast {
        private Thread thread;

        @Override
        public void start(DeliveryListener listener) {
            thread = new Thread(() -> {
                try {
                    for (int i = 0; i < REPLAYED; i++) {
                        listener.deliver(i, Envelope.encodeMessage(0, 1L + i, GroupSet.of(0).bits(),
                                ByteBuffer.wrap(("m" + i).getBytes(StandardCharsets.UTF_8))));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "replay");
            thread.setDaemon(true);
            thread.start();
        }

        void awaitReplayed() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }

        @Override
        public boolean propose(ByteBuffer value) {
            return false;
        }

        @Override
        public int redirectHint() {
            return 0;
        }

        @Override
        public void close() {
            if (thread != null) {
                thread.interrupt();
                Joins.joinUninterruptibly(thread);
            }
        }
    }

    private StreamMulticastBuilder builder(ReplayingBroadcast stream) {
        return StreamMulticast.builder().self(0).members(1).groups(GroupSet.of(0)).routing(Routing.LOCAL)
                .skips(SkipPolicy.NONE).numbering(Numbering.LOGICAL).retention(RETENTION).streams(s -> stream);
    }

    @Test
    @DisplayName("a subscription opened before the streams start delivers a replay longer than the retained history, in order")
    void theInitialSubscriptionSeesTheWholeReplay() throws InterruptedException {
        List<String> got = new ArrayList<>();
        CountDownLatch all = new CountDownLatch(REPLAYED);
        ReplayingBroadcast stream = new ReplayingBroadcast();
        StreamMulticast m = builder(stream).initialSubscription(GroupSet.of(0), MulticastPosition.START, (g, msg, after) -> {
            byte[] b = new byte[msg.remaining()];
            msg.get(b);
            synchronized (got) {
                got.add(new String(b, StandardCharsets.UTF_8));
            }
            all.countDown();
        }).build();
        created.add(m);
        Subscription initial = m.initialSubscription();
        assertThat(initial).isNotNull();
        assertThat(initial.groups()).isEqualTo(GroupSet.of(0));
        assertThat(all.await(30, TimeUnit.SECONDS)).as("every replayed message delivered").isTrue();
        synchronized (got) {
            assertThat(got).hasSize(REPLAYED).first().isEqualTo("m0");
            assertThat(got).last().isEqualTo("m" + (REPLAYED - 1));
        }
    }

    @Test
    @DisplayName("negative control: subscribing from the start after build() finds the replay past the retained history")
    void aSubscriptionAfterBuildMayFindTheHistoryPastIt() throws InterruptedException {
        ReplayingBroadcast stream = new ReplayingBroadcast();
        StreamMulticast m = builder(stream).build();
        created.add(m);
        assertThat(m.initialSubscription()).isNull();
        stream.awaitReplayed();
        assertThatThrownBy(() -> m.subscribe(GroupSet.of(0), MulticastPosition.START, (g, msg, after) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
