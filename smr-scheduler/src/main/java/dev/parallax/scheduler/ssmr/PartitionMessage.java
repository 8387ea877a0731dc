package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A message between partitions about one command (seed 004 (S-SMR) §IV Alg. 1 l.14-20 and §IV-C):
 * a {@link Signal} ("partition {@code from} has started executing the command"), the {@link Values} of
 * {@code from}'s variables the command reads (which count as {@code from}'s signal, §IV-C), or a
 * {@link Request} to send them again (§V-A retransmission); with caching ({@link CachedExchange}),
 * {@link CachedValues} (the cache-validation message of §IV-C, also a signal) and a
 * {@link FullRequest} for every value without ⊥. Any replica of {@code from} may send
 * it, to every replica of the target partition; duplicates are harmless.
 *
 * <p>Immutable and thread-safe. Encoded by {@link PartitionMessageCodec}.
 */
public sealed interface PartitionMessage {
    /** The command the message is about. */
    CommandId command();

    /** The partition whose replica sent it, {@code 0..}{@link dev.parallax.core.GroupSet#MAX_GROUP}. */
    int from();

    /**
     * Partition {@code from} has started (or finished) executing {@code command} (Alg. 1 l.11). The
     * executor normally signals through the {@link Values} it sends when a command starts; a bare
     * signal answers a request for a finished command whose values left the resend cache.
     */
    record Signal(CommandId command, int from) implements PartitionMessage {
        /** @throws IllegalArgumentException if {@code from} is not a partition number */
        public Signal {
            Objects.requireNonNull(command, "command");
            checkPartition(from);
        }
    }

    /**
     * What {@link PartitionedStateMachine#localReads} returned for {@code command} at a replica of
     * {@code from} (empty if it read nothing there or localReads threw). Counts as a signal.
     *
     * @param values read-only view, from position to limit; {@link #values()} returns a fresh view
     */
    record Values(CommandId command, int from, ByteBuffer values) implements PartitionMessage {
        /** @throws IllegalArgumentException if {@code from} is not a partition number */
        public Values {
            Objects.requireNonNull(command, "command");
            checkPartition(from);
            values = Objects.requireNonNull(values, "values").slice().asReadOnlyBuffer();
        }

        /** A fresh read-only view of the values, positioned at the first byte. */
        @Override
        public ByteBuffer values() {
            return values.duplicate();
        }
    }

    /**
     * A replica of {@code from} waits for {@code command}'s signal or values from the target
     * partition: whoever there has started the command answers (again); one that has not will send
     * when it delivers the command (§V-A: "one of the operational replicas will retransmit").
     */
    record Request(CommandId command, int from) implements PartitionMessage {
        /** @throws IllegalArgumentException if {@code from} is not a partition number */
        public Request {
            Objects.requireNonNull(command, "command");
            checkPartition(from);
        }
    }

    /**
     * {@code from}'s variables {@code command} reads, per variable the value or ⊥ ("the copy you
     * cached is current"), in {@link CachedValuesFormat} (seed 004 (S-SMR) §IV-C, conservative
     * caching: the cache-validation message). Counts as a signal. Per reader: the ⊥ differ.
     *
     * @param values read-only view, from position to limit; {@link #values()} returns a fresh view
     */
    record CachedValues(CommandId command, int from, ByteBuffer values) implements PartitionMessage {
        /** @throws IllegalArgumentException if {@code from} is not a partition number */
        public CachedValues {
            Objects.requireNonNull(command, "command");
            checkPartition(from);
            values = Objects.requireNonNull(values, "values").slice().asReadOnlyBuffer();
        }

        /** A fresh read-only view of the values, positioned at the first byte. */
        @Override
        public ByteBuffer values() {
            return values.duplicate();
        }
    }

    /**
     * A replica of {@code from} could not resolve a ⊥ of the target partition's
     * {@link CachedValues} for {@code command} (it no longer holds the variable): send every value
     * (seed 004 §IV-C: "If s discarded its cached copy, it sends a request for x").
     */
    record FullRequest(CommandId command, int from) implements PartitionMessage {
        /** @throws IllegalArgumentException if {@code from} is not a partition number */
        public FullRequest {
            Objects.requireNonNull(command, "command");
            checkPartition(from);
        }
    }

    /** The bytes of values a message carries (0 for signals and requests). */
    static int valueBytes(PartitionMessage m) {
        return m instanceof Values v ? v.values.remaining() : m instanceof CachedValues c ? c.values.remaining() : 0;
    }

    private static void checkPartition(int partition) {
        if (partition < 0 || partition > dev.parallax.core.GroupSet.MAX_GROUP) {
            throw new IllegalArgumentException("partition must be 0.." + dev.parallax.core.GroupSet.MAX_GROUP
                    + ", got " + partition);
        }
    }
}
