package dev.parallax.core.wire.tls;

import dev.parallax.core.config.TlsConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The generated client certificate ({@code client.crt}/{@code client.key} of
 * {@link ClusterCertificates}) proves a client and nothing else: a server that presents it as its
 * own identity is refused in the handshake by every TLS client of Parallax that verifies a server
 * (the replica port's connecting side, a client of the client port or the Redis front end's
 * client, an {@code SmrClient}) and by an ordinary TLS client that checks the host name, because
 * the certificate's extended key usage is clientAuth only and it names no host. A replica's
 * certificate serves them all, and the client certificate still authenticates its holder where
 * mutual TLS asks for one.
 */
class ClientCertificateTlsTest {
    private static final Duration HANDSHAKE = Duration.ofSeconds(20);
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    @TempDir
    static Path dir;
    private static ClusterCertificates certs;
    private static TlsContexts replica1;
    private static DefaultEventLoopGroup loop;

    @BeforeAll
    static void generate() throws Exception {
        certs = ClusterCertificates.generate(dir, 3);
        replica1 = TlsContexts.load(certs.replicaTls(1, true));
        loop = new DefaultEventLoopGroup(2);
    }

    @AfterAll
    static void stop() {
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The contexts a holder of the client key would serve with: its certificate as a server's identity. */
    private static TlsContexts impostor() {
        return TlsContexts.load(TlsConfig.builder().replicaPort(true).clientPorts(true).trust(certs.ca())
                .identity(certs.clientCert(), certs.clientKey()).build());
    }

    /** Every client context of Parallax that checks the server it reached, by what uses it. */
    private static Map<String, SslContext> verifyingClients() {
        return Map.of(
                "replica port, connecting side", replica1.peerClient(),
                "client of a replica's client port (snapshot fetch, Redis front end)", replica1.clientClient(),
                "SmrClient trusting the CA", TlsContexts.trusting(certs.ca()));
    }

    @Test
    void theClientCertificateIsForClientsOnlyAndNamesNoHost() throws Exception {
        X509Certificate client = Pem.readCertificates(certs.clientCert(), "client certificate").get(0);
        assertThat(client.getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
        assertThat(client.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(client.getKeyUsage()).as("nothing but digitalSignature").containsOnlyOnce(true);
        assertThat(client.getSubjectAlternativeNames()).as("no host names, no addresses").isNull();
        assertThat(PeerIdentity.names(client)).containsExactly(ClusterCertificates.CLIENT_IDENTITY);
        X509Certificate replica = Pem.readCertificates(certs.cert(0), "replica certificate").get(0);
        assertThat(replica.getExtendedKeyUsage()).as("a replica serves and connects")
                .containsExactlyInAnyOrder(SERVER_AUTH, CLIENT_AUTH);
    }

    @Test
    void everyVerifyingClientRefusesAServerThatPresentsTheClientCertificate() throws Exception {
        SslContext fake = impostor().clientServer();
        for (Map.Entry<String, SslContext> c : verifyingClients().entrySet()) {
            Outcome o = handshake(fake, c.getValue());
            assertThat(o.client()).as(c.getKey() + " completed a handshake with the client certificate as server").isNotNull();
            assertThat(o.client()).as(c.getKey()).isInstanceOf(SSLException.class);
            assertThat(chainMessages(o.client())).as(c.getKey() + ": refused for the key usage")
                    .containsIgnoringCase("key usage");
        }
        // The replica port's accepting side too (mutual TLS): the impostor asks for a certificate, the dialler refuses first.
        Outcome mutual = handshake(impostor().peerServer(), replica1.peerClient());
        assertThat(mutual.client()).as("a replica dialling a peer that presents the client certificate").isNotNull();
    }

    @Test
    void aHostNameCheckingClientRefusesItToo() throws Exception {
        SSLContext server = jdkContext(certs.clientCert(), certs.clientKey());
        SSLContext client = jdkContext(null, null);
        try (SSLServerSocket listener = (SSLServerSocket) server.getServerSocketFactory().createServerSocket()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
                try (SSLSocket s = (SSLSocket) listener.accept()) {
                    s.setSoTimeout(20_000);
                    s.startHandshake();
                } catch (java.io.IOException expected) {
                    // the client aborts the handshake
                }
            });
            try (SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket("localhost", listener.getLocalPort())) {
                SSLParameters p = s.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                s.setSSLParameters(p);
                s.setSoTimeout(20_000);
                assertThatThrownBy(s::startHandshake).isInstanceOf(SSLException.class);
            }
            served.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReplicaCertificateServesTheSameClients() throws Exception {
        TlsContexts replica0 = TlsContexts.load(certs.replicaTls(0, true));
        for (Map.Entry<String, SslContext> c : verifyingClients().entrySet()) {
            Outcome o = handshake(replica0.clientServer(), c.getValue());
            assertThat(o.client()).as(c.getKey()).isNull();
            assertThat(o.server()).as(c.getKey()).isNull();
        }
        Outcome peers = handshake(replica0.peerServer(), replica1.peerClient());
        assertThat(peers.client()).isNull();
        assertThat(peers.server()).isNull();
        assertThat(PeerIdentity.names(peers.clientSeenByServer())).contains(TlsConfig.replicaIdentity(1));
    }

    @Test
    void theClientCertificateStillAuthenticatesItsHolderWhereMutualTlsAsksForOne() throws Exception {
        TlsContexts replica0 = TlsContexts.load(certs.replicaTls(0, true));
        Outcome o = handshake(replica0.peerServer(), impostor().peerClient());
        assertThat(o.client()).isNull();
        assertThat(o.server()).as("the server accepts the client certificate").isNull();
        assertThat(PeerIdentity.names(o.clientSeenByServer())).contains(ClusterCertificates.CLIENT_IDENTITY);
        // ... and only a certificate of the cluster's CA does.
        ClusterCertificates stranger = ClusterCertificates.generate(dir.resolve("stranger"), 1);
        TlsContexts strangerClient = TlsContexts.load(TlsConfig.builder().replicaPort(true).trust(certs.ca())
                .identity(stranger.clientCert(), stranger.clientKey()).build());
        assertThat(handshake(replica0.peerServer(), strangerClient.peerClient()).server()).isNotNull();
    }

    /** What each side of one handshake ended with: {@code null} for success, else the failure. */
    private record Outcome(Throwable server, Throwable client, X509Certificate clientSeenByServer) {
    }

    /** One TLS handshake over an in-process Netty channel pair, {@code server} accepting and {@code client} connecting. */
    private static Outcome handshake(SslContext server, SslContext client) throws Exception {
        LocalAddress address = new LocalAddress("tls-" + System.nanoTime());
        CompletableFuture<SslHandler> acceptedOnce = new CompletableFuture<>();
        Channel listener = new ServerBootstrap().group(loop).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<LocalChannel>() {
                    @Override
                    protected void initChannel(LocalChannel ch) {
                        SslHandler h = TlsContexts.handler(server, ch, HANDSHAKE);
                        ch.pipeline().addLast(h);
                        acceptedOnce.complete(h);
                    }
                }).bind(address).sync().channel();
        try {
            AtomicReference<SslHandler> connecting = new AtomicReference<>();
            Channel ch = new Bootstrap().group(loop).channel(LocalChannel.class)
                    .handler(new ChannelInitializer<LocalChannel>() {
                        @Override
                        protected void initChannel(LocalChannel c) {
                            SslHandler h = TlsContexts.handler(client, c, HANDSHAKE);
                            connecting.set(h);
                            c.pipeline().addLast(h);
                        }
                    }).connect(address).sync().channel();
            try {
                Throwable clientFailure = await(connecting.get().handshakeFuture());
                SslHandler serverSide = acceptedOnce.get(30, TimeUnit.SECONDS);
                Throwable serverFailure = await(serverSide.handshakeFuture());
                X509Certificate seen = null;
                if (serverFailure == null) {
                    try {
                        seen = PeerIdentity.peerCertificate(serverSide.engine().getSession());
                    } catch (SSLPeerUnverifiedException noClientCertificateAsked) {
                        // the client-facing ports ask for none
                    }
                }
                return new Outcome(serverFailure, clientFailure, seen);
            } finally {
                ch.close().sync();
            }
        } finally {
            listener.close().sync();
        }
    }

    private static Throwable await(Future<Channel> f) throws InterruptedException {
        assertThat(f.await(30, TimeUnit.SECONDS)).as("the handshake ended").isTrue();
        return f.cause();
    }

    private static String chainMessages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" / ");
        }
        return b.toString();
    }

    /** A plain JDK context trusting the cluster's CA, presenting {@code cert}/{@code key} if not {@code null}. */
    private static SSLContext jdkContext(Path cert, Path key) throws Exception {
        char[] password = "test".toCharArray();
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", Pem.readCertificates(certs.ca(), "CA").get(0));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        if (cert != null) {
            keys.setKeyEntry("me", Pem.readPrivateKey(key, "key"), password,
                    Pem.readCertificates(cert, "certificate").toArray(X509Certificate[]::new));
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }
}
