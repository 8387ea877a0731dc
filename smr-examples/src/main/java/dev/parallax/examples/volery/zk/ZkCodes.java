package dev.parallax.examples.volery.zk;

/**
 * ZooKeeper's error codes ({@code org.apache.zookeeper.KeeperException.Code}) that the front end itself
 * answers; the data model's own codes come from {@link dev.parallax.examples.volery.ZkCode}.
 *
 * <p>Constants only.
 */
final class ZkCodes {
    /** A server-side failure the client cannot do anything about. */
    static final int SYSTEMERROR = -1;
    /** The connection to the service was lost: the operation may or may not have executed. */
    static final int CONNECTIONLOSS = -4;
    /** The operation is not implemented. */
    static final int UNIMPLEMENTED = -6;
    /** Invalid arguments. */
    static final int BADARGUMENTS = -8;
    /** An ACL other than the open one. */
    static final int INVALIDACL = -114;
    /** Authentication failed (a scheme without a provider). */
    static final int AUTHFAILED = -115;
    /** removeWatches or checkWatches found no such watch. */
    static final int NOWATCHER = -121;

    /** The request id of a ping. */
    static final int PING_XID = -2;
    /** The request id of an authentication packet. */
    static final int AUTH_XID = -4;

    private ZkCodes() {
    }
}
