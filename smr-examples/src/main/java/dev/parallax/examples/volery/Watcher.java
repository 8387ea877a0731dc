package dev.parallax.examples.volery;

/**
 * Who set a watch: the ZooKeeper front end (its server id, unique within a cluster) and the session
 * on it. A watch fires once, to this pair ({@link ZnodeWatches}).
 *
 * <p>Immutable; safe from any thread.
 *
 * @param frontEnd the front end's server id ({@code ZkServerConfig.serverId()}, 0..255)
 * @param session  the session's id
 */
public record Watcher(int frontEnd, long session) {
    /** The largest front-end id (ZooKeeper's server ids fit a byte in the session id). */
    public static final int MAX_FRONT_END = 255;

    /** @throws IllegalArgumentException if the front end is outside 0..{@link #MAX_FRONT_END} */
    public Watcher {
        if (frontEnd < 0 || frontEnd > MAX_FRONT_END) {
            throw new IllegalArgumentException("front end " + frontEnd + " outside 0.." + MAX_FRONT_END);
        }
    }
}
