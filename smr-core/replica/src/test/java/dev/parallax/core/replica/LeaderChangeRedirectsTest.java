package dev.parallax.core.replica;

import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica that stops leading redirects each client connection once, to the new leader; nothing
 * while it leads, while no leader is known, or when it never led.
 */
class LeaderChangeRedirectsTest {
    private final AtomicInteger hint = new AtomicInteger(-1);
    private final LongAdder redirects = new LongAdder();
    private final LeaderChangeRedirects watch = new LeaderChangeRedirects(0, hint::get, redirects);

    private static int redirectedTo(EmbeddedChannel ch) {
        ch.runPendingTasks();
        ByteBuf frame = ch.readOutbound();
        if (frame == null) {
            return -1;
        }
        try {
            assertThat(frame.readInt()).as("the length prefix").isEqualTo(frame.readableBytes());
            int type = Frames.readType(frame);
            ClientWire.Reply r = ClientWire.readReply(type, frame);
            assertThat(r.status()).isEqualTo(ClientWire.REDIRECT);
            return r.leader();
        } finally {
            frame.release();
        }
    }

    @Test
    void aReplicaThatStopsLeadingRedirectsEveryClientConnectionOnceToTheNewLeader() {
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        watch.bound(a);
        watch.bound(b);

        hint.set(0);
        assertThat(watch.check()).as("leading").isEqualTo(-1);
        hint.set(-1);
        assertThat(watch.check()).as("no leader known yet").isEqualTo(-1);
        hint.set(2);
        assertThat(watch.check()).isEqualTo(2);
        assertThat(redirectedTo(a)).isEqualTo(2);
        assertThat(redirectedTo(b)).isEqualTo(2);
        assertThat(redirects.sum()).isEqualTo(2);

        assertThat(watch.check()).as("once per lost leadership").isEqualTo(-1);
        hint.set(1);
        assertThat(watch.check()).as("a follower seeing another leader change").isEqualTo(-1);
        assertThat(redirectedTo(a)).isEqualTo(-1);

        watch.closed(b);
        hint.set(0);
        watch.check();
        hint.set(1);
        assertThat(watch.check()).isEqualTo(1);
        assertThat(redirectedTo(a)).isEqualTo(1);
        assertThat(redirectedTo(b)).as("closed: forgotten").isEqualTo(-1);
    }

    @Test
    void aReplicaThatNeverLedOrServesEveryClientRedirectsNobody() {
        EmbeddedChannel a = new EmbeddedChannel();
        watch.bound(a);
        for (int h : new int[] {-1, 1, 2, -1, 1}) {
            hint.set(h);
            assertThat(watch.check()).isEqualTo(-1);
        }
        assertThat(redirectedTo(a)).isEqualTo(-1);
        assertThat(redirects.sum()).isZero();
    }
}
