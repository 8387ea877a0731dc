package dev.parallax.core.testkit.smr;

import dev.parallax.core.Command;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.testkit.NodeContext;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A simulated replica's client path where every replica proposes (S-Paxos, Ring Paxos): a client's
 * command is answered from the session cache, refused while {@value #MAX_PENDING_BATCHES} batches
 * wait for the core (back-pressure: the client times out and retries), or accepted and batched;
 * closed batches wait in order and go to the core while it takes them, each reported to the
 * {@link ProgressMonitor} as proposed. The order of every call (service, batcher, core, monitor)
 * is the one the replicas made themselves, so pinned seeds replay.
 *
 * <p>Threads: the simulation's thread only (a node's callbacks); never blocks.
 */
public final class ClientBatches {
    /** Closed batches that may wait for the core before clients are refused. */
    public static final int MAX_PENDING_BATCHES = 4;

    private final NodeContext<?> ctx;
    private final SimService service;
    private final ProgressMonitor progress;
    private final BatchBuilder batcher;
    private final BooleanSupplier canPropose;
    private final Predicate<ByteBuffer> propose;
    private final Runnable apply;
    private final ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();

    /**
     * @param ctx        the node (its id and virtual clock)
     * @param service    the replica's client sessions
     * @param progress   told of every batch the core took
     * @param batcher    the replica's batcher
     * @param canPropose whether the core takes proposals now (an eager poll of the batcher)
     * @param propose    hands a batch to the core; {@code false} when the core refuses it (back-pressure)
     * @param apply      applies the core's effects (after a refusal and after each batch taken)
     */
    public ClientBatches(NodeContext<?> ctx, SimService service, ProgressMonitor progress, BatchBuilder batcher,
                         BooleanSupplier canPropose, Predicate<ByteBuffer> propose, Runnable apply) {
        this.ctx = Objects.requireNonNull(ctx);
        this.service = Objects.requireNonNull(service);
        this.progress = Objects.requireNonNull(progress);
        this.batcher = Objects.requireNonNull(batcher);
        this.canPropose = Objects.requireNonNull(canPropose);
        this.propose = Objects.requireNonNull(propose);
        this.apply = Objects.requireNonNull(apply);
    }

    /** A client's command (see the class comment), then {@link #proposePending()}. */
    public void onRequest(int client, Command c) {
        if (service.answeredFromCache(client, c)) {
            return;
        }
        if (pending.size() >= MAX_PENDING_BATCHES) {
            return; // back-pressure: the client times out and retries
        }
        service.accept(client, c);
        ByteBuffer batch = batcher.add(c, ctx.now());
        if (batch == null) {
            batch = batcher.poll(ctx.now(), canPropose.getAsBoolean() && pending.isEmpty());
        }
        if (batch != null) {
            pending.add(batch);
        }
        proposePending();
    }

    /** A tick: a batch the batcher closes now (its timeout, or eagerly while nothing waits), then {@link #proposePending()}. */
    public void onTick() {
        ByteBuffer batch = batcher.poll(ctx.now(), canPropose.getAsBoolean() && pending.isEmpty());
        if (batch != null) {
            pending.add(batch);
        }
        proposePending();
    }

    /** Hands the waiting batches to the core in order until it refuses one. */
    public void proposePending() {
        while (!pending.isEmpty()) {
            ByteBuffer b = pending.peek();
            if (!propose.test(b)) {
                apply.run();
                return; // the core's own bound: back-pressure
            }
            progress.proposed(ctx.id(), b, ctx.now());
            pending.poll();
            apply.run();
        }
    }
}
