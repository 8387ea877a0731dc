package dev.parallax.examples.volery;

/**
 * ZooKeeper's create modes with their wire flag values ({@code org.apache.zookeeper.CreateMode}).
 * The data model implements {@link #PERSISTENT} and {@link #PERSISTENT_SEQUENTIAL}; a create with any
 * other mode answers {@link ZkCode#UNIMPLEMENTED} (Volery has no sessions in its state, so no
 * ephemeral nodes, and no TTLs or containers).
 *
 * <p>Immutable; safe from any thread.
 */
public enum CreateMode {
    /** A node that stays until deleted. */
    PERSISTENT(0, false, true),
    /** A session-bound node (not implemented). */
    EPHEMERAL(1, false, false),
    /** A persistent node whose name gets the parent's cversion as a 10-digit suffix. */
    PERSISTENT_SEQUENTIAL(2, true, true),
    /** A session-bound sequential node (not implemented). */
    EPHEMERAL_SEQUENTIAL(3, true, false),
    /** A container node (not implemented). */
    CONTAINER(4, false, false),
    /** A persistent node with a TTL (not implemented). */
    PERSISTENT_WITH_TTL(5, false, false),
    /** A persistent sequential node with a TTL (not implemented). */
    PERSISTENT_SEQUENTIAL_WITH_TTL(6, true, false);

    private final int flag;
    private final boolean sequential;
    private final boolean supported;

    CreateMode(int flag, boolean sequential, boolean supported) {
        this.flag = flag;
        this.sequential = sequential;
        this.supported = supported;
    }

    /** ZooKeeper's wire flag. */
    public int flag() {
        return flag;
    }

    /** Whether the created name gets a sequence suffix. */
    public boolean isSequential() {
        return sequential;
    }

    /** Whether the data model implements this mode. */
    public boolean isSupported() {
        return supported;
    }

    /** The mode with wire flag {@code flag}, or null if ZooKeeper has none. */
    public static CreateMode fromFlag(int flag) {
        for (CreateMode m : values()) {
            if (m.flag == flag) {
                return m;
            }
        }
        return null;
    }
}
