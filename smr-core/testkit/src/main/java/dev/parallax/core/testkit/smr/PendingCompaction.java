package dev.parallax.core.testkit.smr;

import dev.parallax.core.spi.DurableLog;

import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * A log compaction a simulated replica's delivery asked for (after a snapshot), run later and
 * never inside an effect apply: remember the log's end, let the core compact below the instance and
 * apply its effects, then truncate the log before that end and sync — the runtime's order
 * ({@code ProtocolRuntime.compact}), shared by the Multi-Paxos, S-Paxos and Ring Paxos sim replicas.
 *
 * <p>Threads: the simulation's thread only; never blocks.
 */
public final class PendingCompaction {
    private long instance = -1;

    /** Asks for a compaction below {@code instance} (replacing one not yet run). */
    public void request(long instance) {
        this.instance = instance;
    }

    /**
     * Runs the compaction asked for, if any, once.
     *
     * @param log     the replica's log
     * @param compact the core's compaction below the instance, into the replica's effect buffer
     * @param apply   applies the effects the compaction produced
     */
    public void runIfAsked(DurableLog log, LongConsumer compact, Runnable apply) {
        Objects.requireNonNull(log);
        if (instance < 0) {
            return;
        }
        long below = instance;
        instance = -1;
        long cut = log.nextIndex();
        compact.accept(below);
        apply.run();
        log.truncateBefore(cut);
        log.sync();
    }
}
