package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.time.Clock;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The Batcher (seed 000 §V-C1): takes requests from the RequestQueue, closes batches by the
 * {@link BatchBuilder} policy (BSZ, timeout, or at once when the protocol is ready for a proposal)
 * and offers them to the ordering protocol. When the protocol refuses (its proposal queue is
 * full), the batch is held and no more requests are taken, so the RequestQueue fills and ClientIO
 * stops reading: back-pressure.
 *
 * <p>Runs on its own stage thread; never blocks.
 */
final class BatcherStage implements Stage {
    private static final int DRAIN_LIMIT = 1024;

    private final String name;
    private final BoundedQueue<Command> requests;
    private final BatchBuilder builder;
    private final AtomicBroadcast broadcast;
    private final Clock clock;
    private ByteBuffer held;

    BatcherStage(String name, BoundedQueue<Command> requests, BatchBuilder builder, AtomicBroadcast broadcast, Clock clock) {
        this.name = name;
        this.requests = requests;
        this.builder = builder;
        this.broadcast = broadcast;
        this.clock = clock;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<? extends BoundedQueue<?>> inputQueues() {
        return List.of(requests);
    }

    @Override
    public int doWork() {
        if (held != null) {
            if (!broadcast.propose(held)) {
                return 0;
            }
            held = null;
        }
        long now = clock.nanoTime();
        int work = 0;
        Command c;
        while (work < DRAIN_LIMIT && (c = requests.poll()) != null) {
            work++;
            ByteBuffer closed = builder.add(c, now);
            if (closed != null && !offer(closed)) {
                return work;
            }
        }
        ByteBuffer due = builder.poll(now, broadcast.readyForProposal());
        if (due != null) {
            offer(due);
            work++;
        }
        return work;
    }

    private boolean offer(ByteBuffer batch) {
        if (broadcast.propose(batch)) {
            return true;
        }
        held = batch;
        return false;
    }
}
