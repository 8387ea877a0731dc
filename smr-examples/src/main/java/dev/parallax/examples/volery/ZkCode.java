package dev.parallax.examples.volery;

/**
 * The result code of a znode operation, with ZooKeeper's numeric value
 * ({@code org.apache.zookeeper.KeeperException.Code}), so that a front end speaking ZooKeeper's wire
 * protocol can put {@link #code()} in the reply header unchanged. Only the codes the data model
 * produces are listed.
 *
 * <p>Immutable; safe from any thread.
 */
public enum ZkCode {
    /** The operation succeeded. */
    OK(0),
    /**
     * A {@link Multi}'s operation after the one that failed: not executed (ZooKeeper's
     * RUNTIMEINCONSISTENCY in a multi's results).
     */
    RUNTIMEINCONSISTENCY(-2),
    /**
     * A request or reply could not be decoded: malformed command bytes at a partition, or reply
     * bytes {@link ZkReply#decode} cannot read (ZooKeeper's MARSHALLINGERROR).
     */
    MARSHALLINGERROR(-5),
    /** The operation is not implemented (container and TTL create modes). */
    UNIMPLEMENTED(-6),
    /** Malformed arguments: a path that ZooKeeper's path rules reject, deleting the root. */
    BADARGUMENTS(-8),
    /** The znode (or, for create, its parent) does not exist. */
    NONODE(-101),
    /** The expected version does not match the znode's version. */
    BADVERSION(-103),
    /** The parent of the znode to create is ephemeral. */
    NOCHILDRENFOREPHEMERALS(-108),
    /** The znode to create already exists. */
    NODEEXISTS(-110),
    /** The znode to delete has children. */
    NOTEMPTY(-111),
    /** The session that would own an ephemeral znode has expired or been closed ({@link ZnodeSessions}). */
    SESSIONEXPIRED(-112),
    /**
     * Not executed: a read or addWatch that would set a watch past the partition's bound on watches
     * ({@link ZnodeWatches}); ZooKeeper's THROTTLEDOP ("throttled and not executed at all; retry with
     * back-off"), which the official client raises as {@code KeeperException.ThrottledOpException}.
     */
    THROTTLEDOP(-127);

    private final int code;

    ZkCode(int code) {
        this.code = code;
    }

    /** ZooKeeper's numeric code. */
    public int code() {
        return code;
    }

    /** The constant with numeric code {@code code}, or null if the model has none. */
    public static ZkCode fromCode(int code) {
        for (ZkCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return null;
    }
}
