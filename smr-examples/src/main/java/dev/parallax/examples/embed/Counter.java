package dev.parallax.examples.embed;

import dev.parallax.core.StateMachine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The embedding example's state machine: one replicated counter. A command is an 8-byte delta,
 * the reply the counter's new value (8 bytes). Deterministic, as every state machine must be: the
 * same commands in the same order give the same value on every replica.
 *
 * <p>Called by the replica's executor on one thread at a time (the sequential executor); not
 * thread-safe beyond that.
 */
public final class Counter implements StateMachine {

    private long value;

    /** The command that adds {@code delta}. */
    public static ByteBuffer add(long delta) {
        return ByteBuffer.allocate(Long.BYTES).putLong(0, delta);
    }

    @Override
    public ByteBuffer execute(ByteBuffer command) {
        if (command.remaining() != Long.BYTES) {
            throw new IllegalArgumentException("a counter command is 8 bytes, got " + command.remaining());
        }
        value += command.getLong(command.position());
        return ByteBuffer.allocate(Long.BYTES).putLong(0, value);
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Long.BYTES).putLong(0, value);
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Long.BYTES);
        while (b.hasRemaining() && in.read(b) >= 0) {
            // read the 8 bytes
        }
        value = b.flip().remaining() == Long.BYTES ? b.getLong() : 0;
    }
}
