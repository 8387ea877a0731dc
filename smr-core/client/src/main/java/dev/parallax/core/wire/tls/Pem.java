package dev.parallax.core.wire.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading and writing the PEM files TLS uses: certificates ({@code BEGIN CERTIFICATE}) and
 * unencrypted PKCS#8 private keys ({@code BEGIN PRIVATE KEY}; EC, RSA, Ed25519 or DSA). Errors
 * name the file and what is wrong with it. Stateless and thread-safe; blocks on file I/O.
 */
public final class Pem {
    private static final Pattern KEY = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final List<String> KEY_ALGORITHMS = List.of("EC", "RSA", "Ed25519", "DSA");

    private Pem() {
    }

    /**
     * The certificates of a PEM file, in file order (a chain: leaf first).
     *
     * @param what names the file in errors, e.g. {@code "certificate of replica 1"}
     * @throws IllegalArgumentException if the file cannot be read or holds no certificate
     */
    public static List<X509Certificate> readCertificates(Path file, String what) {
        byte[] bytes = read(file, what);
        try {
            Collection<? extends Certificate> all = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes));
            List<X509Certificate> certs = new ArrayList<>();
            for (Certificate c : all) {
                certs.add((X509Certificate) c);
            }
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(what + " " + file + " holds no certificate (expected PEM: -----BEGIN CERTIFICATE-----)");
            }
            return certs;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(what + " " + file + " is not a PEM certificate: " + e.getMessage(), e);
        }
    }

    /**
     * The private key of a PEM file holding an unencrypted PKCS#8 key.
     *
     * @throws IllegalArgumentException if the file cannot be read, holds no such key (an encrypted
     *                                  or a traditional {@code BEGIN EC/RSA PRIVATE KEY} one is named
     *                                  as such), or the key is of an unknown algorithm
     */
    public static PrivateKey readPrivateKey(Path file, String what) {
        String text = new String(read(file, what), StandardCharsets.US_ASCII);
        Matcher m = KEY.matcher(text);
        if (!m.find()) {
            String hint = text.contains("ENCRYPTED PRIVATE KEY") ? "an encrypted key; give an unencrypted PKCS#8 key"
                    : text.matches("(?s).*BEGIN [A-Z]+ PRIVATE KEY.*")
                    ? "a traditional key; convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8"
                    : "no -----BEGIN PRIVATE KEY----- block";
            throw new IllegalArgumentException(what + " " + file + " is not an unencrypted PKCS#8 PEM key: " + hint);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " " + file + ": bad base64 in the key: " + e.getMessage(), e);
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(what + " " + file + ": a PKCS#8 key of none of the algorithms " + KEY_ALGORITHMS);
    }

    /** The PEM text of {@code der} under {@code label}, 64 base64 characters per line. */
    public static String encode(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    /** The PEM text of a certificate. */
    public static String certificate(X509Certificate certificate) {
        try {
            return encode("CERTIFICATE", certificate.getEncoded());
        } catch (CertificateException e) {
            throw new IllegalStateException("cannot encode a certificate: " + e.getMessage(), e);
        }
    }

    /** The PEM text of a private key, unencrypted PKCS#8. */
    public static String privateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("not a PKCS#8 key: " + key.getFormat());
        }
        return encode("PRIVATE KEY", key.getEncoded());
    }

    private static byte[] read(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(what + " " + file + ": no such file", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " " + file + ": cannot read it: " + e, e);
        }
    }
}
