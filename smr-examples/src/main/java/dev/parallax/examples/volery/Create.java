package dev.parallax.examples.volery;

import java.util.Arrays;
import java.util.Objects;

/**
 * create(path, data, mode) at {@code time} (ms, 0 if not stamped): a global command, sent to every
 * partition (seed 004 (S-SMR / Eyrie / Volery) §V-B). Immutable (the data is copied in and out);
 * safe from any thread; never blocks.
 *
 * @param path the node's path, for a sequential mode the prefix of its name
 * @param data the node's data
 * @param mode how the node is created
 * @param time the node's ctime and mtime, stamped by the entry point ({@link #withTime})
 */
public record Create(String path, byte[] data, CreateMode mode, long time) implements VoleryCommand {
    /**
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path or data exceed the encoding's bounds
     */
    public Create {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(mode, "mode");
        data = CommandArguments.checkedCopy(path, data);
    }

    /** create(path, data, mode) without a time (0). */
    public Create(String path, byte[] data, CreateMode mode) {
        this(path, data, mode, 0L);
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
        return CommandArguments.describe("Create", path, data, mode, time);
    }
}
