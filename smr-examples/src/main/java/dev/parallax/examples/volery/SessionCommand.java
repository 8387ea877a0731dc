package dev.parallax.examples.volery;

import java.util.ArrayList;
import java.util.List;

/**
 * A command on the replicated session table ({@link ZnodeSessions}): a {@link SessionTick} or a
 * {@link CloseSession}. Either may end sessions, whose ephemeral nodes it deletes, firing their
 * watches as their deletes would. Immutable; safe from any thread; never blocks.
 */
public sealed interface SessionCommand extends GlobalCommand permits SessionTick, CloseSession {
    /** Executes on {@code tree} at {@code zxid} and {@code time}, adding the nodes it deleted to {@code deleted}. */
    ZkReply applyTo(ZnodeTree tree, long zxid, long time, List<String> deleted);

    @Override
    default ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
        return applyTo(tree, zxid, time, new ArrayList<>());
    }

    @Override
    default ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
        List<String> deleted = new ArrayList<>();
        ZkReply reply = applyTo(tree, zxid, time, deleted);
        Delete.fireDeleted(watches, deleted);
        return reply;
    }
}
