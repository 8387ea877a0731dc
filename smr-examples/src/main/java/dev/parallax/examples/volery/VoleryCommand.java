package dev.parallax.examples.volery;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A Volery command (seed 004 (S-SMR / Eyrie / Volery) §V-B: create, delete, exists, getData,
 * setData, getChildren) and its binary encoding, big-endian:
 * <pre>
 *   byte opcode (ZooKeeper's OpCode: create 1, delete 2, exists 3, getData 4, setData 5, getChildren 8)
 *   int  pathLength (0..{@link #MAX_PATH_BYTES}), pathLength bytes UTF-8 path
 *   create:  int createModeFlag, int dataLength (0..{@link #MAX_DATA_BYTES}), data
 *   delete:  int version
 *   setData: int version, int dataLength (0..{@link #MAX_DATA_BYTES}), data
 *   create, setData, optionally: long time (ms; written only when not 0, absent means 0)
 * </pre>
 * and nothing after. The time is the write's ctime/mtime, stamped into the command by the entry
 * point ({@link #withTime}) so that every replica of every partition uses the same value (the state
 * machine reads no clock); commands without it encode exactly as before it existed. The path is not validated here (the tree answers BADARGUMENTS, the same on every
 * replica); a create mode flag ZooKeeper does not define is malformed, one it defines but the model
 * does not implement decodes and executes to UNIMPLEMENTED.
 *
 * <p>Immutable values (data arrays are copied in and out); safe from any thread. The constructors
 * refuse a path or data beyond the bounds ({@link IllegalArgumentException}), so every command
 * encodes to bytes {@link #decode} accepts; {@link #decode} never throws: malformed bytes give a
 * {@link Decoded} with the reason.
 */
public sealed interface VoleryCommand {
    /** The largest encoded path, in bytes. */
    int MAX_PATH_BYTES = 32 * 1024;
    /** The largest data, in bytes: ZooKeeper's default {@code jute.maxbuffer} (0xfffff). */
    int MAX_DATA_BYTES = 0xfffff;

    /** ZooKeeper's opcode for create. */
    byte OP_CREATE = 1;
    /** ZooKeeper's opcode for delete. */
    byte OP_DELETE = 2;
    /** ZooKeeper's opcode for exists. */
    byte OP_EXISTS = 3;
    /** ZooKeeper's opcode for getData. */
    byte OP_GET_DATA = 4;
    /** ZooKeeper's opcode for setData. */
    byte OP_SET_DATA = 5;
    /** ZooKeeper's opcode for getChildren. */
    byte OP_GET_CHILDREN = 8;

    /** The path the command names (for create, the prefix of a sequential name). */
    String path();

    /** ZooKeeper's opcode. */
    byte opcode();

    /** Whether the command goes to every partition (create and delete, seed 004 §V-B). */
    default boolean isGlobal() {
        return false;
    }

    /** Whether the command changes the tree when it succeeds. */
    default boolean isWrite() {
        return false;
    }

    /** The time (ms) a create or setData stamps on the node; 0 if none was stamped, and for other commands. */
    default long time() {
        return 0L;
    }

    /**
     * This command with {@code time} as its {@link #time()} (create and setData); other commands,
     * which stamp no time, return themselves.
     */
    default VoleryCommand withTime(long time) {
        return this;
    }

    /**
     * Executes the command on {@code tree}: a write at the zxid and time given; a read with
     * {@code zxid} as the last zxid of the state it reads. The reply carries {@code zxid}
     * ({@link ZkReply#zxid()}).
     */
    ZkReply applyTo(ZnodeTree tree, long zxid, long time);

    /** The command's bytes. */
    default byte[] encode() {
        byte[] path = path().getBytes(StandardCharsets.UTF_8);
        byte[] data = this instanceof Create c ? c.data : this instanceof SetData s ? s.data : null;
        ByteBuffer out = ByteBuffer.allocate(1 + 4 + path.length + 4 + (data == null ? 0 : 4 + data.length) + 8);
        out.put(opcode()).putInt(path.length).put(path);
        if (this instanceof Create c) {
            out.putInt(c.mode.flag()).putInt(data.length).put(data);
        } else if (this instanceof SetData s) {
            out.putInt(s.version).putInt(data.length).put(data);
        } else if (this instanceof Delete d) {
            out.putInt(d.version);
        }
        if (time() != 0) {
            out.putLong(time());
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    /** Decodes {@code bytes}. Never throws. */
    static Decoded decode(byte[] bytes) {
        return bytes == null ? Decoded.malformed("no bytes") : decode(ByteBuffer.wrap(bytes));
    }

    /**
     * Decodes the bytes from the buffer's position to its limit, without moving either. Never throws.
     */
    static Decoded decode(ByteBuffer bytes) {
        if (bytes == null) {
            return Decoded.malformed("no bytes");
        }
        ByteBuffer in = bytes.duplicate();
        try {
            byte op = in.get();
            int pathLength = in.getInt();
            if (pathLength < 0 || pathLength > MAX_PATH_BYTES || pathLength > in.remaining()) {
                return Decoded.malformed("bad path length " + pathLength + " (" + in.remaining() + " bytes left)");
            }
            ByteBuffer pathBytes = in.slice();
            pathBytes.limit(pathLength);
            in.position(in.position() + pathLength);
            String path = ZnodeSnapshotFormat.utf8OrNull(pathBytes);
            if (path == null) {
                return Decoded.malformed("path is not UTF-8");
            }
            VoleryCommand command;
            switch (op) {
                case OP_CREATE -> {
                    int flag = in.getInt();
                    CreateMode mode = CreateMode.fromFlag(flag);
                    if (mode == null) {
                        return Decoded.malformed("unknown create mode " + flag);
                    }
                    byte[] data = data(in);
                    if (data == null) {
                        return Decoded.malformed("bad data length");
                    }
                    command = new Create(path, data, mode, time(in));
                }
                case OP_DELETE -> command = new Delete(path, in.getInt());
                case OP_SET_DATA -> {
                    int version = in.getInt();
                    byte[] data = data(in);
                    if (data == null) {
                        return Decoded.malformed("bad data length");
                    }
                    command = new SetData(path, data, version, time(in));
                }
                case OP_GET_DATA -> command = new GetData(path);
                case OP_EXISTS -> command = new Exists(path);
                case OP_GET_CHILDREN -> command = new GetChildren(path);
                default -> {
                    return Decoded.malformed("unknown opcode " + op);
                }
            }
            if (in.hasRemaining()) {
                return Decoded.malformed(in.remaining() + " trailing bytes");
            }
            return new Decoded(command, null);
        } catch (BufferUnderflowException e) {
            return Decoded.malformed("truncated command (" + bytes.remaining() + " bytes)");
        }
    }

    /** @throws IllegalArgumentException if the path or data exceed the encoding's bounds */
    private static void checkBounds(String path, byte[] data) {
        int pathBytes = path.getBytes(StandardCharsets.UTF_8).length;
        if (pathBytes > MAX_PATH_BYTES) {
            throw new IllegalArgumentException("path of " + pathBytes + " bytes exceeds " + MAX_PATH_BYTES);
        }
        if (data != null && data.length > MAX_DATA_BYTES) {
            throw new IllegalArgumentException("data of " + data.length + " bytes exceeds " + MAX_DATA_BYTES);
        }
    }

    /**
     * The record's own copy of {@code data} (create, setData), once the path and data are checked.
     *
     * @throws NullPointerException if {@code path} or {@code data} is null
     * @throws IllegalArgumentException if the path or data exceed the encoding's bounds
     */
    private static byte[] checkedCopy(String path, byte[] data) {
        Objects.requireNonNull(path, "path");
        byte[] copy = data.clone();
        checkBounds(path, copy);
        return copy;
    }

    /** {@code name[path, nB, detail, t=time]}, without the time when it is 0: how create and setData print. */
    private static String describe(String name, String path, byte[] data, Object detail, long time) {
        return name + "[" + path + ", " + data.length + "B, " + detail + (time == 0 ? "" : ", t=" + time) + "]";
    }

    /** The optional trailing time: 8 bytes left → that long, else 0 (other leftovers stay, as trailing bytes). */
    private static long time(ByteBuffer in) {
        return in.remaining() == Long.BYTES ? in.getLong() : 0L;
    }

    private static byte[] data(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > MAX_DATA_BYTES || length > in.remaining()) {
            return null;
        }
        byte[] data = new byte[length];
        in.get(data);
        return data;
    }

    /**
     * The result of {@link #decode}: the command, or (malformed bytes) null and the reason.
     *
     * @param command the command, null if malformed
     * @param error why the bytes are malformed, null if not
     */
    record Decoded(VoleryCommand command, String error) {
        /** A malformed result. */
        static Decoded malformed(String reason) {
            return new Decoded(null, "malformed Volery command: " + reason);
        }

        /** Whether the bytes held a command. */
        public boolean ok() {
            return command != null;
        }
    }

    /** create(path, data, mode) at {@code time} (ms, 0 if not stamped): a global command. */
    record Create(String path, byte[] data, CreateMode mode, long time) implements VoleryCommand {
        /**
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if the path or data exceed the encoding's bounds
         */
        public Create {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(mode, "mode");
            data = checkedCopy(path, data);
        }

        /** create(path, data, mode) without a time (0). */
        public Create(String path, byte[] data, CreateMode mode) {
            this(path, data, mode, 0L);
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public Create withTime(long time) {
            return new Create(path, data, mode, time);
        }

        @Override
        public byte opcode() {
            return OP_CREATE;
        }

        @Override
        public boolean isGlobal() {
            return true;
        }

        @Override
        public boolean isWrite() {
            return true;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return tree.create(path, data, mode, zxid, time);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Create c && path.equals(c.path) && Arrays.equals(data, c.data) && mode == c.mode
                    && time == c.time;
        }

        @Override
        public int hashCode() {
            return Objects.hash(path, Arrays.hashCode(data), mode, time);
        }

        @Override
        public String toString() {
            return describe("Create", path, data, mode, time);
        }
    }

    /** delete(path, version): a global command. */
    record Delete(String path, int version) implements VoleryCommand {
        /**
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public Delete {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        @Override
        public byte opcode() {
            return OP_DELETE;
        }

        @Override
        public boolean isGlobal() {
            return true;
        }

        @Override
        public boolean isWrite() {
            return true;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return tree.delete(path, version, zxid);
        }
    }

    /** setData(path, data, version) at {@code time} (ms, 0 if not stamped): a local command of the path's partition. */
    record SetData(String path, byte[] data, int version, long time) implements VoleryCommand {
        /**
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if the path or data exceed the encoding's bounds
         */
        public SetData {
            data = checkedCopy(path, data);
        }

        /** setData(path, data, version) without a time (0). */
        public SetData(String path, byte[] data, int version) {
            this(path, data, version, 0L);
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public SetData withTime(long time) {
            return new SetData(path, data, version, time);
        }

        @Override
        public byte opcode() {
            return OP_SET_DATA;
        }

        @Override
        public boolean isWrite() {
            return true;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return tree.setData(path, data, version, zxid, time);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SetData s && path.equals(s.path) && Arrays.equals(data, s.data) && version == s.version
                    && time == s.time;
        }

        @Override
        public int hashCode() {
            return Objects.hash(path, Arrays.hashCode(data), version, time);
        }

        @Override
        public String toString() {
            return describe("SetData", path, data, "v" + version, time);
        }
    }

    /** getData(path): a local command. */
    record GetData(String path) implements VoleryCommand {
        /**
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public GetData {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        @Override
        public byte opcode() {
            return OP_GET_DATA;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return tree.getData(path).withZxid(zxid);
        }
    }

    /** exists(path): a local command. */
    record Exists(String path) implements VoleryCommand {
        /**
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public Exists {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        @Override
        public byte opcode() {
            return OP_EXISTS;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return tree.exists(path).withZxid(zxid);
        }
    }

    /** getChildren(path): a local command of the path's partition (every partition knows the hierarchy). */
    record GetChildren(String path) implements VoleryCommand {
        /**
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public GetChildren {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        @Override
        public byte opcode() {
            return OP_GET_CHILDREN;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return tree.getChildren(path).withZxid(zxid);
        }
    }
}
