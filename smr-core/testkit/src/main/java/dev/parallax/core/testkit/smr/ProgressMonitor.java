package dev.parallax.core.testkit.smr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.batch.CommandBatch;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Checks bounded progress once faults heal: every command a leader proposed — before the heal and
 * still undecided, or after it — must be decided (delivered by some replica, in whatever batch)
 * within {@code bound} virtual nanoseconds of the later of its first proposal and the heal. A
 * proposal a deposed leader loses is covered too: the client's retry must get the command decided
 * through the next leader within the same bound. Batches are {@link CommandBatch} encodings, so it
 * serves every protocol that orders such batches.
 *
 * <p>Before {@link #arm} it only records. Not thread-safe: owned by the simulation thread, never blocks; {@link #check} is meant to
 * run as a {@link dev.parallax.core.testkit.Simulation#addInvariant invariant}, after every event.
 */
public final class ProgressMonitor {
    /** A command's first proposal still waiting for a decision. */
    private record Pending(int leader, long proposedAt) {
    }

    /** Undecided commands in order of first proposal, so the oldest is first. */
    private final LinkedHashMap<CommandId, Pending> undecided = new LinkedHashMap<>();
    private final Set<CommandId> decided = new HashSet<>();
    private long armedAt = -1;
    private long bound;
    private long maxLatency;
    private long tracked;

    /** {@code proposer}'s core took the batch {@code batch} (read, not consumed). */
    public void proposed(int proposer, ByteBuffer batch, long now) {
        for (Command c : CommandBatch.decode(batch)) {
            if (!decided.contains(c.id()) && !undecided.containsKey(c.id())) {
                undecided.put(c.id(), new Pending(proposer, now));
            }
        }
    }

    /** A replica delivered the batch {@code batchOrNull} (read, not consumed); {@code null} or empty: a no-op. */
    public void decided(ByteBuffer batchOrNull, long now) {
        if (batchOrNull == null || !batchOrNull.hasRemaining()) {
            return;
        }
        for (Command c : CommandBatch.decode(batchOrNull)) {
            if (decided.add(c.id())) {
                Pending p = undecided.remove(c.id());
                if (p != null && armedAt >= 0) {
                    tracked++;
                    maxLatency = Math.max(maxLatency, now - Math.max(p.proposedAt(), armedAt));
                }
            }
        }
    }

    /** Faults healed at {@code now}: from here on, each proposed command must be decided within {@code bound}. */
    public void arm(long now, long bound) {
        this.armedAt = now;
        this.bound = bound;
    }

    /**
     * @throws AssertionError if an armed command has waited longer than the bound at {@code now}
     */
    public void check(long now) {
        if (armedAt < 0 || undecided.isEmpty()) {
            return;
        }
        Iterator<Map.Entry<CommandId, Pending>> it = undecided.entrySet().iterator();
        Map.Entry<CommandId, Pending> oldest = it.next();
        long since = Math.max(oldest.getValue().proposedAt(), armedAt);
        if (now - since > bound) {
            throw new AssertionError("progress: command " + oldest.getKey() + " proposed by leader "
                    + oldest.getValue().leader() + " at " + oldest.getValue().proposedAt() / 1_000 + " us is not decided "
                    + (now - since) / 1_000_000 + " ms after " + (since == armedAt ? "the faults healed" : "its proposal")
                    + " (bound " + bound / 1_000_000 + " ms)");
        }
    }

    /** The longest proposal-to-decision time of a command decided after {@link #arm} (counted from the heal at most). */
    public long maxLatency() {
        return maxLatency;
    }

    /** Commands decided after {@link #arm} whose latency was measured. */
    public long tracked() {
        return tracked;
    }
}
