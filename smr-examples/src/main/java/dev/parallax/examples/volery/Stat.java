package dev.parallax.examples.volery;

/**
 * A znode's metadata, ZooKeeper's {@code org.apache.zookeeper.data.Stat} field for field (in that
 * record's order): the zxid that created the node ({@code czxid}), last modified its data
 * ({@code mzxid}), and last changed its children ({@code pzxid}); creation and data-modification
 * times in milliseconds as supplied by the caller; data, children and ACL versions; the ephemeral
 * owner (always 0: the model has no ephemeral nodes); the data length and the number of children.
 *
 * <p>Immutable value; safe from any thread.
 */
public record Stat(long czxid, long mzxid, long ctime, long mtime, int version, int cversion, int aversion,
                   long ephemeralOwner, int dataLength, int numChildren, long pzxid) {
}
