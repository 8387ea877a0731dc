package dev.parallax.examples.volery;

/**
 * ZooKeeper's removeWatches of {@code watcher}'s watches of {@code type} on {@code path}
 * ({@link ZnodeWatches#remove}: 1 children, 2 data, 3 any), at every partition (a recursive watch
 * is held by each). Answers OK (whether a watch was there is the front end's answer, from what
 * it set); changes no znode and consumes no zxid. Immutable; safe from any thread; never blocks.
 *
 * @param path    the watched path
 * @param type    {@link ZnodeWatches#REMOVE_CHILDREN}, {@link ZnodeWatches#REMOVE_DATA} or
 *                {@link ZnodeWatches#REMOVE_ANY}
 * @param watcher whose watches are removed
 */
public record RemoveWatches(String path, int type, Watcher watcher) implements VoleryCommand {
    /**
     * @throws NullPointerException     if the path or watcher is null
     * @throws IllegalArgumentException if the type is not 1, 2 or 3, or the path exceeds the bounds
     */
    public RemoveWatches {
        CommandArguments.checkRegistration(path, watcher);
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
