package dev.parallax.core.replica;

import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The authentication of snapshot streams under the cluster secret, and the rule of which replicas
 * use it ({@link #forReplica}).
 *
 * <p><b>The stream.</b> A fetching replica puts a fresh random nonce of {@value #NONCE_BYTES}
 * bytes in its {@code SNAPSHOT_REQUEST} ({@code atLeast:8 nonce:16}); the serving replica answers
 * with the file's CHUNK frames and an END frame {@code totalBytes:8 tag:32}, where {@code tag} is
 * HMAC-SHA256 (RFC 2104) under {@link ClusterSecret#derive derive}{@code ("parallax snapshot
 * transfer")} of
 * <pre>
 *   nonce:16 | server:4 | atLeast:8 | every byte of the file, in order | totalBytes:8
 * </pre>
 * ({@code server} the serving replica's id), computed as the chunks go out. The fetcher computes
 * the same over what it received and installs the file only if the tags are equal
 * ({@link MessageDigest#isEqual}, constant time). The file's header (the instance the snapshot
 * covers) is part of the file, so it is covered too. Only the holders of the secret can make a
 * valid tag; the nonce makes a recorded stream worthless for any other fetch, and the server id
 * makes a stream from one replica worthless when another was asked. An END that says the peer has
 * no recent enough snapshot carries a tag as well. The tag authenticates; it does not hide the
 * snapshot from those on the path (that takes {@code tls.client=on}).
 *
 * <p>Immutable and thread-safe; every {@link #begin} returns a {@link Mac} of its own (one per
 * stream, not thread-safe). Never blocks.
 */
final class SnapshotAuthenticator {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotAuthenticator.class);
    /** What the key is derived for ({@link ClusterSecret#derive}). */
    static final String PURPOSE = "parallax snapshot transfer";
    /** Bytes of the fetcher's nonce in an authenticated request. */
    static final int NONCE_BYTES = 16;
    /** Bytes of the tag in an authenticated END. */
    static final int TAG_BYTES = 32;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    /** Streams authenticated under {@code secret}. */
    SnapshotAuthenticator(ClusterSecret secret) {
        this.key = new SecretKeySpec(secret.derive(PURPOSE), "HmacSHA256");
    }

    /**
     * How replica {@code config}'s snapshot fetches are authenticated:
     * <ul>
     *   <li>with a cluster secret: by the tag (returned), whatever the TLS settings;</li>
     *   <li>without one, and TLS on the client ports ({@code tls.client=on}): by the peer's
     *       certificate, which must name the replica asked ({@code null} returned);</li>
     *   <li>without one, and {@code tls.replica=required} but a plain client port: not at all, so
     *       the replica refuses to start (anyone on the path could install any state through a
     *       snapshot while the replica links are authenticated);</li>
     *   <li>without one and without any TLS, a cluster that authenticates nothing: unauthenticated
     *       ({@code null}), with a warning;</li>
     *   <li>without a data directory the replica keeps and fetches no snapshots: {@code null}.</li>
     * </ul>
     *
     * @throws IllegalStateException naming {@code cluster.secret} and {@code tls.client} in the
     *                               third case
     */
    static SnapshotAuthenticator forReplica(ReplicaConfig config) {
        if (config.clusterSecret().isPresent()) {
            return new SnapshotAuthenticator(config.clusterSecret().get());
        }
        TlsConfig tls = config.tls();
        if (config.dataDirectory().isEmpty() || tls.clientPorts()) {
            return null;
        }
        if (tls.replicaPort()) {
            throw new IllegalStateException("replica " + config.id() + ": tls.replica=required but tls.client=off and no "
                    + "cluster.secret: snapshots travel over the plain client port and could not be authenticated. Set "
                    + "cluster.secret to a file of random bytes every replica holds (./parallax certs writes one), or "
                    + "tls.client=on");
        }
        LOG.warn("replica {}: no TLS and no cluster.secret: snapshots fetched from peers are not authenticated (nor is "
                + "anything else in this cluster); set cluster.secret or TLS outside isolated test networks", config.id());
        return null;
    }

    /** A fresh random nonce for one request. */
    byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        random.nextBytes(n);
        return n;
    }

    /**
     * Starts the tag of the stream that answers {@code nonce} from replica {@code server} for
     * {@code atLeast}: feed it the file's bytes in order, then {@link #finish} it.
     */
    Mac begin(byte[] nonce, int server, long atLeast) {
        Mac mac;
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
        mac.update(nonce);
        mac.update(ByteBuffer.allocate(12).putInt(server).putLong(atLeast).flip());
        return mac;
    }

    /** The tag of a stream begun with {@link #begin} that carried {@code total} file bytes. */
    static byte[] finish(Mac mac, long total) {
        mac.update(ByteBuffer.allocate(8).putLong(total).flip());
        return mac.doFinal();
    }

    /** Whether two tags are equal, in time independent of where they differ. */
    static boolean matches(byte[] expected, byte[] received) {
        return MessageDigest.isEqual(expected, received);
    }
}
