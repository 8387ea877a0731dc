package dev.parallax.core.batch;

import dev.parallax.core.Command;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The batching policy as pure logic (seed 000 §V-C1: the Batcher closes a batch at BSZ bytes or a
 * timeout). A batch closes when
 * <ol>
 *   <li>adding a command brings it to {@code maxBytes} or more (BSZ), or</li>
 *   <li>its oldest command has waited {@code timeoutNanos}, or</li>
 *   <li>the caller says the ordering layer is ready for a proposal now ({@code eager}) — at low
 *       load this sends a command without waiting for company, while at high load the window is
 *       full, nothing is eager, and batches fill up to BSZ.</li>
 * </ol>
 * A single command larger than BSZ forms a batch of its own.
 *
 * <p>Not thread-safe: owned by the Batcher stage (or a simulated replica). Time comes in as
 * arguments.
 */
public final class BatchBuilder {
    private final int maxBytes;
    private final long timeoutNanos;
    private final List<Command> open = new ArrayList<>();
    private long openPayload;
    private long openedAt;

    /**
     * @param maxBytes     BSZ, the encoded size at which a batch closes
     * @param timeoutNanos longest a command waits for its batch to close
     */
    public BatchBuilder(int maxBytes, long timeoutNanos) {
        if (maxBytes <= CommandBatch.HEADER) {
            throw new IllegalArgumentException("maxBytes must exceed the batch header, got " + maxBytes);
        }
        if (timeoutNanos < 0) {
            throw new IllegalArgumentException("timeout must be >= 0");
        }
        this.maxBytes = maxBytes;
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Adds a command. @return the closed batch if this command filled it, else {@code null}
     */
    public ByteBuffer add(Command command, long now) {
        if (open.isEmpty()) {
            openedAt = now;
        }
        open.add(command);
        openPayload += command.size();
        return size() >= maxBytes ? close() : null;
    }

    /**
     * Closes the open batch if it timed out, or if {@code eager} and it is not empty.
     *
     * @return the closed batch, or {@code null}
     */
    public ByteBuffer poll(long now, boolean eager) {
        if (open.isEmpty()) {
            return null;
        }
        if (eager || now - openedAt >= timeoutNanos) {
            return close();
        }
        return null;
    }

    /** When the open batch times out, or {@link Long#MAX_VALUE} if none is open. */
    public long deadline() {
        return open.isEmpty() ? Long.MAX_VALUE : openedAt + timeoutNanos;
    }

    /** Commands in the open batch. */
    public int pending() {
        return open.size();
    }

    /** Encoded size of the open batch. */
    public int size() {
        return CommandBatch.encodedSize(open.size(), openPayload);
    }

    private ByteBuffer close() {
        ByteBuffer batch = CommandBatch.encode(open);
        open.clear();
        openPayload = 0;
        return batch;
    }
}
