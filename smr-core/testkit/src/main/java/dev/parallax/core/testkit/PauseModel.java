package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * The pause half of a {@link Simulation}'s process-fault model: a paused node is up but frozen.
 * It gets no ticks; messages and datagrams arriving for it queue up in arrival order and are handed
 * to it, each as its own event, when it resumes; what it had sent that has not arrived yet is held
 * and sent again (with a fresh network delay) when it resumes. A crash ends a pause and loses both
 * queues ({@link NodeSlot#clearPause}).
 *
 * <p>Draws no random numbers itself (a held message's fresh delay is drawn by the network when it
 * is resent). Not thread-safe: only the simulation's single thread uses it.
 */
final class PauseModel<M> {
    private final NodeTable<M> nodes;
    private final EventLoop loop;
    private final SimulationStats stats;

    PauseModel(NodeTable<M> nodes, EventLoop loop, SimulationStats stats) {
        this.nodes = nodes;
        this.loop = loop;
        this.stats = stats;
    }

    /** @throws IllegalArgumentException if {@code duration} is not positive */
    void pause(int id, long duration) {
        if (duration <= 0) {
            throw new IllegalArgumentException("pause duration must be > 0: " + duration);
        }
        NodeSlot<M> s = nodes.slot(id);
        if (s.node == null || s.paused) {
            return;
        }
        s.paused = true;
        int epoch = ++s.pauseEpoch;
        stats.pauses++;
        loop.record("pause " + id + " for " + duration / 1_000_000 + " ms");
        loop.schedule(duration, "resume " + id, () -> {
            if (s.paused && s.pauseEpoch == epoch) {
                resume(id);
            }
        });
    }

    /** Ends node {@code id}'s pause now: its held messages leave, then its queued arrivals are handed over. */
    void resume(int id) {
        NodeSlot<M> s = nodes.slot(id);
        if (!s.paused) {
            return;
        }
        s.paused = false;
        loop.record("resume " + id + " (" + s.inbox.size() + " queued, " + s.outbox.size() + " held)");
        List<Runnable> held = new ArrayList<>(s.outbox);
        List<Runnable> queued = new ArrayList<>(s.inbox);
        s.outbox.clear();
        s.inbox.clear();
        held.forEach(Runnable::run);
        queued.forEach(Runnable::run);
    }

    /** Resumes every paused node, in id order. */
    void resumeAll() {
        for (NodeSlot<M> s : nodes.all()) {
            if (s.paused) {
                resume(s.id);
            }
        }
    }

    boolean isPaused(int id) {
        return nodes.slot(id).paused;
    }

    /**
     * Whether a pause takes over an arrival at {@code target}: a paused sender holds it ({@code resend}
     * runs when the sender resumes, sending it again with a fresh delay), else a paused target queues
     * it ({@code handOver} runs after the target resumes, if that incarnation is still up).
     */
    boolean pauseTakes(NodeSlot<M> sender, NodeSlot<M> target, int incarnation, Runnable resend, Runnable handOver) {
        if (sender.paused && sender != target) {
            stats.heldByPause++;
            sender.outbox.add(resend);
            return true;
        }
        if (target.paused) {
            stats.queuedByPause++;
            target.inbox.add(() -> handOverAfterPause(target, incarnation, handOver));
            return true;
        }
        return false;
    }

    /** Hands a queued arrival to {@code target} as the next event, unless it crashed (or paused again). */
    private void handOverAfterPause(NodeSlot<M> target, int incarnation, Runnable handOver) {
        loop.push(new SimEvent(loop.now()) {
            @Override
            String describe() {
                return null;
            }

            @Override
            void run() {
                if (target.node == null || target.incarnation != incarnation) {
                    stats.partitioned++;
                } else if (target.paused) {
                    target.inbox.add(() -> handOverAfterPause(target, incarnation, handOver));
                } else {
                    handOver.run();
                }
            }
        });
    }
}
