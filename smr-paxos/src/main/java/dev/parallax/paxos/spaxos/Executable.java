package dev.parallax.paxos.spaxos;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The batches one decided ordering instance makes this replica execute: its ids that were not
 * executed before (a duplicate decision is skipped, seed 002 (S-Paxos) footnote 5), in the order
 * the decided id list names them, each with its body (l.19–22). Emitted by {@link SPaxosCore} as
 * the decision of {@code instance}; the runtime turns it into delivered bytes with
 * {@link ExecutedBatches#encode}.
 *
 * <p>Immutable and thread-safe as long as nobody changes the bodies' bytes (the core hands out
 * read-only views).
 *
 * @param instance the ordering instance
 * @param ids      the new ids, never empty
 * @param bodies   their bodies, one per id, same order
 */
public record Executable(long instance, List<BatchId> ids, List<ByteBuffer> bodies) implements SPaxosValue {

    /** @throws IllegalArgumentException if there are no ids or the counts differ */
    public Executable {
        ids = List.copyOf(ids);
        bodies = List.copyOf(bodies);
        if (ids.isEmpty() || ids.size() != bodies.size()) {
            throw new IllegalArgumentException("an executable needs as many bodies as ids (at least one), got "
                    + ids.size() + " ids and " + bodies.size() + " bodies");
        }
    }

    /** Deterministic: the instance, and each id with its body's length and checksum. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Executable{").append(instance).append(':');
        for (int i = 0; i < ids.size(); i++) {
            s.append(i == 0 ? " " : ", ").append(ids.get(i)).append('=').append(Batch.describe(bodies.get(i)));
        }
        return s.append('}').toString();
    }
}
