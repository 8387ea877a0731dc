package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.spi.Proposer;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.time.Clock;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * The Batcher (seed 000 §V-C1): takes requests from the RequestQueue, closes batches by the
 * {@link BatchBuilder} policy (BSZ, timeout, or at once when the protocol is ready for a proposal)
 * and offers them to the ordering protocol. When the protocol refuses (its proposal queue is
 * full), the batch is held and no more requests are taken, so the RequestQueue fills and ClientIO
 * stops reading: back-pressure.
 *
 * <p><b>Lanes.</b> A broadcast with several {@link Proposer#lanes() lanes} (Multi-Ring
 * Paxos: one per ring) gets one batch builder per lane; a command goes to the lane
 * {@link Proposer#laneOf} names for its group set, and a batch is proposed into its lane. A
 * refused lane holds its batch; while any lane holds one no request is taken (a taken request might
 * be for that lane), but the other lanes' open batches still close by time-out or eagerness. With
 * one lane this is exactly the single-builder batcher.
 *
 * <p>Runs on its own stage thread; never blocks.
 */
final class BatcherStage implements Stage {
    private static final int DRAIN_LIMIT = 1024;

    private final String name;
    private final BoundedQueue<Command> requests;
    private final BatchBuilder[] builders;
    private final ByteBuffer[] held;
    private final Proposer broadcast;
    private final Clock clock;
    /** Samples the commit latency of proposed batches; null: not measured. */
    private final CommitSampler commits;
    private int heldLanes;

    /**
     * @param newBuilder the batch builder of each lane, called once per lane with the lane number
     * @throws IllegalArgumentException if the broadcast reports fewer than one lane
     */
    BatcherStage(String name, BoundedQueue<Command> requests, IntFunction<BatchBuilder> newBuilder, Proposer broadcast,
                 Clock clock) {
        this(name, requests, newBuilder, broadcast, clock, null);
    }

    /** As above, with proposals sampled by {@code commits} (null: none). */
    BatcherStage(String name, BoundedQueue<Command> requests, IntFunction<BatchBuilder> newBuilder, Proposer broadcast,
                 Clock clock, CommitSampler commits) {
        this.commits = commits;
        this.name = name;
        this.requests = requests;
        this.broadcast = broadcast;
        this.clock = clock;
        int lanes = broadcast.lanes();
        if (lanes < 1) {
            throw new IllegalArgumentException("the broadcast reports " + lanes + " lanes; at least 1 is needed");
        }
        this.builders = new BatchBuilder[lanes];
        for (int lane = 0; lane < lanes; lane++) {
            builders[lane] = Objects.requireNonNull(newBuilder.apply(lane), "batch builder");
        }
        this.held = new ByteBuffer[lanes];
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
        int work = heldLanes > 0 ? retryHeld() : 0;
        long now = clock.nanoTime();
        Command c;
        while (heldLanes == 0 && work < DRAIN_LIMIT && (c = requests.poll()) != null) {
            work++;
            int lane = laneOf(c);
            ByteBuffer closed = builders[lane].add(c, now);
            if (closed != null) {
                offer(lane, closed, now);
            }
        }
        for (int lane = 0; lane < builders.length; lane++) {
            if (held[lane] != null) {
                continue;
            }
            ByteBuffer due = builders[lane].poll(now, broadcast.readyForProposal(lane));
            if (due != null) {
                offer(lane, due, now);
                work++;
            }
        }
        return work;
    }

    /** Lanes holding a batch or with an open one (for tests). */
    int pendingLanes() {
        int n = 0;
        for (int lane = 0; lane < builders.length; lane++) {
            n += held[lane] != null || builders[lane].pending() > 0 ? 1 : 0;
        }
        return n;
    }

    private int laneOf(Command c) {
        int lane = broadcast.laneOf(c.groups());
        if (lane < 0 || lane >= builders.length) {
            throw new IllegalStateException("the broadcast put group set " + c.groups() + " in lane " + lane + " of "
                    + builders.length);
        }
        return lane;
    }

    private int retryHeld() {
        int work = 0;
        for (int lane = 0; lane < held.length; lane++) {
            if (held[lane] != null && broadcast.propose(lane, held[lane])) {
                held[lane] = null;
                heldLanes--;
                work++;
            }
        }
        return work;
    }

    private void offer(int lane, ByteBuffer batch, long now) {
        if (commits != null) {
            commits.proposing(batch, now);
        }
        if (!broadcast.propose(lane, batch)) {
            if (commits != null) {
                commits.refused(batch);
            }
            held[lane] = batch;
            heldLanes++;
        }
    }
}
