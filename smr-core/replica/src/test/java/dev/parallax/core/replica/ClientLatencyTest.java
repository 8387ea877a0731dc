package dev.parallax.core.replica;

import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client latency: a reply is timed from its request's read on the same connection, matched by
 * stream and sequence; a reply without a kept read (another stream, another connection, a
 * request pushed out of the ring by deeper pipelining, a second reply) records nothing.
 */
class ClientLatencyTest {
    private long now = 5_000;
    private final Clock clock = () -> now;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ClientLatency latency = new ClientLatency(registry, 1, clock, 1);

    private Timer timer() {
        return registry.get("parallax.client.command.latency").tag("kind", "command").timer();
    }

    @Test
    void aReplyIsTimedFromItsRequestsReadOnTheSameConnection() {
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        latency.received(a, 1L, 10);
        latency.received(a, 2L, 11);
        now += 4_000;
        latency.replied(b, 1L, 10, now);
        latency.replied(a, 4L, 10, now);
        assertThat(timer().count()).as("another connection, another stream").isZero();
        latency.replied(a, 1L, 10, now);
        latency.replied(a, 1L, 10, now);
        assertThat(timer().count()).as("timed once").isEqualTo(1);
        assertThat(timer().totalTime(TimeUnit.NANOSECONDS)).isEqualTo(4_000);
        latency.replied(a, 2L, 11, now + 1_000);
        assertThat(timer().count()).isEqualTo(2);
    }

    @Test
    void aPipelineDeeperThanTheRingHasOnlyItsLatestRequestsTimed() {
        EmbeddedChannel a = new EmbeddedChannel();
        for (long s = 0; s < ClientLatency.SLOTS + 1; s++) {
            latency.received(a, 1L, s);
        }
        for (long s = 0; s < ClientLatency.SLOTS + 1; s++) {
            latency.replied(a, 1L, s, now);
        }
        assertThat(timer().count()).as("request 0's slot was taken by request " + ClientLatency.SLOTS)
                .isEqualTo(ClientLatency.SLOTS);
    }

    @Test
    void byDefaultOneRequestInEightIsTimed() {
        SimpleMeterRegistry own = new SimpleMeterRegistry();
        ClientLatency inOwn = new ClientLatency(own, 2, clock);
        EmbeddedChannel a = new EmbeddedChannel();
        for (long s = 0; s < 100; s++) {
            inOwn.received(a, 1L, s);
        }
        for (long s = 0; s < 100; s++) {
            inOwn.replied(a, 1L, s, now);
        }
        assertThat(own.get("parallax.client.command.latency").tag("kind", "command").timer().count())
                .as("sequences 0, 8, ..., 96").isEqualTo(13);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ClientLatency(own, 3, clock, 6))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
