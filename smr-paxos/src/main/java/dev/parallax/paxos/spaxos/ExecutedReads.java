package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.List;

/**
 * S-Paxos' reads (read-index over the ordering layer, {@code ReadRounds} of Multi-Paxos): the
 * ordering core confirms a read at an ordering instance {@code p}; S-Paxos answers it once its
 * execution passed {@code p} (every instance below it executed or skipped, bodies fetched), with
 * the position its delivery reaches then: one past the last decision it handed out. An instance
 * that executes nothing (no new id) emits no decision, so the ordering instance itself is not a
 * delivery position.
 *
 * <p>Not thread-safe; owned by {@link SPaxosCore}.
 */
final class ExecutedReads {
    private record Pending(long read, long orderingPoint) {
    }

    private final List<Pending> pending = new ArrayList<>();

    /** The ordering core confirmed read {@code read} at ordering instance {@code point}. */
    void confirmed(long read, long point) {
        pending.add(new Pending(read, point));
    }

    /**
     * Answers every read whose ordering point execution passed.
     *
     * @param executedBelow  every ordering instance below this executed (or skipped)
     * @param deliveredBelow one past the last decision handed out
     */
    void settle(long executedBelow, long deliveredBelow, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        if (pending.isEmpty()) {
            return;
        }
        pending.removeIf(p -> {
            if (p.orderingPoint() <= executedBelow) {
                out.readReady(p.read(), deliveredBelow);
                return true;
            }
            return false;
        });
    }

    /** Reads confirmed and waiting for execution (tests). */
    int waiting() {
        return pending.size();
    }
}
