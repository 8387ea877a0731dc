package dev.parallax.core.testkit.cluster;

import dev.parallax.core.config.Member;
import dev.parallax.core.wire.tls.Pem;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Plain JDK TLS sockets built from PEM files, for tests that play a stranger, an impostor or an
 * ordinary TLS client against Parallax's ports: no Netty, no Parallax code on the wire. Blocking;
 * each socket belongs to one thread.
 */
public final class TlsSockets {
    private static final char[] PASSWORD = "test".toCharArray();

    private TlsSockets() {
    }

    /**
     * A TLS context trusting the CA in {@code caPem} (or nothing, if {@code null}: every
     * handshake then fails on the peer's certificate) and presenting {@code certPem}/{@code keyPem}
     * (or no certificate, if {@code null}).
     */
    public static SSLContext context(Path caPem, Path certPem, Path keyPem) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            if (caPem != null) {
                List<X509Certificate> ca = Pem.readCertificates(caPem, "CA");
                for (int i = 0; i < ca.size(); i++) {
                    trust.setCertificateEntry("ca-" + i, ca.get(i));
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            if (certPem != null) {
                PrivateKey key = Pem.readPrivateKey(keyPem, "key");
                keys.setKeyEntry("me", key, PASSWORD, Pem.readCertificates(certPem, "certificate").toArray(X509Certificate[]::new));
            }
            kmf.init(keys, PASSWORD);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a test TLS context: " + e, e);
        }
    }

    /** A connected client socket to {@code to} whose handshake has completed (from this side's view). */
    public static SSLSocket connect(SSLContext ctx, Member to) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.connect(new InetSocketAddress(to.host(), to.port()), 10_000);
        s.setSoTimeout(30_000);
        s.startHandshake();
        return s;
    }

    /** A server socket on loopback port {@code port} (0: any) presenting {@code ctx}'s certificate. */
    public static SSLServerSocket listen(SSLContext ctx, int port) throws IOException {
        SSLServerSocket s = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }
}
