package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterSecret;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Authentication of the admin endpoint's mutating requests ({@code parallax admin add},
 * {@code remove}, {@code snapshot}, ...) under the cluster secret: the operator's CLI, which reads
 * the same cluster file and secret file as the replicas, sends the request time in
 * {@value #TIME_HEADER} (milliseconds since the epoch) and in {@value #SIGNATURE_HEADER} the hex
 * HMAC-SHA256, under a key derived from {@code cluster.secret} for this use alone
 * ({@link ClusterSecret#derive}), of {@code method \n path \n time \n body}. The replica refuses a
 * request without both headers, with another tag, with a time more than {@link #MAX_AGE_MILLIS}
 * away from its own clock (either way), or whose tag it has already accepted within that window
 * (a replay).
 *
 * <p>Thread-safe: {@link #sign} is stateless; {@link #verify} keeps the tags it accepted within the
 * window under a lock. Never blocks on IO.
 */
final class AdminAuth {
    /** The request time header. */
    static final String TIME_HEADER = "X-Parallax-Time";
    /** The tag header. */
    static final String SIGNATURE_HEADER = "X-Parallax-Signature";
    /** How far a request's time may be from the replica's clock. */
    static final long MAX_AGE_MILLIS = 60_000;
    private static final String PURPOSE = "parallax admin http request v1";

    private final SecretKeySpec key;
    /** Tags accepted within the window, by their request time; guarded by itself. */
    private final Map<String, Long> accepted = new LinkedHashMap<>();

    AdminAuth(ClusterSecret secret) {
        this.key = new SecretKeySpec(secret.derive(PURPOSE), "HmacSHA256");
    }

    /** The hex tag of a request. */
    String sign(String method, String path, String body, long timeMillis) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            String text = method + "\n" + path + "\n" + timeMillis + "\n" + body;
            return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /**
     * Checks a request's headers ({@code time} and {@code signature}, null when absent) against its
     * method, path and body at the replica's time {@code nowMillis}.
     *
     * @return null if it is authentic, fresh and new; else why not, one of {@code unsigned},
     *         {@code bad-signature}, {@code stale} or {@code replayed} (the refusal counter's tag)
     */
    String verify(String method, String path, String body, String time, String signature, long nowMillis) {
        if (time == null || signature == null) {
            return "unsigned";
        }
        long at;
        try {
            at = Long.parseLong(time.trim());
        } catch (NumberFormatException e) {
            return "bad-signature";
        }
        byte[] expected = sign(method, path, body, at).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, signature.trim().toLowerCase(java.util.Locale.ROOT)
                .getBytes(StandardCharsets.US_ASCII))) {
            return "bad-signature";
        }
        if (Math.abs(nowMillis - at) > MAX_AGE_MILLIS) {
            return "stale";
        }
        synchronized (accepted) {
            for (Iterator<Long> it = accepted.values().iterator(); it.hasNext(); ) {
                if (Math.abs(nowMillis - it.next()) > MAX_AGE_MILLIS) {
                    it.remove();
                }
            }
            if (accepted.putIfAbsent(signature.trim().toLowerCase(java.util.Locale.ROOT), at) != null) {
                return "replayed";
            }
        }
        return null;
    }
}
