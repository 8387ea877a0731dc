package dev.parallax.core.net;

import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.runtime.DatagramGroupConfig;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/**
 * The authentication trailer of a datagram group's datagrams: {@code epoch:8 counter:8 tag:16}
 * ({@link #TRAILER_BYTES}) after the datagram, where {@code tag} is HMAC-SHA256 truncated to 16
 * bytes (RFC 2104; truncation as RFC 4868 §2.3 allows) over every byte before it — header, body,
 * epoch and counter. The key is derived from the cluster secret for one group
 * ({@link ClusterSecret#derive}, {@code "parallax datagram group <channel>"}), so a datagram of one
 * group is never valid in another. The epoch is the sending port's incarnation, the counter its
 * datagrams in send order from 1; receivers refuse replays with a {@link ReplayWindow}.
 *
 * <p>Not thread-safe: one instance per thread (the port's sender stage seals, its receiver thread
 * verifies). Never blocks.
 */
final class DatagramAuthenticator {
    /** Bytes of the truncated tag. */
    static final int TAG_BYTES = 16;
    /** Bytes of the trailer: epoch, counter, tag. */
    static final int TRAILER_BYTES = 8 + 8 + TAG_BYTES;

    /** The largest UDP payload over IPv4. */
    private static final int MAX_UDP_PAYLOAD = 65_507;

    private final Mac mac;
    private final byte[] full = new byte[32];

    /** @throws IllegalStateException if the JDK has no HmacSHA256 */
    DatagramAuthenticator(ClusterSecret secret, String channel) {
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.derive("parallax datagram group " + channel), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /**
     * An authenticator for {@code channel}'s datagrams, or {@code null} if the group is not
     * authenticated ({@code mring.auth=none}).
     *
     * @throws IllegalStateException if the group is authenticated but {@code config} has no cluster
     *                               secret, or its packets leave no room for the trailer in a UDP datagram
     */
    static DatagramAuthenticator forGroup(ReplicaConfig config, String channel, DatagramGroupConfig group) {
        if (!group.authenticated()) {
            return null;
        }
        ClusterSecret secret = config.clusterSecret().orElseThrow(() -> new IllegalStateException("replica " + config.id()
                + ": datagram group '" + channel + "' is authenticated (mring.auth=hmac) but the cluster file names no "
                + "cluster secret: set cluster.secret to a file of random bytes every replica holds (./parallax certs "
                + "writes one), or mring.auth=none on an isolated test network only"));
        if (group.packetBytes() + TRAILER_BYTES > MAX_UDP_PAYLOAD) {
            throw new IllegalStateException("datagram group '" + channel + "': mring.packet.bytes " + group.packetBytes()
                    + " leaves no room for the " + TRAILER_BYTES + "-byte authentication trailer (at most "
                    + (MAX_UDP_PAYLOAD - TRAILER_BYTES) + " with mring.auth=hmac)");
        }
        return new DatagramAuthenticator(secret, channel);
    }

    /**
     * Fills the trailer of {@code d}, a datagram whose last {@link #TRAILER_BYTES} bytes (before its
     * limit) are reserved for it: writes {@code epoch} and {@code counter}, then the tag. Absolute
     * writes; the position and limit stay.
     */
    void seal(ByteBuffer d, long epoch, long counter) {
        int end = d.limit();
        int trailer = end - TRAILER_BYTES;
        d.putLong(trailer, epoch).putLong(trailer + 8, counter);
        ByteBuffer signed = d.duplicate().limit(end - TAG_BYTES);
        mac.update(signed);
        finish();
        d.put(end - TAG_BYTES, full, 0, TAG_BYTES);
    }

    /**
     * Whether the trailer of {@code d} (its last {@link #TRAILER_BYTES} bytes before the limit) holds
     * the right tag for everything before the tag. Compares in constant time. Does not move {@code d}.
     */
    boolean verify(ByteBuffer d) {
        int end = d.limit();
        if (end - d.position() < TRAILER_BYTES) {
            return false;
        }
        mac.update(d.duplicate().limit(end - TAG_BYTES));
        finish();
        int diff = 0;
        for (int i = 0; i < TAG_BYTES; i++) {
            diff |= full[i] ^ d.get(end - TAG_BYTES + i);
        }
        return diff == 0;
    }

    /** The epoch of a verified datagram {@code d}. */
    static long epoch(ByteBuffer d) {
        return d.getLong(d.limit() - TRAILER_BYTES);
    }

    /** The counter of a verified datagram {@code d}. */
    static long counter(ByteBuffer d) {
        return d.getLong(d.limit() - TRAILER_BYTES + 8);
    }

    private void finish() {
        try {
            mac.doFinal(full, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 output", e);
        }
    }
}
