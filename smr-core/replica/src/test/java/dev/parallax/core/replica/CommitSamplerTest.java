package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commit latency sampler: one batch in flight at a time, recognised on delivery by its bytes
 * (a copy, as a peer's delivery is), other batches of the same length ignored, a refused proposal
 * dropped, a lost sample replaced once old; the delivery wrapper passes everything on.
 */
class CommitSamplerTest {
    private long now = 1_000;
    private final Clock clock = () -> now;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CommitSampler sampler = new CommitSampler(registry, 0, "test", clock);

    private Timer timer() {
        return registry.get("parallax.replica.commit.latency").tag("ordering", "test").timer();
    }

    private static ByteBuffer batch(long client, long sequence) {
        return CommandBatch.encode(List.of(new Command(new CommandId(client, sequence), ByteBuffer.wrap(new byte[40]))));
    }

    private static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining()).put(b.duplicate());
        return c.flip();
    }

    @Test
    void theSampledBatchIsTimedFromProposalToDelivery() {
        ByteBuffer sampled = batch(7, 1);
        sampler.proposing(sampled, now);
        now += 2_000_000;
        sampler.proposing(batch(7, 2), now); // a sample is in flight: not sampled
        sampler.delivered(batch(8, 1)); // same length, another client: not the sample
        assertThat(timer().count()).isZero();
        now += 1_000_000;
        sampler.delivered(copy(sampled));
        assertThat(timer().count()).isEqualTo(1);
        assertThat(timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3.0);
        sampler.delivered(copy(sampled));
        assertThat(timer().count()).as("a sample is recorded once").isEqualTo(1);
        ByteBuffer next = batch(7, 3);
        sampler.proposing(next, now);
        now += 500_000;
        sampler.delivered(copy(next));
        assertThat(timer().count()).as("the next proposal is sampled once the last one was delivered").isEqualTo(2);
    }

    @Test
    void aRefusedProposalIsNoSampleAndALostOneIsReplacedOnceOld() {
        ByteBuffer refused = batch(1, 1);
        sampler.proposing(refused, now);
        sampler.refused(refused);
        ByteBuffer lost = batch(1, 2);
        sampler.proposing(lost, now);
        now += CommitSampler.MAX_AGE_NANOS - 1;
        ByteBuffer tooSoon = batch(1, 3);
        sampler.proposing(tooSoon, now);
        sampler.delivered(copy(tooSoon));
        assertThat(timer().count()).as("the lost sample still held the place").isZero();
        now += 1;
        ByteBuffer replacing = batch(1, 4);
        sampler.proposing(replacing, now);
        now += 1_000;
        sampler.delivered(copy(replacing));
        assertThat(timer().count()).isEqualTo(1);
        assertThat(timer().totalTime(TimeUnit.NANOSECONDS)).isEqualTo(1_000);
    }

    @Test
    void theDeliveryWrapperPassesEveryCallOn() throws InterruptedException {
        List<String> calls = new ArrayList<>();
        DeliveryListener inner = new DeliveryListener() {
            @Override
            public void deliver(long sequence, ByteBuffer value) {
                calls.add("deliver " + sequence + " " + value.remaining());
            }

            @Override
            public void skipped(long sequence) {
                calls.add("skipped " + sequence);
            }

            @Override
            public void tentative(long sequence, ByteBuffer value) {
                calls.add("tentative " + sequence);
            }

            @Override
            public void revoked(long fromSequence) {
                calls.add("revoked " + fromSequence);
            }
        };
        ByteBuffer b = batch(3, 1);
        sampler.proposing(b, now);
        DeliveryListener wrapped = sampler.around(inner);
        wrapped.tentative(0, b);
        wrapped.revoked(0);
        wrapped.deliver(0, copy(b));
        wrapped.skipped(1);
        assertThat(calls).containsExactly("tentative 0", "revoked 0", "deliver 0 " + b.remaining(), "skipped 1");
        assertThat(timer().count()).isEqualTo(1);
        List<Long> worker = new ArrayList<>();
        sampler.around((w, s, g, v) -> worker.add(s)).deliver(2, 5, dev.parallax.core.GroupSet.DEFAULT, b);
        assertThat(worker).containsExactly(5L);
    }
}
