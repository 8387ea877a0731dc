package dev.parallax.examples.volery.zk;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Session passwords that prove themselves: a password is the session's time-out and a MAC of the
 * session id and that time-out under a secret, so any server holding the secret checks a password it
 * did not hand out, with no shared session table. Layout (16 bytes, ZooKeeper's password length):
 * {@code int timeoutMs} (big-endian) then the first 12 bytes of
 * {@code HmacSHA256(secret, long sessionId || int timeoutMs)} (96 bits, as RFC 2104 §5's truncation
 * allows). The time-out is in clear: it is what the server that created the session negotiated, and
 * a server taking the session over needs it; the MAC stops a client from changing it.
 *
 * <p><b>Threads.</b> Thread-safe (the one {@link Mac} is used under this object's lock); never blocks
 * beyond that.
 */
final class ZkSessionPasswords {
    /** The length of every password. */
    static final int PASSWORD_BYTES = 16;
    /** The shortest secret accepted (128 bits). */
    static final int MIN_SECRET_BYTES = 16;

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MAC_BYTES = PASSWORD_BYTES - 4;

    private final Mac mac;

    /** Passwords under {@code secret} (at least {@value #MIN_SECRET_BYTES} bytes; copied). */
    ZkSessionPasswords(byte[] secret) {
        if (secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("a session secret needs " + MIN_SECRET_BYTES + " bytes at least: "
                    + secret.length);
        }
        try {
            mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.clone(), ALGORITHM));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is missing from this JDK", e);
        }
    }

    /** Passwords under a fresh random 256-bit secret that no other server knows. */
    static ZkSessionPasswords random() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return new ZkSessionPasswords(secret);
    }

    /** The password of session {@code id} with time-out {@code timeoutMs}. */
    synchronized byte[] password(long id, int timeoutMs) {
        byte[] tag = mac.doFinal(ByteBuffer.allocate(12).putLong(id).putInt(timeoutMs).array());
        return ByteBuffer.allocate(PASSWORD_BYTES).putInt(timeoutMs).put(tag, 0, MAC_BYTES).array();
    }

    /**
     * The time-out that {@code password} grants session {@code id}, or -1 if it is not a password this
     * secret made for that id (wrong length, wrong MAC, or a time-out below 1). Compares in constant time.
     */
    int timeoutOf(long id, byte[] password) {
        if (password == null || password.length != PASSWORD_BYTES) {
            return -1;
        }
        int timeoutMs = ByteBuffer.wrap(password).getInt();
        byte[] expected = password(id, timeoutMs);
        return MessageDigest.isEqual(Arrays.copyOfRange(expected, 4, PASSWORD_BYTES),
                Arrays.copyOfRange(password, 4, PASSWORD_BYTES)) && timeoutMs > 0 ? timeoutMs : -1;
    }
}
