package dev.parallax.examples.volery;

/**
 * getChildren(path): a local command of the path's partition (every partition knows the
 * hierarchy; seed 004 (S-SMR / Eyrie / Volery) §V-B), which may set a child watch. Immutable; safe
 * from any thread; never blocks.
 *
 * @param path    the node's path
 * @param watcher who sets a watch with this read, null for none
 */
public record GetChildren(String path, Watcher watcher) implements VoleryCommand {
    /**
     * @throws NullPointerException if path is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    public GetChildren {
        CommandArguments.checkPath(path);
    }

    /** The read without a watch. */
    public GetChildren(String path) {
        this(path, null);
    }

    /** Without a watch: a query ({@link VoleryCommand#isQuery()}). */
    @Override
    public boolean isQuery() {
        return watcher == null;
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
