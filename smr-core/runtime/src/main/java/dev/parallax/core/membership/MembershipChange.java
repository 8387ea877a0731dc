package dev.parallax.core.membership;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One configuration command, decided in the order like any value: add a learner, promote a learner
 * to voter, remove a member, or replace a voter by a new replica in one step. It takes effect
 * {@code alpha} instances after the instance it is decided at (Lamport, Malkhi and Zhou,
 * "Reconfiguring a State Machine", §3: the α of the pipeline window), see {@link MembershipHistory}.
 *
 * @param kind    what changes
 * @param id      the member added, promoted or removed; for {@code REPLACE} the voter replaced
 * @param newId   for {@code REPLACE}, the replica taking its place; otherwise -1
 * @param address for an added replica, {@code host:port}; otherwise empty
 * @param alpha   the proposing leader's α (its window): the change takes effect at its decided
 *                instance plus {@code alpha}; every replica must run with the same window
 */
public record MembershipChange(Kind kind, int id, int newId, String address, int alpha) {
    /** The longest address accepted. */
    public static final int MAX_ADDRESS_BYTES = 255;
    private static final byte VERSION = 1;

    /** What a change does. */
    public enum Kind { ADD_LEARNER, PROMOTE, REMOVE, REPLACE }

    public MembershipChange {
        if (kind == null || address == null) {
            throw new IllegalArgumentException("kind and address must be given");
        }
        if (alpha < 1) {
            throw new IllegalArgumentException("alpha must be positive, got " + alpha);
        }
        if (address.getBytes(StandardCharsets.UTF_8).length > MAX_ADDRESS_BYTES) {
            throw new IllegalArgumentException("address longer than " + MAX_ADDRESS_BYTES + " bytes");
        }
        if ((kind == Kind.REPLACE) != (newId >= 0)) {
            throw new IllegalArgumentException("newId is given for a replacement and only then: " + kind + " " + newId);
        }
    }

    public static MembershipChange addLearner(int id, String address, int alpha) {
        return new MembershipChange(Kind.ADD_LEARNER, id, -1, address, alpha);
    }

    public static MembershipChange promote(int id, int alpha) {
        return new MembershipChange(Kind.PROMOTE, id, -1, "", alpha);
    }

    public static MembershipChange remove(int id, int alpha) {
        return new MembershipChange(Kind.REMOVE, id, -1, "", alpha);
    }

    public static MembershipChange replace(int oldId, int newId, String address, int alpha) {
        return new MembershipChange(Kind.REPLACE, oldId, newId, address, alpha);
    }

    /** {@code version:1 kind:1 id:4 newId:4 alpha:4 length:2 utf8}. */
    public byte[] encode() {
        byte[] a = address.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(16 + a.length).put(VERSION).put((byte) kind.ordinal()).putInt(id).putInt(newId)
                .putInt(alpha).putShort((short) a.length).put(a).array();
    }

    /**
     * Reads what {@link #encode} wrote.
     *
     * @throws IllegalArgumentException if malformed
     */
    public static MembershipChange decode(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        try {
            int version = b.get();
            int kind = b.get();
            if (version != VERSION || kind < 0 || kind >= Kind.values().length) {
                throw new IllegalArgumentException("unknown membership change version " + version + " kind " + kind);
            }
            int id = b.getInt();
            int newId = b.getInt();
            int alpha = b.getInt();
            int len = b.getShort() & 0xFFFF;
            if (len != b.remaining()) {
                throw new IllegalArgumentException("membership change address of " + len + " bytes, " + b.remaining() + " follow");
            }
            byte[] a = new byte[len];
            b.get(a);
            return new MembershipChange(Kind.values()[kind], id, newId, new String(a, StandardCharsets.UTF_8), alpha);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated membership change", e);
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case ADD_LEARNER -> "add-learner " + id + "=" + address;
            case PROMOTE -> "promote " + id;
            case REMOVE -> "remove " + id;
            case REPLACE -> "replace " + id + " by " + newId + (address.isEmpty() ? "" : "=" + address);
        } + " (α " + alpha + ")";
    }
}
