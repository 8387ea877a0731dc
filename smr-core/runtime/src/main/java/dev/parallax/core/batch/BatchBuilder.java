package dev.parallax.core.batch;

import dev.parallax.core.Command;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The batching policy as pure logic (seed 000 §V-C1: the Batcher closes a batch at BSZ bytes or a
 * timeout). BSZ is a hard cap: a batch never exceeds {@code maxBytes} unless it is a single command
 * larger than that (the paper picks 1300 B so that a batch fits one Ethernet frame). A batch closes
 * when
 * <ol>
 *   <li>the next command would take it past {@code maxBytes}: it closes before that command, which
 *       opens the next batch; or it reaches {@code maxBytes} exactly; or</li>
 *   <li>its oldest command has waited {@code timeoutNanos}, or</li>
 *   <li>the caller says the ordering layer is ready for a proposal now ({@code eager}) — at low
 *       load this sends a command without waiting for company, while at high load the window is
 *       full, nothing is eager, and batches fill up to BSZ.</li>
 * </ol>
 * A single command larger than BSZ forms a batch of its own; it is <em>full</em> at once, so the
 * next {@link #poll} closes it and {@link #deadline()} reports it due, whatever the timeout.
 *
 * <p>Not thread-safe: owned by the Batcher stage (or a simulated replica). Time comes in as
 * arguments.
 */
public final class BatchBuilder {
    private final int maxBytes;
    private final long timeoutNanos;
    private final List<Command> open = new ArrayList<>();
    private long openPayload;
    /** Commands in the open batch to a group set other than the default (they carry 8 more bytes). */
    private int openGrouped;
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
     * Adds a command.
     *
     * @return the batch this command closed, else {@code null}: the open batch if the command would
     *         have taken it past BSZ (the command then opens the next batch and, if it is BSZ or
     *         larger on its own, waits for the next {@link #poll}), or else the batch this command
     *         brought to BSZ (a lone oversized command included)
     */
    public ByteBuffer add(Command command, long now) {
        ByteBuffer closed = null;
        if (!open.isEmpty() && (long) size() + CommandBatch.commandBytes(command) > maxBytes) {
            closed = close();
        }
        if (open.isEmpty()) {
            openedAt = now;
        }
        open.add(command);
        openPayload += command.size();
        openGrouped += command.groups().isDefault() ? 0 : 1;
        if (closed == null && full()) {
            closed = close();
        }
        return closed;
    }

    /**
     * Closes the open batch if it is full (a command of BSZ or more), timed out, or if {@code eager}
     * and it is not empty.
     *
     * @return the closed batch, or {@code null}
     */
    public ByteBuffer poll(long now, boolean eager) {
        if (open.isEmpty()) {
            return null;
        }
        if (eager || full() || now - openedAt >= timeoutNanos) {
            return close();
        }
        return null;
    }

    /**
     * When the open batch is due: when it times out, when it was opened if it is already full, or
     * {@link Long#MAX_VALUE} if none is open.
     */
    public long deadline() {
        if (open.isEmpty()) {
            return Long.MAX_VALUE;
        }
        return full() ? openedAt : openedAt + timeoutNanos;
    }

    /** Commands in the open batch. */
    public int pending() {
        return open.size();
    }

    /** Encoded size of the open batch. */
    public int size() {
        return CommandBatch.encodedSize(open.size(), openGrouped, openPayload);
    }

    private boolean full() {
        return size() >= maxBytes;
    }

    private ByteBuffer close() {
        ByteBuffer batch = CommandBatch.encode(open);
        open.clear();
        openPayload = 0;
        openGrouped = 0;
        return batch;
    }
}
