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
 *   exists, getData, getChildren, optionally: int frontEnd, long session (the {@link Watcher} of a
 *            read that sets a watch; absent means none)
 *   addWatch (opcode 102): byte recursive (0 or 1), int frontEnd, long session
 *   removeWatches (opcode 103): int type (1 children, 2 data, 3 any), int frontEnd, long session
 *   watchPoll (opcode 100, empty path): int partition, int frontEnd, long acked
 *   watchDrop (opcode 101, empty path): int partition, int frontEnd, long session
 *            ({@link WatchDrop#ALL_SESSIONS}: every session)
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
    /** Volery's opcode for a front end's watch poll (not a ZooKeeper opcode). */
    byte OP_WATCH_POLL = 100;
    /** Volery's opcode for a front end's watch drop (not a ZooKeeper opcode). */
    byte OP_WATCH_DROP = 101;
    /** Volery's opcode for addWatch, a persistent watch (ZooKeeper's own is 106). */
    byte OP_ADD_WATCH = 102;
    /** Volery's opcode for removeWatches (ZooKeeper's is 18). */
    byte OP_REMOVE_WATCHES = 103;

    /** The path the command names (for create, the prefix of a sequential name). */
    String path();

    /** ZooKeeper's opcode. */
    byte opcode();

    /**
     * The partition a front end's watch command names ({@link WatchPoll}, {@link WatchDrop}), which
     * goes there whatever its path; -1 for znode operations, which go where their path says.
     */
    default int targetPartition() {
        return -1;
    }

    /** Whether the command goes to every partition (create and delete, seed 004 §V-B). */
    default boolean isGlobal() {
        return false;
    }

    /**
     * Whether the command goes to every partition: the global commands, and the watch registrations
     * every partition holds ({@link AddWatch} recursive, {@link RemoveWatches}), which change no
     * znode and consume no zxid.
     */
    default boolean toEveryPartition() {
        return isGlobal();
    }

    /** Who sets a watch with this read (exists, getData, getChildren); null for none and other commands. */
    default Watcher watcher() {
        return null;
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

    /**
     * {@link #applyTo(ZnodeTree, long, long)}, then what the command does to {@code watches}
     * ({@link ZnodeWatches#onExecuted}): the one rule a Volery partition and the in-process backend
     * share. {@link WatchPoll} and {@link WatchDrop} act on the watches alone.
     */
    default ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
        ZkReply reply = applyTo(tree, zxid, time);
        watches.onExecuted(this, reply);
        return reply;
    }

    /** The command's bytes. */
    default byte[] encode() {
        byte[] path = path().getBytes(StandardCharsets.UTF_8);
        byte[] data = this instanceof Create c ? c.data : this instanceof SetData s ? s.data : null;
        ByteBuffer out = ByteBuffer.allocate(1 + 4 + path.length + 4 + (data == null ? 0 : 4 + data.length) + 8);
        out.put(opcode()).putInt(path.length).put(path);
        if (this instanceof AddWatch a) {
            return ByteBuffer.allocate(1 + 4 + path.length + 1 + 4 + 8).put(OP_ADD_WATCH).putInt(path.length).put(path)
                    .put((byte) (a.recursive ? 1 : 0)).putInt(a.watcher.frontEnd()).putLong(a.watcher.session()).array();
        } else if (this instanceof RemoveWatches r) {
            return ByteBuffer.allocate(1 + 4 + path.length + 4 + 4 + 8).put(OP_REMOVE_WATCHES).putInt(path.length)
                    .put(path).putInt(r.type).putInt(r.watcher.frontEnd()).putLong(r.watcher.session()).array();
        } else if (this instanceof WatchPoll w) {
            return ByteBuffer.allocate(1 + 4 + 4 + 4 + 8).put(OP_WATCH_POLL).putInt(0).putInt(w.partition)
                    .putInt(w.frontEnd).putLong(w.acked).array();
        } else if (this instanceof WatchDrop w) {
            return ByteBuffer.allocate(1 + 4 + 4 + 4 + 8).put(OP_WATCH_DROP).putInt(0).putInt(w.partition)
                    .putInt(w.frontEnd).putLong(w.session).array();
        } else if (this instanceof Create c) {
            out.putInt(c.mode.flag()).putInt(data.length).put(data);
        } else if (this instanceof SetData s) {
            out.putInt(s.version).putInt(data.length).put(data);
        } else if (this instanceof Delete d) {
            out.putInt(d.version);
        } else if (watcher() != null) {
            out.putInt(watcher().frontEnd()).putLong(watcher().session());
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
                case OP_GET_DATA -> command = new GetData(path, watcher(in));
                case OP_EXISTS -> command = new Exists(path, watcher(in));
                case OP_GET_CHILDREN -> command = new GetChildren(path, watcher(in));
                case OP_ADD_WATCH -> {
                    byte recursive = in.get();
                    if (recursive != 0 && recursive != 1) {
                        return Decoded.malformed("addWatch mode " + recursive);
                    }
                    command = new AddWatch(path, recursive == 1, new Watcher(in.getInt(), in.getLong()));
                }
                case OP_REMOVE_WATCHES -> {
                    int type = in.getInt();
                    command = new RemoveWatches(path, type, new Watcher(in.getInt(), in.getLong()));
                }
                case OP_WATCH_POLL, OP_WATCH_DROP -> {
                    if (!path.isEmpty()) {
                        return Decoded.malformed("a watch command with a path");
                    }
                    int partition = in.getInt();
                    int frontEnd = in.getInt();
                    long value = in.getLong();
                    if (partition < 0 || frontEnd < 0 || frontEnd > Watcher.MAX_FRONT_END
                            || op == OP_WATCH_POLL && value < 0) {
                        return Decoded.malformed("watch command out of range");
                    }
                    command = op == OP_WATCH_POLL ? new WatchPoll(partition, frontEnd, value)
                            : new WatchDrop(partition, frontEnd, value);
                }
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
        } catch (IllegalArgumentException e) {
            return Decoded.malformed(e.getMessage());
        }
    }

    /**
     * @throws NullPointerException     if the path or watcher is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    private static void checkRegistration(String path, Watcher watcher) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(watcher, "watcher");
        checkBounds(path, null);
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

    /**
     * The optional trailing watcher of a read: 12 bytes left → that watcher, else null (leftovers stay).
     *
     * @throws IllegalArgumentException if the front end is out of range (the bytes are malformed)
     */
    private static Watcher watcher(ByteBuffer in) {
        if (in.remaining() != Integer.BYTES + Long.BYTES) {
            return null;
        }
        return new Watcher(in.getInt(), in.getLong()); // a front end out of range: IllegalArgumentException
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
    record GetData(String path, Watcher watcher) implements VoleryCommand {
        /**
         * @param watcher who sets a watch with this read, null for none
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public GetData {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        /** The read without a watch. */
        public GetData(String path) {
            this(path, null);
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
    record Exists(String path, Watcher watcher) implements VoleryCommand {
        /**
         * @param watcher who sets a watch with this read, null for none
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public Exists {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        /** The read without a watch. */
        public Exists(String path) {
            this(path, null);
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
    record GetChildren(String path, Watcher watcher) implements VoleryCommand {
        /**
         * @param watcher who sets a watch with this read, null for none
         * @throws NullPointerException if path is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public GetChildren {
            Objects.requireNonNull(path, "path");
            checkBounds(path, null);
        }

        /** The read without a watch. */
        public GetChildren(String path) {
            this(path, null);
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

    /**
     * A front end's command about its watches at one partition ({@link WatchPoll}, {@link WatchDrop}):
     * it names no path and goes to {@link #partition()} whatever the oracle's path rule; it changes no
     * znode and consumes no zxid.
     */
    sealed interface FrontEndCommand extends VoleryCommand permits WatchPoll, WatchDrop {
        /** The partition the command goes to. */
        int partition();

        /** The front end's server id. */
        int frontEnd();

        @Override
        default String path() {
            return "";
        }

        @Override
        default int targetPartition() {
            return partition();
        }

        /** @throws IllegalArgumentException unless partition &gt;= 0 and the front end is in range */
        static void check(String what, int partition, int frontEnd, long value) {
            if (partition < 0 || frontEnd < 0 || frontEnd > Watcher.MAX_FRONT_END) {
                throw new IllegalArgumentException(what + " out of range: " + partition + "/" + frontEnd + "/" + value);
            }
        }
    }

    /**
     * A front end's poll of partition {@code partition} for the watch events queued for it
     * ({@link ZnodeWatches#poll}): events numbered up to {@code acked} were delivered and are
     * forgotten; the answer is {@link ZkReply#events} with the next ones.
     */
    record WatchPoll(int partition, int frontEnd, long acked) implements FrontEndCommand {
        /** @throws IllegalArgumentException if an argument is out of range (acked negative included) */
        public WatchPoll {
            FrontEndCommand.check("watch poll", partition, frontEnd, acked);
            if (acked < 0) {
                throw new IllegalArgumentException("watch poll acknowledges " + acked);
            }
        }

        @Override
        public byte opcode() {
            return OP_WATCH_POLL;
        }

        /** On a tree without watches: no events. */
        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return ZkReply.events(java.util.List.of());
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
            return ZkReply.events(watches.poll(frontEnd, acked));
        }
    }

    /**
     * A front end's drop of a session's watches and queued events at partition {@code partition}
     * ({@link ZnodeWatches#drop}; {@link #ALL_SESSIONS}: every session of the front end, which it sends
     * before its first watch there). Answers OK.
     */
    record WatchDrop(int partition, int frontEnd, long session) implements FrontEndCommand {
        /** The session value that drops every session of the front end (no session has this id). */
        public static final long ALL_SESSIONS = Long.MIN_VALUE;

        /** @throws IllegalArgumentException if an argument is out of range */
        public WatchDrop {
            FrontEndCommand.check("watch drop", partition, frontEnd, session);
        }

        @Override
        public byte opcode() {
            return OP_WATCH_DROP;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return ZkReply.ok();
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
            watches.drop(frontEnd, session);
            return ZkReply.ok();
        }
    }

    /**
     * A persistent watch of {@code watcher} on {@code path} (ZooKeeper 3.6's addWatch;
     * {@link ZnodeWatches#addPersistent}): non-recursive to the path's owner, recursive to every
     * partition (the owner of each changed descendant fires it). Answers OK, BADARGUMENTS for an
     * invalid path; changes no znode and consumes no zxid.
     */
    record AddWatch(String path, boolean recursive, Watcher watcher) implements VoleryCommand {
        /**
         * @throws NullPointerException     if the path or watcher is null
         * @throws IllegalArgumentException if the path exceeds the encoding's bounds
         */
        public AddWatch {
            checkRegistration(path, watcher);
        }

        @Override
        public byte opcode() {
            return OP_ADD_WATCH;
        }

        @Override
        public boolean toEveryPartition() {
            return recursive;
        }

        /** A tree alone holds no watches: OK for a valid path. */
        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return ZkPaths.isValid(path) ? ZkReply.ok() : ZkReply.error(ZkCode.BADARGUMENTS);
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
            ZkReply reply = applyTo(tree, zxid, time);
            if (reply.isOk()) {
                watches.addPersistent(path, recursive, watcher);
            }
            return reply;
        }
    }

    /**
     * ZooKeeper's removeWatches of {@code watcher}'s watches of {@code type} on {@code path}
     * ({@link ZnodeWatches#remove}: 1 children, 2 data, 3 any), at every partition (a recursive watch
     * is held by each). Answers OK (whether a watch was there is the front end's answer, from what
     * it set); changes no znode and consumes no zxid.
     */
    record RemoveWatches(String path, int type, Watcher watcher) implements VoleryCommand {
        /**
         * @throws NullPointerException     if the path or watcher is null
         * @throws IllegalArgumentException if the type is not 1, 2 or 3, or the path exceeds the bounds
         */
        public RemoveWatches {
            checkRegistration(path, watcher);
            if (type < ZnodeWatches.REMOVE_CHILDREN || type > ZnodeWatches.REMOVE_ANY) {
                throw new IllegalArgumentException("removeWatches type " + type);
            }
        }

        @Override
        public byte opcode() {
            return OP_REMOVE_WATCHES;
        }

        @Override
        public boolean toEveryPartition() {
            return true;
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
            return ZkReply.ok();
        }

        @Override
        public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
            watches.remove(path, type, watcher);
            return ZkReply.ok();
        }
    }
}
