package dev.parallax.core.replica;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Snapshot streams authenticated under the cluster secret: a fetching replica installs only a
 * stream whose END tag verifies for the nonce it sent, whatever the transport. The forgers here
 * build their snapshots with the real {@link SnapshotStore} format, so every checksum is valid:
 * only the authentication stands between them and the lagging replica's state.
 */
class SnapshotAuthenticationTest {
    private static final int MAX_FRAME = 1 << 20;
    private static final ClusterSecret SECRET = ClusterSecret.random();
    private final List<AutoCloseable> closers = new ArrayList<>();
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void close() throws Exception {
        for (int i = closers.size() - 1; i >= 0; i--) {
            closers.get(i).close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    // ------------------------------------------------------------------ forged, replayed and foreign streams

    @Test
    @DisplayName("a forged snapshot with a valid checksum is refused, counted and not kept; a genuine peer's then installs")
    void aForgedSnapshotIsRefusedAndTheNextGenuineFetchInstalls(@TempDir Path dir) throws Exception {
        byte[] forged = snapshotFile(dir.resolve("forger"), 100, 3 * SnapshotServer.CHUNK + 5);
        FakeSnapshotPeer forger = peer((connection, request, out) -> {
            out.write(FakeSnapshotPeer.chunks(forged));
            out.write(FakeSnapshotPeer.frame(ClientWire.SNAPSHOT_END, ByteBuffer.allocate(8).putLong(forged.length).array()));
        });
        SnapshotStore genuine = new SnapshotStore(dir.resolve("genuine"));
        SnapshotStore.Snapshot real = genuine.write(120, body(2 * SnapshotServer.CHUNK));
        int good = serve(new SnapshotServer(2, genuine, new SimpleMeterRegistry(), new SnapshotAuthenticator(SECRET)));
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotStore mine = new SnapshotStore(dir.resolve("mine"));
        SnapshotTransfer t = fetcher(members(forger.port(), good), mine, installed, registry, SECRET);

        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.UNAUTHENTICATED);
        assertThat(failed(registry, "unauthenticated")).isEqualTo(1.0);
        assertThat(installed).as("nothing installed").isEmpty();
        assertThat(mine.latest()).isEmpty();
        assertThat(filesIn(mine)).as("the received file is deleted").isEmpty();

        assertThat(t.fetch(2, 100).get(20, TimeUnit.SECONDS)).as("the replica goes on with another peer")
                .isEqualTo(SnapshotTransfer.Outcome.INSTALLED);
        assertThat(installed).extracting(SnapshotStore.Snapshot::instance).containsExactly(120L);
        assertThat(Files.readAllBytes(installed.get(0).file())).isEqualTo(Files.readAllBytes(real.file()));
    }

    @Test
    @DisplayName("a forged snapshot with a guessed tag in its END is refused")
    void aForgedSnapshotWithAGuessedTagIsRefused(@TempDir Path dir) throws Exception {
        byte[] forged = snapshotFile(dir.resolve("forger"), 100, 1000);
        byte[] guess = new byte[32];
        new Random(7).nextBytes(guess);
        FakeSnapshotPeer forger = peer((connection, request, out) -> {
            out.write(FakeSnapshotPeer.chunks(forged));
            out.write(FakeSnapshotPeer.frame(ClientWire.SNAPSHOT_END,
                    ByteBuffer.allocate(40).putLong(forged.length).put(guess).array()));
        });
        assertRefused(dir, forger.port(), SECRET);
    }

    @Test
    @DisplayName("a stream recorded from one fetch and replayed to the next is refused")
    void aReplayedStreamIsRefused(@TempDir Path dir) throws Exception {
        SnapshotStore genuine = new SnapshotStore(dir.resolve("genuine"));
        genuine.write(100, body(2 * SnapshotServer.CHUNK + 9));
        int real = serve(new SnapshotServer(0, genuine, new SimpleMeterRegistry(), new SnapshotAuthenticator(SECRET)));
        AtomicReference<byte[]> recorded = new AtomicReference<>();
        // On the path: relays the first fetch to the real peer and records the answer; replays it to the next.
        FakeSnapshotPeer onPath = peer((connection, request, out) -> {
            if (connection == 0) {
                try (Socket up = new Socket("127.0.0.1", real)) {
                    up.getOutputStream().write(request);
                    recorded.set(FakeSnapshotPeer.readTransfer(up.getInputStream()));
                }
            }
            out.write(recorded.get());
        });
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotTransfer first = fetcher(members(onPath.port(), 3), new SnapshotStore(dir.resolve("first")), installed,
                new SimpleMeterRegistry(), SECRET);
        assertThat(first.fetch(0, 100).get(20, TimeUnit.SECONDS)).as("the relayed genuine stream")
                .isEqualTo(SnapshotTransfer.Outcome.INSTALLED);
        assertThat(installed).hasSize(1);

        MeterRegistry registry = new SimpleMeterRegistry();
        SnapshotStore mine = new SnapshotStore(dir.resolve("next"));
        SnapshotTransfer next = fetcher(members(onPath.port(), 3), mine, installed, registry, SECRET);
        assertThat(next.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.UNAUTHENTICATED);
        assertThat(failed(registry, "unauthenticated")).isEqualTo(1.0);
        assertThat(installed).as("the replay installed nothing").hasSize(1);
        assertThat(mine.latest()).isEmpty();
        assertThat(filesIn(mine)).isEmpty();
    }

    @Test
    @DisplayName("a peer holding another cluster secret is refused")
    void aPeerWithAnotherSecretIsRefused(@TempDir Path dir) throws Exception {
        SnapshotStore other = new SnapshotStore(dir.resolve("other"));
        other.write(100, body(SnapshotServer.CHUNK + 1));
        int port = serve(new SnapshotServer(0, other, new SimpleMeterRegistry(), new SnapshotAuthenticator(ClusterSecret.random())));
        assertRefused(dir, port, SECRET);
    }

    @Test
    @DisplayName("a genuine peer's snapshot under the shared secret installs; its tagged 'none that recent' is believed")
    void aGenuinePeerWithTheSecretInstalls(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, body(4 * SnapshotServer.CHUNK + 77));
        int port = serve(new SnapshotServer(0, peerStore, new SimpleMeterRegistry(), new SnapshotAuthenticator(SECRET)));
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotStore mine = new SnapshotStore(dir.resolve("mine"));
        SnapshotTransfer t = fetcher(members(port, 3), mine, installed, registry, SECRET);

        assertThat(t.fetch(0, 101).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.MISSING);
        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.INSTALLED);
        assertThat(Files.readAllBytes(installed.get(0).file())).isEqualTo(Files.readAllBytes(s.file()));
        assertThat(mine.latest()).map(SnapshotStore.Snapshot::instance).contains(100L);
        assertThat(failed(registry, "unauthenticated")).isZero();
    }

    @Test
    @DisplayName("a peer without a secret answers an authenticated request with an error naming cluster.secret")
    void aPeerWithoutTheSecretRefusesAnAuthenticatedRequest(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        peerStore.write(100, body(1000));
        MeterRegistry served = new SimpleMeterRegistry();
        int port = serve(new SnapshotServer(0, peerStore, served));
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotTransfer t = fetcher(members(port, 3), new SnapshotStore(dir.resolve("mine")), installed, registry, SECRET);

        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.REFUSED);
        assertThat(installed).isEmpty();
        assertThat(served.get("parallax.snapshots.requests.refused").tag("reason", "no_secret").counter().count()).isEqualTo(1.0);
    }

    // ------------------------------------------------------------------ the tag on the wire

    @Test
    @DisplayName("the END tag is HMAC-SHA256 under derive(\"parallax snapshot transfer\") of nonce, server, atLeast, file, total")
    void theEndTagCoversNonceServerRequestFileAndTotal(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, body(SnapshotServer.CHUNK + 3));
        int port = serve(new SnapshotServer(4, peerStore, new SimpleMeterRegistry(), new SnapshotAuthenticator(SECRET)));
        byte[] nonce = new byte[16];
        new Random(3).nextBytes(nonce);
        byte[] answer;
        try (Socket c = new Socket("127.0.0.1", port)) {
            c.getOutputStream().write(FakeSnapshotPeer.frame(ClientWire.SNAPSHOT_REQUEST,
                    ByteBuffer.allocate(24).putLong(90).put(nonce).array()));
            answer = FakeSnapshotPeer.readTransfer(c.getInputStream());
        }
        byte[] file = Files.readAllBytes(s.file());
        byte[] end = Arrays.copyOfRange(answer, answer.length - (Frames.HEADER + 40), answer.length);
        assertThat(FakeSnapshotPeer.type(end)).isEqualTo(ClientWire.SNAPSHOT_END);
        assertThat(ByteBuffer.wrap(end, Frames.HEADER, 8).getLong()).isEqualTo(file.length);

        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.derive("parallax snapshot transfer"), "HmacSHA256"));
        mac.update(nonce);
        mac.update(ByteBuffer.allocate(12).putInt(4).putLong(90).array());
        mac.update(file);
        byte[] expected = mac.doFinal(ByteBuffer.allocate(8).putLong(file.length).array());
        assertThat(Arrays.copyOfRange(end, Frames.HEADER + 8, end.length)).isEqualTo(expected);
    }

    // ------------------------------------------------------------------ which replicas authenticate how

    @Test
    @DisplayName("tls.replica=required with tls.client=off and no cluster.secret refuses to start, naming both keys")
    void mutualTlsBetweenReplicasWithAPlainClientPortNeedsTheSecret(@TempDir Path dir) {
        TlsConfig tls = TlsConfig.builder().replicaPort(true).trust(dir.resolve("ca.crt"))
                .identity(dir.resolve("r.crt"), dir.resolve("r.key")).build();
        assertThatThrownBy(() -> SnapshotAuthenticator.forReplica(config(dir, tls, null)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cluster.secret").hasMessageContaining("tls.client");
        assertThat(SnapshotAuthenticator.forReplica(config(dir, tls, SECRET))).as("with the secret: authenticated").isNotNull();
        assertThat(SnapshotAuthenticator.forReplica(config(null, tls, null))).as("no data directory: no snapshots to fetch").isNull();
    }

    @Test
    @DisplayName("with a secret every stream is authenticated; without one, TLS on the client port or nothing at all")
    void aSecretAlwaysAuthenticatesOtherwiseTheTransportDecides(@TempDir Path dir) {
        TlsConfig clientTls = TlsConfig.builder().replicaPort(true).clientPorts(true).trust(dir.resolve("ca.crt"))
                .identity(dir.resolve("r.crt"), dir.resolve("r.key")).build();
        assertThat(SnapshotAuthenticator.forReplica(config(dir, TlsConfig.OFF, SECRET))).isNotNull();
        assertThat(SnapshotAuthenticator.forReplica(config(dir, clientTls, SECRET))).isNotNull();
        assertThat(SnapshotAuthenticator.forReplica(config(dir, clientTls, null))).as("the peer's certificate authenticates").isNull();
        assertThat(SnapshotAuthenticator.forReplica(config(dir, TlsConfig.OFF, null))).as("an unauthenticated cluster").isNull();
    }

    // ------------------------------------------------------------------ helpers

    private void assertRefused(Path dir, int port, ClusterSecret secret) throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotStore mine = new SnapshotStore(dir.resolve("mine"));
        SnapshotTransfer t = fetcher(members(port, 3), mine, installed, registry, secret);
        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.UNAUTHENTICATED);
        assertThat(failed(registry, "unauthenticated")).isEqualTo(1.0);
        assertThat(installed).isEmpty();
        assertThat(mine.latest()).isEmpty();
        assertThat(filesIn(mine)).isEmpty();
    }

    private static ReplicaConfig config(Path data, TlsConfig tls, ClusterSecret secret) {
        ClusterMembers m = ClusterMembers.of(new Member(0, "127.0.0.1", 1), new Member(1, "127.0.0.1", 2));
        return ReplicaConfig.builder().id(0).members(m).clientMembers(m).dataDirectory(data).tls(tls).clusterSecret(secret).build();
    }

    private SnapshotTransfer fetcher(ClusterMembers peers, SnapshotStore store, List<SnapshotStore.Snapshot> installed,
                                     MeterRegistry registry, ClusterSecret secret) {
        return track(new SnapshotTransfer(1, peers, store, installed::add, Duration.ofSeconds(10), Long.MAX_VALUE, MAX_FRAME,
                registry, null, new SnapshotAuthenticator(secret)));
    }

    private static ClusterMembers members(int port0, int port2) {
        return ClusterMembers.of(new Member(0, "127.0.0.1", port0), new Member(1, "127.0.0.1", 1),
                new Member(2, "127.0.0.1", port2));
    }

    private static double failed(MeterRegistry r, String reason) {
        return r.get("parallax.snapshots.fetch.failed").tag("reason", reason).counter().count();
    }

    private static List<Path> filesIn(SnapshotStore store) throws IOException {
        try (var files = Files.list(store.directory())) {
            return files.toList();
        }
    }

    private static SnapshotStore.BodyWriter body(int bytes) {
        byte[] b = new byte[bytes];
        new Random(bytes).nextBytes(b);
        return out -> {
            ByteBuffer buf = ByteBuffer.wrap(b);
            while (buf.hasRemaining()) {
                out.write(buf);
            }
        };
    }

    /** A whole snapshot file in the real format (valid checksum), written by its own store. */
    private static byte[] snapshotFile(Path dir, long instance, int bodyBytes) throws IOException {
        byte[] state = "attacker's state ".repeat(bodyBytes / 17 + 1).substring(0, bodyBytes).getBytes(StandardCharsets.UTF_8);
        return Files.readAllBytes(new SnapshotStore(dir).write(instance, out -> {
            ByteBuffer buf = ByteBuffer.wrap(state);
            while (buf.hasRemaining()) {
                out.write(buf);
            }
        }).file());
    }

    private FakeSnapshotPeer peer(FakeSnapshotPeer.Script script) throws IOException {
        return track(new FakeSnapshotPeer(script));
    }

    private <T extends AutoCloseable> T track(T t) {
        closers.add(t);
        return t;
    }

    /** A server like ClientIO's snapshot path. */
    private int serve(SnapshotServer server) {
        track(server);
        Channel ch = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel c) {
                        c.pipeline().addLast(Frames.decoder(MAX_FRAME), new ChunkedWriteHandler(),
                                new SimpleChannelInboundHandler<ByteBuf>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
                                        if (Frames.readType(frame) == ClientWire.SNAPSHOT_REQUEST) {
                                            server.handle(ctx, frame);
                                        }
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        ctx.close(); // as ClientIO does with a malformed frame
                                    }
                                });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        closers.add(() -> ch.close().syncUninterruptibly());
        return ((InetSocketAddress) ch.localAddress()).getPort();
    }
}
