package dev.parallax.examples.volery;

/**
 * A front end's drop of a session's watches and queued events at partition {@code partition}
 * ({@link ZnodeWatches#drop}; {@link #ALL_SESSIONS}: every session of the front end, which it sends
 * before its first watch there). Answers OK. Immutable; safe from any thread; never blocks.
 *
 * @param partition the partition that drops them
 * @param frontEnd  the front end's server id
 * @param session   the session whose watches are dropped, or {@link #ALL_SESSIONS}
 */
public record WatchDrop(int partition, int frontEnd, long session) implements FrontEndCommand {
    /** The session value that drops every session of the front end (no session has this id). */
    public static final long ALL_SESSIONS = Long.MIN_VALUE;

    /** @throws IllegalArgumentException if an argument is out of range */
    public WatchDrop {
        FrontEndCommand.check("watch drop", partition, frontEnd, session);
    }

    @Override
    public byte opcode() {
        return OP_WATCH_DROP;
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
        return ZkReply.ok();
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
        watches.drop(frontEnd, session);
        return ZkReply.ok();
    }
}
