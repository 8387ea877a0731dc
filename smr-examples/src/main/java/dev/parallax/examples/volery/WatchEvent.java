package dev.parallax.examples.volery;

import java.util.Objects;

/**
 * A fired ZooKeeper watch, as a Volery partition queues it for the front end that holds the watching
 * session ({@link ZnodeWatches}): ZooKeeper's event type, the znode's path, the session, and the
 * partition's sequence number for that front end (increasing by one per event, from 1).
 *
 * <p>Immutable; safe from any thread.
 *
 * @param seq     the event's number among the events this partition queued for the front end
 * @param session the watching session's id
 * @param type    ZooKeeper's {@code Watcher.Event.EventType} code: {@link #NODE_CREATED},
 *                {@link #NODE_DELETED}, {@link #NODE_DATA_CHANGED} or {@link #NODE_CHILDREN_CHANGED};
 *                or {@link #FRONT_END_RESET}, the partition's own
 * @param path    the znode the event is about
 */
public record WatchEvent(long seq, long session, int type, String path) {
    /** ZooKeeper's NodeCreated. */
    public static final int NODE_CREATED = 1;
    /**
     * Not a ZooKeeper event: the partition's queue for this front end overflowed, and it forgot every
     * watch and event of the front end (session {@link WatchDrop#ALL_SESSIONS}, path "/"); the front end
     * resets its sessions' connections so that their clients re-register ({@link ZnodeWatches}).
     */
    public static final int FRONT_END_RESET = 0;
    /** ZooKeeper's NodeDeleted. */
    public static final int NODE_DELETED = 2;
    /** ZooKeeper's NodeDataChanged. */
    public static final int NODE_DATA_CHANGED = 3;
    /** ZooKeeper's NodeChildrenChanged. */
    public static final int NODE_CHILDREN_CHANGED = 4;

    /**
     * @throws NullPointerException     if path is null
     * @throws IllegalArgumentException if the type is not one of the five
     */
    public WatchEvent {
        Objects.requireNonNull(path, "path");
        if (type < FRONT_END_RESET || type > NODE_CHILDREN_CHANGED) {
            throw new IllegalArgumentException("unknown watch event type " + type);
        }
    }
}
