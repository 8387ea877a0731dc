package dev.parallax.core.wire.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A throwaway certificate authority for local clusters and tests, with the JDK alone (no
 * BouncyCastle, no {@code keytool} process): it makes an EC P-256 key and a self-signed CA
 * certificate, and issues EC P-256 certificates signed with ECDSA-SHA256: for replicas, which
 * both accept and open TLS connections ({@link #issue}: key usage digitalSignature, extended key
 * usage serverAuth and clientAuth, subject CN plus DNS and IP subject-alternative names), and for
 * clients only ({@link #issueClient}: key usage digitalSignature, extended key usage clientAuth
 * alone, no subject-alternative name), so that a client's key cannot pass for a server: TLS
 * clients (the JDK's, OpenSSL's) refuse a server certificate whose extended key usage lacks
 * serverAuth. Certificates are X.509 v3, DER-encoded by {@link Der}, then parsed and verified by
 * the JDK's own certificate factory.
 *
 * <p>The CA's private key lives only in this object: a throwaway CA issues its certificates and
 * is forgotten. Not for production PKI: no revocation, no policies, no name constraints.
 * Thread-safe ({@link #issue} may be called concurrently); issuing costs a key generation and a
 * signature (about a millisecond).
 */
public final class CertificateAuthority {
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String SUBJECT_KEY_ID = "2.5.29.14";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String AUTHORITY_KEY_ID = "2.5.29.35";
    private static final String EXT_KEY_USAGE = "2.5.29.37";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final int DIGITAL_SIGNATURE = 0;
    private static final int KEY_CERT_SIGN = 5;
    private static final int CRL_SIGN = 6;
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    /** Issued certificates are valid from this long before they were made (clocks of a cluster differ a little). */
    private static final Duration BACKDATE = Duration.ofHours(1);

    /** A certificate this authority issued, with its private key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {
        /** Writes the certificate and the key as PEM; the key file readable by its owner only (where POSIX permissions exist). */
        public void write(Path certPem, Path keyPem) throws IOException {
            writeCertificate(certificate, certPem);
            writePrivate(keyPem, Pem.privateKey(key));
        }
    }

    private final SecureRandom random = new SecureRandom();
    private final KeyPair keys;
    private final byte[] name;
    private final byte[] keyId;
    private final X509Certificate certificate;

    private CertificateAuthority(KeyPair keys, byte[] name, byte[] keyId, X509Certificate certificate) {
        this.keys = keys;
        this.name = name;
        this.keyId = keyId;
        this.certificate = certificate;
    }

    /**
     * A new CA named {@code commonName} plus a random suffix (so two throwaway CAs never share a
     * name), valid for {@code validity}.
     */
    public static CertificateAuthority create(String commonName, Duration validity) {
        Objects.requireNonNull(commonName, "commonName");
        KeyPair keys = newKeyPair();
        byte[] suffix = new byte[4];
        new SecureRandom().nextBytes(suffix);
        byte[] name = name(commonName + " " + HexFormat.of().formatHex(suffix));
        byte[] keyId = keyId(keys.getPublic());
        List<byte[]> extensions = List.of(
                extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
                extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN)),
                extension(SUBJECT_KEY_ID, false, Der.octets(keyId)));
        X509Certificate cert = sign(keys.getPrivate(), keys.getPublic(), name, name, keys.getPublic(), validity, extensions,
                new SecureRandom());
        return new CertificateAuthority(keys, name, keyId, cert);
    }

    /** The CA certificate: what every party trusts. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** Writes the CA certificate (not its key) as PEM. */
    public void writeCertificate(Path certPem) throws IOException {
        writeCertificate(certificate, certPem);
    }

    /**
     * Issues a certificate with a new key pair for a TLS client and server (a replica).
     *
     * @param commonName the subject CN (also added as a DNS name), e.g. {@code parallax-replica-0}
     * @param hosts      further subject-alternative names: IPv4 or IPv6 literals become IP names,
     *                   anything else DNS names (e.g. {@code localhost}, {@code 127.0.0.1})
     * @throws IllegalArgumentException if a name is empty or an IP literal is malformed
     */
    public Issued issue(String commonName, List<String> hosts, Duration validity) {
        if (commonName == null || commonName.isBlank()) {
            throw new IllegalArgumentException("a certificate needs a common name");
        }
        List<byte[]> alternatives = new ArrayList<>();
        alternatives.add(Der.tlv(Der.context(2, false), commonName.getBytes(StandardCharsets.US_ASCII)));
        for (String host : hosts) {
            alternatives.add(generalName(host));
        }
        return leaf(commonName, validity, Der.sequence(Der.oid(SERVER_AUTH), Der.oid(CLIENT_AUTH)),
                extension(SUBJECT_ALT_NAME, false, Der.sequence(alternatives.toArray(byte[][]::new))));
    }

    /**
     * Issues a certificate with a new key pair that authenticates a TLS client and nothing else:
     * extended key usage clientAuth only (a TLS client refuses it from a server), key usage
     * digitalSignature, and no subject-alternative name (it names no host; its identity is the
     * subject CN).
     *
     * @param commonName the subject CN, e.g. {@code parallax-client}
     * @throws IllegalArgumentException if the name is empty or the validity is not positive
     */
    public Issued issueClient(String commonName, Duration validity) {
        if (commonName == null || commonName.isBlank()) {
            throw new IllegalArgumentException("a certificate needs a common name");
        }
        return leaf(commonName, validity, Der.sequence(Der.oid(CLIENT_AUTH)), null);
    }

    /** A leaf certificate for a new key pair with {@code extKeyUsage} and, if not {@code null}, the encoded {@code subjectAltName} extension. */
    private Issued leaf(String commonName, Duration validity, byte[] extKeyUsage, byte[] subjectAltName) {
        KeyPair subject = newKeyPair();
        List<byte[]> extensions = new ArrayList<>(List.of(
                extension(BASIC_CONSTRAINTS, true, Der.sequence()),
                extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE)),
                extension(EXT_KEY_USAGE, false, extKeyUsage)));
        if (subjectAltName != null) {
            extensions.add(subjectAltName);
        }
        extensions.add(extension(SUBJECT_KEY_ID, false, Der.octets(keyId(subject.getPublic()))));
        extensions.add(extension(AUTHORITY_KEY_ID, false, Der.sequence(Der.tlv(Der.context(0, false), keyId))));
        X509Certificate cert = sign(keys.getPrivate(), keys.getPublic(), name, name(commonName), subject.getPublic(), validity,
                extensions, random);
        return new Issued(cert, subject.getPrivate());
    }

    private static byte[] generalName(String host) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("empty host name for a certificate");
        }
        String h = host.trim();
        if (IPV4.matcher(h).matches() || h.indexOf(':') >= 0) {
            try {
                return Der.tlv(Der.context(7, false), InetAddress.getByName(h).getAddress());
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("not an IP address: " + h, e);
            }
        }
        return Der.tlv(Der.context(2, false), h.getBytes(StandardCharsets.US_ASCII));
    }

    private static X509Certificate sign(PrivateKey issuerKey, PublicKey issuerPublic, byte[] issuer, byte[] subject,
                                        PublicKey subjectKey, Duration validity, List<byte[]> extensions, SecureRandom random) {
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("validity must be positive, got " + validity);
        }
        ZonedDateTime now = ZonedDateTime.now();
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        byte[] tbs = Der.sequence(
                Der.tlv(Der.context(0, true), Der.integer(2)),
                Der.integer(new BigInteger(126, random).add(BigInteger.ONE)),
                algorithm,
                issuer,
                Der.sequence(Der.time(now.minus(BACKDATE)), Der.time(now.plus(validity))),
                subject,
                subjectKey.getEncoded(),
                Der.tlv(Der.context(3, true), Der.sequence(extensions.toArray(byte[][]::new))));
        try {
            Signature s = Signature.getInstance(SIGNATURE);
            s.initSign(issuerKey, random);
            s.update(tbs);
            byte[] der = Der.sequence(tbs, algorithm, Der.bits(s.sign()));
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
            cert.verify(issuerPublic);
            cert.checkValidity();
            return cert;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a certificate: " + e.getMessage(), e);
        }
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octets(value))
                : Der.sequence(Der.oid(oid), Der.octets(value));
    }

    private static byte[] name(String commonName) {
        return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8(commonName))));
    }

    private static byte[] keyId(PublicKey key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest(key.getEncoded());
            return java.util.Arrays.copyOf(sha1, 20);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no SHA-1 in this JDK", e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no EC P-256 key generator in this JDK", e);
        }
    }

    static void writeCertificate(X509Certificate certificate, Path file) throws IOException {
        Files.writeString(file, Pem.certificate(certificate), StandardCharsets.US_ASCII);
    }

    private static void writePrivate(Path file, String pem) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
    }
}
