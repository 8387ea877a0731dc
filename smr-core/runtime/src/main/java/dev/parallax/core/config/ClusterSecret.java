package dev.parallax.core.config;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The cluster secret: random bytes every replica of a cluster holds and no one else does
 * ({@code cluster.secret}, a file {@code ./parallax certs} writes), the key of what replicas
 * authenticate among themselves without TLS (the datagram group's HMAC). Each use derives a key of
 * its own ({@link #derive}), so one use's tags are never valid for another. {@link #toString} never
 * shows the bytes.
 *
 * <p>Immutable and thread-safe; {@link #read} blocks on the file system.
 */
public final class ClusterSecret {
    /** Fewest bytes a secret may have. */
    public static final int MIN_BYTES = 16;
    /** Bytes of a generated secret. */
    public static final int GENERATED_BYTES = 32;

    private final byte[] bytes;

    private ClusterSecret(byte[] bytes) {
        if (bytes.length < MIN_BYTES) {
            throw new IllegalArgumentException("a cluster secret needs at least " + MIN_BYTES + " bytes, got " + bytes.length);
        }
        this.bytes = bytes.clone();
    }

    /**
     * A secret of these bytes (copied).
     *
     * @throws IllegalArgumentException if shorter than {@value #MIN_BYTES} bytes
     */
    public static ClusterSecret of(byte[] bytes) {
        return new ClusterSecret(bytes);
    }

    /** A new secret of {@value #GENERATED_BYTES} bytes from a {@link SecureRandom}. */
    public static ClusterSecret random() {
        byte[] b = new byte[GENERATED_BYTES];
        new SecureRandom().nextBytes(b);
        return new ClusterSecret(b);
    }

    /**
     * The secret in {@code file}: its bytes, as written.
     *
     * @throws IllegalArgumentException naming the file if it is missing, unreadable or too short
     */
    public static ClusterSecret read(Path file) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the cluster secret: " + e, e);
        }
        try {
            return new ClusterSecret(b);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The key of one use of the secret: HMAC-SHA256 of {@code purpose} under the secret (a fixed-input
     * key derivation, as HKDF-Expand with one block), 32 bytes.
     */
    public byte[] derive(String purpose) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
            return mac.doFinal(purpose.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** The raw bytes (a copy), to write the secret to a file. */
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterSecret s && java.security.MessageDigest.isEqual(bytes, s.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(derive("hash"));
    }

    /** {@code ClusterSecret[n bytes]}: never the bytes. */
    @Override
    public String toString() {
        return "ClusterSecret[" + bytes.length + " bytes]";
    }
}
