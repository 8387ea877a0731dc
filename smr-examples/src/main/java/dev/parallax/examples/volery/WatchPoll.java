package dev.parallax.examples.volery;

import java.util.List;

/**
 * A front end's poll of partition {@code partition} for the watch events queued for it
 * ({@link ZnodeWatches#poll}): events numbered up to {@code acked} were delivered and are
 * forgotten; the answer is {@link ZkReply#events} with the next ones. Immutable; safe from any
 * thread; never blocks.
 *
 * @param partition the partition polled
 * @param frontEnd  the polling front end's server id
 * @param acked     the last event number the front end delivered, 0 for none
 */
public record WatchPoll(int partition, int frontEnd, long acked) implements FrontEndCommand {
    /** @throws IllegalArgumentException if an argument is out of range (acked negative included) */
    public WatchPoll {
        FrontEndCommand.check("watch poll", partition, frontEnd, acked);
        if (acked < 0) {
            throw new IllegalArgumentException("watch poll acknowledges " + acked);
        }
    }

    @Override
    public byte opcode() {
        return OP_WATCH_POLL;
    }

    /** On a tree without watches: no events. */
    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time) {
        return ZkReply.events(List.of());
    }

    @Override
    public ZkReply applyTo(ZnodeTree tree, ZnodeWatches watches, long zxid, long time) {
        return ZkReply.events(watches.poll(frontEnd, acked));
    }
}
