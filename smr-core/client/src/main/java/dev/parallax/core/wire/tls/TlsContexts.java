package dev.parallax.core.wire.tls;

import dev.parallax.core.config.TlsConfig;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The SSL contexts of one replica, built once from the PEM files its {@link TlsConfig} names:
 * the replica port's accepting side (own certificate, a peer certificate required and checked
 * against the CA) and connecting side (own certificate presented, the peer's checked), the
 * client-facing ports' server side (own certificate, no client certificate asked) and a client
 * side trusting the CA (snapshot fetches from peers, the Redis front end's client). TLS 1.3 and
 * 1.2 only, the JDK's provider; host names are not verified, {@link PeerIdentity} names are. The
 * JDK's trust manager checks the extended key usage of the certificate it is shown: a connecting
 * side refuses a server certificate without serverAuth (such as the generated client certificate,
 * {@link CertificateAuthority#issueClient}), an accepting side a client certificate without
 * clientAuth.
 *
 * <p>Immutable and thread-safe; {@link #handler} makes a new {@link SslHandler} per connection.
 */
public final class TlsContexts {
    private static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private final SslContext peerServer;
    private final SslContext peerClient;
    private final SslContext clientServer;
    private final SslContext clientClient;
    private final Duration handshakeTimeout;

    private TlsContexts(SslContext peerServer, SslContext peerClient, SslContext clientServer, SslContext clientClient,
                        Duration handshakeTimeout) {
        this.peerServer = peerServer;
        this.peerClient = peerClient;
        this.clientServer = clientServer;
        this.clientClient = clientClient;
        this.handshakeTimeout = handshakeTimeout;
    }

    /**
     * Loads the files of {@code config}.
     *
     * @throws IllegalArgumentException if TLS is off, or a file is missing, unreadable or not the
     *                                  PEM it should be (the message names the file), or the key
     *                                  does not match the certificate
     */
    public static TlsContexts load(TlsConfig config) {
        if (!config.enabled()) {
            throw new IllegalArgumentException("TLS is off");
        }
        Path caFile = config.caFile().orElseThrow();
        Path certFile = config.certFile().orElseThrow();
        Path keyFile = config.keyFile().orElseThrow();
        List<X509Certificate> ca = Pem.readCertificates(caFile, "CA certificate");
        List<X509Certificate> chain = Pem.readCertificates(certFile, "certificate");
        PrivateKey key = Pem.readPrivateKey(keyFile, "private key");
        requireMatch(key, chain.get(0), keyFile, certFile);
        X509Certificate[] caArray = ca.toArray(X509Certificate[]::new);
        X509Certificate[] chainArray = chain.toArray(X509Certificate[]::new);
        String what = "certificate " + certFile + " with key " + keyFile + " and CA " + caFile;
        try {
            return new TlsContexts(
                    server(SslContextBuilder.forServer(key, chainArray).trustManager(caArray).clientAuth(ClientAuth.REQUIRE), what),
                    client(SslContextBuilder.forClient().keyManager(key, chainArray).trustManager(caArray), what),
                    server(SslContextBuilder.forServer(key, chainArray).clientAuth(ClientAuth.NONE), what),
                    client(SslContextBuilder.forClient().trustManager(caArray), what),
                    config.handshakeTimeout());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot use " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * A client context that trusts the CA certificate(s) in {@code caPem} and presents no
     * certificate (an {@code SmrClient}).
     *
     * @throws IllegalArgumentException if the file is missing or holds no certificate
     */
    public static SslContext trusting(Path caPem) {
        Objects.requireNonNull(caPem, "caPem");
        X509Certificate[] ca = Pem.readCertificates(caPem, "CA certificate").toArray(X509Certificate[]::new);
        return client(SslContextBuilder.forClient().trustManager(ca), "CA " + caPem);
    }

    /** The replica port's accepting side: mutual TLS. */
    public SslContext peerServer() {
        return peerServer;
    }

    /** The replica port's connecting side: presents this replica's certificate. */
    public SslContext peerClient() {
        return peerClient;
    }

    /** The client-facing ports' server side: no client certificate. */
    public SslContext clientServer() {
        return clientServer;
    }

    /** A client of another replica's client port, trusting the CA. */
    public SslContext clientClient() {
        return clientClient;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /** A new handler of {@code context} for {@code channel}, its handshake bounded by {@link #handshakeTimeout()}. */
    public SslHandler handler(SslContext context, Channel channel) {
        return handler(context, channel, handshakeTimeout);
    }

    /** A new handler of {@code context} for {@code channel}, its handshake bounded by {@code timeout}. */
    public static SslHandler handler(SslContext context, Channel channel, Duration timeout) {
        SslHandler h = context.newHandler(channel.alloc());
        h.setHandshakeTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return h;
    }

    /** Signs with {@code key} and verifies with the certificate's public key: a key of another certificate fails at load, not at the first handshake. */
    private static void requireMatch(PrivateKey key, X509Certificate cert, Path keyFile, Path certFile) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "DSA" -> "SHA256withDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        byte[] probe = "parallax key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        boolean matches;
        try {
            java.security.Signature signer = java.security.Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            java.security.Signature verifier = java.security.Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (java.security.GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalArgumentException("private key " + keyFile + " does not belong to certificate " + certFile
                    + " (" + PeerIdentity.names(cert) + ")");
        }
    }

    private static SslContext server(SslContextBuilder b, String what) {
        return build(b, what);
    }

    private static SslContext client(SslContextBuilder b, String what) {
        return build(b.endpointIdentificationAlgorithm(null), what);
    }

    private static SslContext build(SslContextBuilder b, String what) {
        try {
            return b.sslProvider(SslProvider.JDK).protocols(PROTOCOLS).build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("cannot build a TLS context from " + what + ": " + e.getMessage(), e);
        }
    }
}
