package dev.parallax.core;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A client command as the ordering protocol delivers it: its identity and its bytes.
 *
 * <p>Immutable and thread-safe: the payload is a read-only view. Readers use absolute gets or
 * {@link ByteBuffer#duplicate()}, so that several threads can read one command.
 */
public final class Command {
    private final CommandId id;
    private final ByteBuffer payload;

    /**
     * @param id      the command's identity
     * @param payload the bytes from position to limit; the buffer is not copied, so the caller must
     *                not change those bytes afterwards
     */
    public Command(CommandId id, ByteBuffer payload) {
        this.id = Objects.requireNonNull(id, "id");
        this.payload = Objects.requireNonNull(payload, "payload").slice().asReadOnlyBuffer();
    }

    /** Convenience for tests and examples: wraps the array without copying it. */
    public static Command of(long clientId, long sequence, byte[] payload) {
        return new Command(new CommandId(clientId, sequence), ByteBuffer.wrap(payload));
    }

    public CommandId id() {
        return id;
    }

    /** A fresh read-only view of the payload, positioned at its first byte. */
    public ByteBuffer payload() {
        return payload.duplicate();
    }

    /** Payload length in bytes. */
    public int size() {
        return payload.remaining();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Command c && id.equals(c.id) && payload.equals(c.payload);
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + payload.hashCode();
    }

    @Override
    public String toString() {
        return "Command[" + id + ", " + payload.remaining() + " B]";
    }
}
