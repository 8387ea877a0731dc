package dev.parallax.examples.volery;

import java.util.Arrays;
import java.util.Objects;

/**
 * setData(path, data, version) at {@code time} (ms, 0 if not stamped): a local command of the
 * path's partition (seed 004 (S-SMR / Eyrie / Volery) §V-B). Immutable (the data is copied in and
 * out); safe from any thread; never blocks.
 *
 * @param path    the node's path
 * @param data    the node's new data
 * @param version the version the node must have, or {@link ZnodeTree#ANY_VERSION}
 * @param time    the node's new mtime, stamped by the entry point ({@link #withTime})
 */
public record SetData(String path, byte[] data, int version, long time) implements VoleryCommand {
    /**
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path or data exceed the encoding's bounds
     */
    public SetData {
        data = CommandArguments.checkedCopy(path, data);
    }

    /** setData(path, data, version) without a time (0). */
    public SetData(String path, byte[] data, int version) {
        this(path, data, version, 0L);
    }

    /** A copy of the new data. */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /** The record's own array, not copied, for the codec; never modified. */
    byte[] dataNotCopied() {
        return data;
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
        return CommandArguments.describe("SetData", path, data, "v" + version, time);
    }
}
