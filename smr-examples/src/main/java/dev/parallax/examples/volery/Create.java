package dev.parallax.examples.volery;

import java.util.Arrays;
import java.util.Objects;

/**
 * create(path, data, mode) at {@code time} (ms, 0 if not stamped): a global command, sent to every
 * partition (seed 004 (S-SMR / Eyrie / Volery) §V-B). An ephemeral create names the session that
 * will own the node and that session's time-out ({@link ZnodeSessions} registers the session with its
 * first ephemeral node). Immutable (the data is copied in and out); safe from any thread; never blocks.
 *
 * @param path      the node's path, for a sequential mode the prefix of its name
 * @param data      the node's data
 * @param mode      how the node is created
 * @param time      the node's ctime and mtime, stamped by the entry point ({@link #withTime})
 * @param owner     the owning session of an ephemeral node (0 for the persistent modes)
 * @param timeoutMs the owning session's time-out (0 for the persistent modes)
 */
public record Create(String path, byte[] data, CreateMode mode, long time, long owner, int timeoutMs)
        implements VoleryCommand {
    /**
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path or data exceed the encoding's bounds, or the owner
     *                                  and time-out do not fit the mode (an ephemeral node needs a
     *                                  session and a positive time-out, a persistent one neither)
     */
    public Create {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(mode, "mode");
        data = CommandArguments.checkedCopy(path, data);
        if (mode.isEphemeral() ? owner == 0 || timeoutMs <= 0 : owner != 0 || timeoutMs != 0) {
            throw new IllegalArgumentException("a " + mode + " create with owner 0x" + Long.toHexString(owner)
                    + " and time-out " + timeoutMs);
        }
    }

    /** A persistent-mode create(path, data, mode) at {@code time}. */
    public Create(String path, byte[] data, CreateMode mode, long time) {
        this(path, data, mode, time, 0L, 0);
    }

    /** A persistent-mode create(path, data, mode) without a time (0). */
    public Create(String path, byte[] data, CreateMode mode) {
        this(path, data, mode, 0L);
    }

    /** An ephemeral create owned by session {@code owner} with time-out {@code timeoutMs}, without a time. */
    public static Create ephemeral(String path, byte[] data, boolean sequential, long owner, int timeoutMs) {
        return new Create(path, data, sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL, 0L, owner,
                timeoutMs);
    }

    /** A copy of the node's data. */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /** The record's own array, not copied, for the codec; never modified. */
    byte[] dataNotCopied() {
        return data;
    }

    @Override
    public Create withTime(long time) {
        return new Create(path, data, mode, time, owner, timeoutMs);
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
        return tree.create(path, data, mode, owner, timeoutMs, zxid, time);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Create c && path.equals(c.path) && Arrays.equals(data, c.data) && mode == c.mode
                && time == c.time && owner == c.owner && timeoutMs == c.timeoutMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, Arrays.hashCode(data), mode, time, owner, timeoutMs);
    }

    @Override
    public String toString() {
        String base = CommandArguments.describe("Create", path, data, mode, time);
        return owner == 0 ? base : base + " owner=0x" + Long.toHexString(owner) + " timeout=" + timeoutMs;
    }
}
