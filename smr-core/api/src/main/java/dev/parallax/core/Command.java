package dev.parallax.core;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A client command as the ordering protocol delivers it: its identity, its destination and its
 * bytes. The destination — the {@link GroupSet} of multicast groups that must deliver the command —
 * is part of the identity ({@link CommandId#groups()}): it is the command's session stream, and it
 * travels with the command through the batch and client wire formats. A command that names none
 * goes to {@link GroupSet#DEFAULT}. The destination is chosen by the client (P-SMR's C-G function,
 * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6; S-SMR's oracle, seed 004 (S-SMR / Volery)).
 *
 * <p>Equality covers the identity (client, groups, sequence) and the payload bytes.
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

    /** Convenience for tests and examples: a default-group command; wraps the array without copying it. */
    public static Command of(long clientId, long sequence, byte[] payload) {
        return new Command(new CommandId(clientId, sequence), ByteBuffer.wrap(payload));
    }

    /** Convenience for tests and examples: a command to {@code groups}; wraps the array without copying it. */
    public static Command of(long clientId, GroupSet groups, long sequence, byte[] payload) {
        return new Command(new CommandId(clientId, groups, sequence), ByteBuffer.wrap(payload));
    }

    public CommandId id() {
        return id;
    }

    /** The groups that must deliver this command ({@link GroupSet#DEFAULT} if it names none). */
    public GroupSet groups() {
        return id.groups();
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
