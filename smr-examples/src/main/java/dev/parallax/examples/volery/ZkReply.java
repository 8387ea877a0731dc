package dev.parallax.examples.volery;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The result of one znode operation: a {@link ZkCode} and, on success, what the operation returns in
 * ZooKeeper — the created path (create), the data (getData), the node's {@link Stat} (setData,
 * getData, exists, getChildren) and the sorted child names (getChildren). Fields an operation does
 * not return are null. On an error every field but the code is null.
 *
 * <p>Immutable (the data array is copied in and out); safe from any thread. Equal replies have equal
 * fields, data compared by content.
 */
public final class ZkReply {
    private static final ZkReply OK_EMPTY = new ZkReply(ZkCode.OK, null, null, null, null);

    private final ZkCode code;
    private final String path;
    private final byte[] data;
    private final Stat stat;
    private final List<String> children;

    private ZkReply(ZkCode code, String path, byte[] data, Stat stat, List<String> children) {
        this.code = Objects.requireNonNull(code, "code");
        this.path = path;
        this.data = data;
        this.stat = stat;
        this.children = children;
    }

    /** An error reply. @throws IllegalArgumentException if {@code code} is {@link ZkCode#OK} */
    public static ZkReply error(ZkCode code) {
        if (code == ZkCode.OK) {
            throw new IllegalArgumentException("an error reply needs an error code");
        }
        return new ZkReply(code, null, null, null, null);
    }

    /** A success without a result (delete). */
    public static ZkReply ok() {
        return OK_EMPTY;
    }

    /** A create's success: the path it created. */
    public static ZkReply created(String path) {
        return new ZkReply(ZkCode.OK, Objects.requireNonNull(path, "path"), null, null, null);
    }

    /** A success returning a node's stat (setData, exists). */
    public static ZkReply stat(Stat stat) {
        return new ZkReply(ZkCode.OK, null, null, Objects.requireNonNull(stat, "stat"), null);
    }

    /** A getData success. */
    public static ZkReply data(byte[] data, Stat stat) {
        return new ZkReply(ZkCode.OK, null, data.clone(), Objects.requireNonNull(stat, "stat"), null);
    }

    /** A getChildren success. */
    public static ZkReply children(List<String> children, Stat stat) {
        return new ZkReply(ZkCode.OK, null, null, Objects.requireNonNull(stat, "stat"), List.copyOf(children));
    }

    /** The result code. */
    public ZkCode code() {
        return code;
    }

    /** Whether the code is {@link ZkCode#OK}. */
    public boolean isOk() {
        return code == ZkCode.OK;
    }

    /** The created path (create), else null. */
    public String path() {
        return path;
    }

    /** A copy of the data (getData), else null. */
    public byte[] data() {
        return data == null ? null : data.clone();
    }

    /** The node's stat (setData, getData, exists, getChildren), else null. */
    public Stat stat() {
        return stat;
    }

    /** The child names in ascending order (getChildren), else null. */
    public List<String> children() {
        return children;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ZkReply r && code == r.code && Objects.equals(path, r.path) && Arrays.equals(data, r.data)
                && Objects.equals(stat, r.stat) && Objects.equals(children, r.children);
    }

    @Override
    public int hashCode() {
        return Objects.hash(code, path, Arrays.hashCode(data), stat, children);
    }

    @Override
    public String toString() {
        return "ZkReply[" + code + (path == null ? "" : " path=" + path)
                + (data == null ? "" : " data=" + data.length + "B") + (stat == null ? "" : " " + stat)
                + (children == null ? "" : " children=" + children) + "]";
    }
}
