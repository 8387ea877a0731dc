package dev.parallax.examples.volery;

/**
 * check(path, version), an operation of a {@link Multi} (ZooKeeper's {@code Op.check}): OK if the node
 * exists with that version (or any, with {@link ZnodeTree#ANY_VERSION}), else NONODE or BADVERSION;
 * changes nothing. Alone it executes as a read at the path's owner. Immutable; safe from any thread;
 * never blocks.
 *
 * @param path    the node's path
 * @param version the version the node must have, or {@link ZnodeTree#ANY_VERSION}
 */
public record Check(String path, int version) implements VoleryCommand {
    /**
     * @throws NullPointerException if path is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    public Check {
        CommandArguments.checkPath(path);
    }

    @Override
    public byte opcode() {
        return OP_CHECK;
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
        ZkReply node = tree.exists(path);
        if (!node.isOk()) {
            return node.withZxid(zxid);
        }
        return (version == ZnodeTree.ANY_VERSION || version == node.stat().version() ? ZkReply.ok()
                : ZkReply.error(ZkCode.BADVERSION)).withZxid(zxid);
    }
}
