package dev.parallax.examples.volery;

/**
 * delete(path, version): a global command, sent to every partition (seed 004 (S-SMR / Eyrie /
 * Volery) §V-B). Immutable; safe from any thread; never blocks.
 *
 * @param path    the node's path
 * @param version the version the node must have, or {@link ZnodeTree#ANY_VERSION}
 */
public record Delete(String path, int version) implements VoleryCommand {
    /**
     * @throws NullPointerException if path is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    public Delete {
        CommandArguments.checkPath(path);
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

    /** Fires the watches of each deleted node (an ended session's ephemeral nodes), as its delete would. */
    static void fireDeleted(ZnodeWatches watches, java.util.List<String> deleted) {
        for (String path : deleted) {
            watches.onExecuted(new Delete(path, ZnodeTree.ANY_VERSION), ZkReply.ok());
        }
    }
}
