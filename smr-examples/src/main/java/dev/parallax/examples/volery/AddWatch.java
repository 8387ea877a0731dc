package dev.parallax.examples.volery;

/**
 * A persistent watch of {@code watcher} on {@code path} (ZooKeeper 3.6's addWatch;
 * {@link ZnodeWatches#addPersistent}): non-recursive to the path's owner, recursive to every
 * partition (the owner of each changed descendant fires it). Answers OK, BADARGUMENTS for an
 * invalid path; changes no znode and consumes no zxid. Immutable; safe from any thread; never
 * blocks.
 *
 * @param path      the watched path
 * @param recursive whether the watch covers the path's descendants too
 * @param watcher   who holds the watch
 */
public record AddWatch(String path, boolean recursive, Watcher watcher) implements VoleryCommand {
    /**
     * @throws NullPointerException     if the path or watcher is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    public AddWatch {
        CommandArguments.checkRegistration(path, watcher);
    }

    @Override
    public byte opcode() {
        return OP_ADD_WATCH;
    }

    @Override
    public boolean toEveryPartition() {
        return recursive;
    }

    /** A tree alone holds no watches: OK for a valid path. */
    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
        return ZkPaths.isValid(path) ? ZkReply.ok() : ZkReply.error(ZkCode.BADARGUMENTS);
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
        ZkReply reply = applyTo(tree, zxid, time);
        if (reply.isOk() && !watches.addPersistent(path, recursive, watcher)) {
            return ZkReply.error(ZkCode.THROTTLEDOP);
        }
        return reply;
    }
}
