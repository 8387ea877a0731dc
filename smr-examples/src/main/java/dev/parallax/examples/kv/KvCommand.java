package dev.parallax.examples.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One command of the key-value state machine and its binary wire format:
 *
 * <pre>
 * command := op:u8 argc:i32 (length:i32 bytes[length]){argc}     (big-endian)
 * </pre>
 *
 * Keys and values are arbitrary bytes. Decoding is strict: an unknown op, an argument count the op
 * does not take, a negative or overlong length or trailing bytes are rejected.
 *
 * <p>Immutable once built (the argument arrays are copied in and out) and thread-safe.
 */
public final class KvCommand {
    private static final int HEADER_BYTES = 1 + Integer.BYTES;

    private final KvOp op;
    private final byte[][] args;

    private KvCommand(KvOp op, byte[][] args) {
        this.op = op;
        this.args = args;
    }

    /**
     * A command; the arguments are copied.
     *
     * @throws IllegalArgumentException if {@code op} does not take {@code args.length} arguments
     * @throws NullPointerException     if {@code op}, {@code args} or an argument is null
     */
    public static KvCommand of(KvOp op, byte[]... args) {
        Objects.requireNonNull(op, "op");
        checkArgCount(op, args.length);
        byte[][] copy = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            copy[i] = Objects.requireNonNull(args[i], "argument").clone();
        }
        return new KvCommand(op, copy);
    }

    /** The operation. */
    public KvOp op() {
        return op;
    }

    /** The number of arguments. */
    public int argCount() {
        return args.length;
    }

    /**
     * A copy of argument {@code index}.
     *
     * @throws IndexOutOfBoundsException if there is no such argument
     */
    public byte[] arg(int index) {
        return args[index].clone();
    }

    /** The encoded command in a fresh heap buffer, positioned at 0. */
    public ByteBuffer encode() {
        return encode(op, args, 0);
    }

    /**
     * Encodes {@code args[from..]} as the arguments of {@code op} without copying them first: the
     * front end encodes straight from the request it decoded.
     */
    static ByteBuffer encode(KvOp op, byte[][] args, int from) {
        checkArgCount(op, args.length - from);
        long size = HEADER_BYTES;
        for (int i = from; i < args.length; i++) {
            size += Integer.BYTES + args[i].length;
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("KV command too large: " + size + " bytes");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        out.put(op.code()).putInt(args.length - from);
        for (int i = from; i < args.length; i++) {
            out.putInt(args[i].length).put(args[i]);
        }
        return out.flip();
    }

    /**
     * Decodes the command between {@code in}'s position and limit; {@code in} itself is not moved.
     *
     * @throws IllegalArgumentException if the bytes are not a well-formed command
     */
    public static KvCommand decode(ByteBuffer in) {
        int pos = in.position();
        int end = in.limit();
        if (end - pos < HEADER_BYTES) {
            throw malformed("truncated header (" + (end - pos) + " bytes)");
        }
        KvOp op = KvOp.fromCode(in.get(pos));
        int argc = in.getInt(pos + 1);
        pos += HEADER_BYTES;
        // Each argument needs at least its length prefix: bounds argc before allocating for it.
        if (argc < 0 || argc > (end - pos) / Integer.BYTES) {
            throw malformed("argument count " + argc + " does not fit in " + (end - pos) + " bytes");
        }
        checkArgCount(op, argc);
        byte[][] args = new byte[argc][];
        for (int i = 0; i < argc; i++) {
            if (end - pos < Integer.BYTES) {
                throw malformed("truncated length of argument " + i);
            }
            int length = in.getInt(pos);
            pos += Integer.BYTES;
            if (length < 0 || length > end - pos) {
                throw malformed("argument " + i + " length " + length + " exceeds the " + (end - pos)
                        + " bytes left");
            }
            byte[] arg = new byte[length];
            in.get(pos, arg);
            pos += length;
            args[i] = arg;
        }
        if (pos != end) {
            throw malformed((end - pos) + " trailing bytes");
        }
        return new KvCommand(op, args);
    }

    /** The arguments themselves, not copied: for the state machine, which never modifies them. */
    byte[][] rawArgs() {
        return args;
    }

    private static void checkArgCount(KvOp op, int count) {
        if (!op.acceptsArgCount(count)) {
            throw malformed(op + " does not take " + count + " arguments");
        }
    }

    private static IllegalArgumentException malformed(String what) {
        return new IllegalArgumentException("malformed KV command: " + what);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvCommand c && op == c.op && Arrays.deepEquals(args, c.args);
    }

    @Override
    public int hashCode() {
        return op.hashCode() * 31 + Arrays.deepHashCode(args);
    }

    @Override
    public String toString() {
        return op + "[" + args.length + " args]";
    }
}
