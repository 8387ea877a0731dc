package dev.parallax.bench.systems.jgroupsraft;

import org.jgroups.raft.StateMachine;

import java.io.DataInput;
import java.io.DataOutput;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark's trivial state machine for jgroups-raft: every committed command, whatever its
 * bytes, increments a counter, and the reply is the counter's new value as 8 big-endian bytes.
 * Snapshots hold the counter alone.
 *
 * <p>Thread-safe: RAFT applies entries from its single processing thread, and snapshots may be
 * written or read from another; the counter is atomic. Never blocks.
 */
public final class CounterStateMachine implements StateMachine {
    private final AtomicLong counter = new AtomicLong();

    @Override
    public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
        long value = counter.incrementAndGet();
        return serializeResponse ? ByteBuffer.allocate(Long.BYTES).putLong(0, value).array() : null;
    }

    /** Restores the counter from a snapshot; throws what {@code in} throws. */
    @Override
    public void readContentFrom(DataInput in) throws java.io.IOException {
        counter.set(in.readLong());
    }

    /** Writes the counter as a snapshot; throws what {@code out} throws. */
    @Override
    public void writeContentTo(DataOutput out) throws java.io.IOException {
        out.writeLong(counter.get());
    }

    /** The number of commands applied so far. */
    public long value() {
        return counter.get();
    }
}
