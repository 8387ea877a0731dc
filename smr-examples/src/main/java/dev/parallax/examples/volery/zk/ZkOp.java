package dev.parallax.examples.volery.zk;

import java.util.HashMap;
import java.util.Map;

/**
 * ZooKeeper's request types ({@code org.apache.zookeeper.ZooDefs.OpCode}, 3.9) with the tag the
 * server's metrics count them under and whether the server implements them. A type ZooKeeper defines
 * but Volery does not implement is answered UNIMPLEMENTED and the connection goes on; a type outside
 * this list is answered UNIMPLEMENTED and the connection is closed, as ZooKeeper's
 * {@code UnimplementedRequestProcessor} does.
 *
 * <p>Immutable; safe from any thread.
 */
enum ZkOp {
    NOTIFICATION(0, "notification", false),
    CREATE(1, "create", true),
    DELETE(2, "delete", true),
    EXISTS(3, "exists", true),
    GET_DATA(4, "getData", true),
    SET_DATA(5, "setData", true),
    GET_ACL(6, "getACL", true),
    SET_ACL(7, "setACL", false),
    GET_CHILDREN(8, "getChildren", true),
    SYNC(9, "sync", true),
    PING(11, "ping", true),
    GET_CHILDREN2(12, "getChildren2", true),
    CHECK(13, "check", false),
    MULTI(14, "multi", true),
    CREATE2(15, "create2", true),
    RECONFIG(16, "reconfig", false),
    CHECK_WATCHES(17, "checkWatches", false),
    REMOVE_WATCHES(18, "removeWatches", false),
    CREATE_CONTAINER(19, "createContainer", true),
    DELETE_CONTAINER(20, "deleteContainer", false),
    CREATE_TTL(21, "createTTL", false),
    MULTI_READ(22, "multiRead", false),
    AUTH(100, "auth", true),
    SET_WATCHES(101, "setWatches", false),
    SASL(102, "sasl", false),
    GET_EPHEMERALS(103, "getEphemerals", false),
    GET_ALL_CHILDREN_NUMBER(104, "getAllChildrenNumber", false),
    SET_WATCHES2(105, "setWatches2", false),
    ADD_WATCH(106, "addWatch", false),
    WHO_AM_I(107, "whoAmI", false),
    CREATE_SESSION(-10, "createSession", false),
    CLOSE_SESSION(-11, "closeSession", true),
    ERROR(-1, "error", false);

    /** The metrics tag of a type ZooKeeper does not define. */
    static final String UNKNOWN_TAG = "unknown";

    private static final Map<Integer, ZkOp> BY_CODE = new HashMap<>();

    static {
        for (ZkOp op : values()) {
            BY_CODE.put(op.code, op);
        }
    }

    private final int code;
    private final String tag;
    private final boolean implemented;

    ZkOp(int code, String tag, boolean implemented) {
        this.code = code;
        this.tag = tag;
        this.implemented = implemented;
    }

    /** ZooKeeper's request type. */
    int code() {
        return code;
    }

    /** The metrics tag (ZooKeeper's name of the operation). */
    String tag() {
        return tag;
    }

    /** Whether the server implements the operation. */
    boolean implemented() {
        return implemented;
    }

    /** The operation of request type {@code code}, or null if ZooKeeper defines none. */
    static ZkOp of(int code) {
        return BY_CODE.get(code);
    }
}
