package dev.parallax.examples.volery.zk;

import org.apache.jute.Record;

/**
 * One reply to write: the request's xid, ZooKeeper's error code (0 for success), the response record
 * (null on an error or for operations that return nothing) and the zxid of the backend's reply
 * ({@link dev.parallax.examples.volery.ZkReply#zxid()}; 0 for a response the server answers itself),
 * which the connection folds into the zxid of its reply headers (the largest seen).
 *
 * <p>Immutable once built (the record is not touched after construction); safe to hand between threads.
 */
record ZkResponse(int xid, int err, Record body, long zxid) {
    /** An error reply. */
    static ZkResponse error(int xid, int err) {
        return new ZkResponse(xid, err, null, 0);
    }

    /** A success without a body (delete, closeSession, auth). */
    static ZkResponse ok(int xid) {
        return new ZkResponse(xid, 0, null, 0);
    }
}
