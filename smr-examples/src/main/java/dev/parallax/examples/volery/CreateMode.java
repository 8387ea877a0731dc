package dev.parallax.examples.volery;

/**
 * ZooKeeper's create modes with their wire flag values ({@code org.apache.zookeeper.CreateMode}).
 * The data model implements the persistent and ephemeral modes (an ephemeral node belongs to a
 * session of {@link ZnodeSessions} and goes when it ends); a create with a container or TTL mode
 * answers {@link ZkCode#UNIMPLEMENTED}.
 *
 * <p>Immutable; safe from any thread.
 */
public enum CreateMode {
    /** A node that stays until deleted. */
    PERSISTENT(0, false, true),
    /** A node that goes when its session ends. */
    EPHEMERAL(1, false, true),
    /** A persistent node whose name gets the parent's cversion as a 10-digit suffix. */
    PERSISTENT_SEQUENTIAL(2, true, true),
    /** An ephemeral node whose name gets the parent's cversion as a 10-digit suffix. */
    EPHEMERAL_SEQUENTIAL(3, true, true),
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

    /** Whether the node belongs to its creator's session. */
    public boolean isEphemeral() {
        return this == EPHEMERAL || this == EPHEMERAL_SEQUENTIAL;
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
