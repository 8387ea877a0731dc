package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The values other partitions sent for one command: partition number → the bytes its
 * {@link PartitionedStateMachine#localReads} returned (seed 004 (S-SMR) §IV Alg. 1 l.16-17). What
 * {@link ExecutionContext#valuesOf} serves, and what {@link RemoteValuesLog} keeps so that replay
 * re-executes the command identically.
 *
 * <p>Immutable and thread-safe (buffers are read-only views; accessors return fresh views).
 */
public final class RemoteValues {
    /** No values (a command that reads nothing remote). */
    public static final RemoteValues NONE = new RemoteValues(new TreeMap<>());

    private final TreeMap<Integer, ByteBuffer> values;
    private final long totalBytes;

    private RemoteValues(TreeMap<Integer, ByteBuffer> values) {
        this.values = values;
        long total = 0;
        for (ByteBuffer b : values.values()) {
            total += b.remaining();
        }
        this.totalBytes = total;
    }

    /**
     * A copy of {@code values} (the buffers are not copied, only viewed read-only from position to
     * limit: the caller must not change their bytes).
     *
     * @throws IllegalArgumentException if a key is not a partition number 0..63
     */
    public static RemoteValues of(Map<Integer, ByteBuffer> values) {
        TreeMap<Integer, ByteBuffer> copy = new TreeMap<>();
        for (Map.Entry<Integer, ByteBuffer> e : values.entrySet()) {
            int p = Objects.requireNonNull(e.getKey(), "partition");
            if (p < 0 || p > GroupSet.MAX_GROUP) {
                throw new IllegalArgumentException("partition must be 0.." + GroupSet.MAX_GROUP + ", got " + p);
            }
            copy.put(p, Objects.requireNonNull(e.getValue(), "values").slice().asReadOnlyBuffer());
        }
        return copy.isEmpty() ? NONE : new RemoteValues(copy);
    }

    /** True if {@code partition}'s values are here. */
    public boolean has(int partition) {
        return values.containsKey(partition);
    }

    /** {@code partition}'s values, a fresh read-only view, or null if absent. */
    public ByteBuffer get(int partition) {
        ByteBuffer b = values.get(partition);
        return b == null ? null : b.duplicate();
    }

    /** The partitions whose values are here, in ascending order, as an unmodifiable view. */
    public java.util.Set<Integer> partitions() {
        return java.util.Collections.unmodifiableSet(values.keySet());
    }

    /** How many partitions' values are here. */
    public int size() {
        return values.size();
    }

    /** The sum of the values' lengths in bytes. */
    public long totalBytes() {
        return totalBytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RemoteValues r && values.equals(r.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "RemoteValues" + values.keySet() + "(" + totalBytes + " B)";
    }
}
