package dev.parallax.examples.volery;

/**
 * getData(path): a local command of the path's partition (seed 004 (S-SMR / Eyrie / Volery)
 * §V-B), which may set a data watch. Immutable; safe from any thread; never blocks.
 *
 * @param path    the node's path
 * @param watcher who sets a watch with this read, null for none
 */
public record GetData(String path, Watcher watcher) implements VoleryCommand {
    /**
     * @throws NullPointerException if path is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    public GetData {
        CommandArguments.checkPath(path);
    }

    /** The read without a watch. */
    public GetData(String path) {
        this(path, null);
    }

    /** Without a watch: a query ({@link VoleryCommand#isQuery()}). */
    @Override
    public boolean isQuery() {
        return watcher == null;
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
