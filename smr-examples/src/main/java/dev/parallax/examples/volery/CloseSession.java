package dev.parallax.examples.volery;

import java.util.List;

/**
 * closeSession for a session the order knows (ZooKeeper's closeSession transaction): a global
 * command that ends the session at every partition and deletes its ephemeral nodes, firing their
 * watches ({@link ZnodeSessions}). OK. Immutable; safe from any thread; never blocks.
 *
 * @param session the session id
 * @param time    the front end's wall clock (ms), stamped by the entry point ({@link #withTime})
 */
public record CloseSession(long session, long time) implements SessionCommand {
    /** closeSession of {@code session}, without a time. */
    public CloseSession(long session) {
        this(session, 0L);
    }

    @Override
    public byte opcode() {
        return OP_CLOSE_SESSION;
    }

    @Override
    public CloseSession withTime(long time) {
        return new CloseSession(session, time);
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time, List<String> deleted) {
        return tree.closeSession(session, zxid, time, deleted);
    }
}
