package dev.parallax.examples.volery;

import java.nio.ByteBuffer;

/**
 * A Volery command: one of ZooKeeper's znode operations the model serves (seed 004 (S-SMR / Eyrie /
 * Volery) §V-B: {@link Create}, {@link Delete}, {@link Exists}, {@link GetData}, {@link SetData},
 * {@link GetChildren}), a transaction ({@link Multi} of {@link Check}, create, delete and setData), a
 * watch registration ({@link AddWatch}, {@link RemoveWatches}), a session command
 * ({@link SessionTick}, {@link CloseSession}) or a front end's watch command ({@link FrontEndCommand}). Each command type is its own record; what is common
 * to all of them (where a command goes, whether it writes, how it executes) is here, and the bytes
 * are {@link VoleryCodec}'s ({@link #encode}, {@link #decode}), which documents the format.
 *
 * <p>The time of a create or setData is its ctime/mtime, stamped into the command by the entry point
 * ({@link #withTime}) so that every replica of every partition uses the same value (the state
 * machine reads no clock). The path is not validated here (the tree answers BADARGUMENTS, the same
 * on every replica); a create mode flag ZooKeeper does not define is malformed, one it defines but
 * the model does not implement decodes and executes to UNIMPLEMENTED.
 *
 * <p>Immutable values (data arrays are copied in and out); safe from any thread, and nothing here
 * blocks. The constructors refuse a path or data beyond the bounds ({@link IllegalArgumentException}),
 * so every command encodes to bytes {@link #decode} accepts; {@link #decode} never throws: malformed
 * bytes give a {@link Decoded} with the reason.
 */
public sealed interface VoleryCommand
        permits Create, Delete, SetData, GetData, Exists, GetChildren, AddWatch, RemoveWatches, FrontEndCommand,
        Check, GlobalCommand {
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
    /** ZooKeeper's opcode for check (an operation of a multi). */
    byte OP_CHECK = 13;
    /** ZooKeeper's opcode for multi. */
    byte OP_MULTI = 14;
    /** Volery's opcode for a front end's watch poll (not a ZooKeeper opcode). */
    byte OP_WATCH_POLL = 100;
    /** Volery's opcode for a front end's watch drop (not a ZooKeeper opcode). */
    byte OP_WATCH_DROP = 101;
    /** Volery's opcode for addWatch, a persistent watch (ZooKeeper's own is 106). */
    byte OP_ADD_WATCH = 102;
    /** Volery's opcode for removeWatches (ZooKeeper's is 18). */
    byte OP_REMOVE_WATCHES = 103;
    /** Volery's opcode for a front end's session tick (not a ZooKeeper opcode). */
    byte OP_SESSION_TICK = 104;
    /** Volery's opcode for closeSession of a session the order knows (ZooKeeper's is -11). */
    byte OP_CLOSE_SESSION = 105;

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

    /**
     * Whether a replica may answer the command outside the order, as a query: a read that sets no
     * watch ({@link Exists}, {@link GetData}, {@link GetChildren} without a {@link #watcher()}), which
     * changes nothing, not even the watches. A read that sets a watch is ordered: the watch must be
     * registered at a point of the order, so that exactly the writes after it fire it.
     */
    default boolean isQuery() {
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
        return watches.onExecuted(this, reply);
    }

    /** The command's bytes ({@link VoleryCodec#encode}). */
    default byte[] encode() {
        return VoleryCodec.encode(this);
    }

    /** Decodes {@code bytes} ({@link VoleryCodec#decode(byte[])}). Never throws. */
    static Decoded decode(byte[] bytes) {
        return VoleryCodec.decode(bytes);
    }

    /**
     * Decodes the bytes from the buffer's position to its limit, without moving either
     * ({@link VoleryCodec#decode(ByteBuffer)}). Never throws.
     */
    static Decoded decode(ByteBuffer bytes) {
        return VoleryCodec.decode(bytes);
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
}
