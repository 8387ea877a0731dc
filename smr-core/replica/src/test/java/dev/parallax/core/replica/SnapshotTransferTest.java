package dev.parallax.core.replica;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.snapshot.SnapshotStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshot transfer between a {@link SnapshotServer} (or a scripted misbehaving peer) and a
 * {@link SnapshotTransfer} over real loopback connections.
 */
class SnapshotTransferTest {
    private static final int MAX_FRAME = 1 << 20;
    private final List<AutoCloseable> closers = new ArrayList<>();
    private final NioEventLoopGroup group = new NioEventLoopGroup(2);

    @AfterEach
    void close() throws Exception {
        for (int i = closers.size() - 1; i >= 0; i--) {
            closers.get(i).close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    // ------------------------------------------------------------------ fetching from a real server

    @Test
    void streamsAMultiChunkSnapshotAndInstallsIt(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, body(5 * SnapshotServer.CHUNK + 123));
        int port = serve(new SnapshotServer(0, peerStore, new SimpleMeterRegistry()), null);
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotStore mine = new SnapshotStore(dir.resolve("mine"));
        SnapshotTransfer t = fetcher(mine, port, installed::add, Duration.ofSeconds(10), Long.MAX_VALUE, new SimpleMeterRegistry());

        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.INSTALLED);

        assertThat(installed).hasSize(1);
        assertThat(installed.get(0).instance()).isEqualTo(100);
        assertThat(Files.readAllBytes(installed.get(0).file())).isEqualTo(Files.readAllBytes(s.file()));
        assertThat(mine.latest()).map(SnapshotStore.Snapshot::instance).contains(100L);
        try (var files = Files.list(mine.directory())) {
            assertThat(files.filter(p -> p.getFileName().toString().endsWith(".part"))).as("no temporary file left").isEmpty();
        }
    }

    /**
     * A replica that joined at run time (id 5, outside the file's three) serves snapshots at the
     * client address {@code joinedPeers} gives; while that is unknown, the fetch fails as
     * unreachable and does not leave the fetcher busy.
     */
    @Test
    void aPeerThatJoinedAtRunTimeIsFetchedFromAtItsAddressOnceKnown(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        peerStore.write(100, body(1000));
        int port = serve(new SnapshotServer(5, peerStore, new SimpleMeterRegistry()), null);
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotTransfer t = fetcher(new SnapshotStore(dir.resolve("mine")), 3, installed::add, Duration.ofSeconds(10),
                Long.MAX_VALUE, registry);
        java.util.concurrent.atomic.AtomicReference<Member> known = new java.util.concurrent.atomic.AtomicReference<>();
        t.joinedPeers(id -> id == 5 ? known.get() : null);

        assertThat(t.fetch(5, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.UNREACHABLE);
        assertThat(failed(registry, "unreachable")).isEqualTo(1.0);
        known.set(new Member(5, "127.0.0.1", port));
        assertThat(t.fetch(5, 100).get(20, TimeUnit.SECONDS)).as("not left busy").isEqualTo(SnapshotTransfer.Outcome.INSTALLED);
        assertThat(installed).hasSize(1);
    }

    @Test
    void aPeerWithoutARecentEnoughSnapshotAnswersMissing(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        peerStore.write(100, body(1000));
        int port = serve(new SnapshotServer(0, peerStore, new SimpleMeterRegistry()), null);
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotTransfer t = fetcher(new SnapshotStore(dir.resolve("mine")), port, installed::add, Duration.ofSeconds(10),
                Long.MAX_VALUE, registry);

        assertThat(t.fetch(0, 101).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.MISSING);
        assertThat(failed(registry, "missing")).isEqualTo(1.0);
        assertThat(installed).isEmpty();
    }

    @Test
    void aReplicaWithoutSnapshotsRefusesAndTheFetcherCountsIt(@TempDir Path dir) throws Exception {
        int port = serve(new SnapshotServer(0, null, new SimpleMeterRegistry()), null);
        MeterRegistry registry = new SimpleMeterRegistry();
        SnapshotTransfer t = fetcher(new SnapshotStore(dir.resolve("mine")), port, s -> { }, Duration.ofSeconds(10),
                Long.MAX_VALUE, registry);

        assertThat(t.fetch(0, 1).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.REFUSED);
        assertThat(failed(registry, "refused")).isEqualTo(1.0);
    }

    // ------------------------------------------------------------------ misbehaving peers

    @Test
    void aConnectionDroppedMidTransferFailsAndTheNextFetchSucceeds(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, body(4 * SnapshotServer.CHUNK));
        byte[] file = Files.readAllBytes(s.file());
        int dropping = scripted((ctx, atLeast) -> {
            ctx.write(chunk(ctx, file, 0, SnapshotServer.CHUNK));
            ctx.writeAndFlush(chunk(ctx, file, SnapshotServer.CHUNK, SnapshotServer.CHUNK)).addListener(f -> ctx.close());
        });
        int good = serve(new SnapshotServer(2, peerStore, new SimpleMeterRegistry()), null);
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotStore mine = new SnapshotStore(dir.resolve("mine"));
        SnapshotTransfer t = track(new SnapshotTransfer(1, members(dropping, good), mine, installed::add,
                Duration.ofSeconds(10), Long.MAX_VALUE, MAX_FRAME, registry));

        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.CLOSED);
        assertThat(failed(registry, "closed")).isEqualTo(1.0);
        assertThat(installed).isEmpty();

        assertThat(t.fetch(2, 100).get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.INSTALLED);
        assertThat(installed).extracting(SnapshotStore.Snapshot::instance).containsExactly(100L);
        assertThat(registry.get("parallax.snapshots.fetch.started").counter().count()).isEqualTo(2.0);
    }

    @Test
    void anEndWhoseTotalDiffersFromWhatArrivedIsASizeMismatch(@TempDir Path dir) throws Exception {
        byte[] file = snapshotFile(dir, 2 * SnapshotServer.CHUNK);
        int peer = scripted((ctx, atLeast) -> {
            ctx.write(chunk(ctx, file, 0, file.length));
            ctx.writeAndFlush(end(ctx, file.length + 1));
        });
        assertFetchFails(dir, peer, Long.MAX_VALUE, SnapshotTransfer.Outcome.SIZE_MISMATCH, "size_mismatch");
    }

    @Test
    void moreBytesThanTheHeaderAnnouncedAreRefused(@TempDir Path dir) throws Exception {
        byte[] file = snapshotFile(dir, 1000);
        int peer = scripted((ctx, atLeast) -> {
            ctx.write(chunk(ctx, file, 0, file.length));
            ctx.writeAndFlush(chunk(ctx, new byte[SnapshotServer.CHUNK], 0, SnapshotServer.CHUNK));
        });
        assertFetchFails(dir, peer, Long.MAX_VALUE, SnapshotTransfer.Outcome.SIZE_MISMATCH, "size_mismatch");
    }

    @Test
    void aSnapshotLargerThanTheLimitIsRefusedFromItsHeader(@TempDir Path dir) throws Exception {
        byte[] file = snapshotFile(dir, 4 * SnapshotServer.CHUNK);
        int peer = scripted((ctx, atLeast) -> {
            ctx.write(chunk(ctx, file, 0, SnapshotServer.CHUNK));
            ctx.writeAndFlush(chunk(ctx, file, SnapshotServer.CHUNK, SnapshotServer.CHUNK));
        });
        assertFetchFails(dir, peer, 2 * SnapshotServer.CHUNK, SnapshotTransfer.Outcome.TOO_LARGE, "too_large");
    }

    @Test
    void aSnapshotWithABadChecksumIsNotInstalled(@TempDir Path dir) throws Exception {
        byte[] file = snapshotFile(dir, 3 * SnapshotServer.CHUNK);
        file[SnapshotStore.HEADER_BYTES + 1000] ^= 0x40;
        int peer = scripted((ctx, atLeast) -> {
            for (int at = 0; at < file.length; at += SnapshotServer.CHUNK) {
                ctx.write(chunk(ctx, file, at, Math.min(SnapshotServer.CHUNK, file.length - at)));
            }
            ctx.writeAndFlush(end(ctx, file.length));
        });
        SnapshotStore mine = assertFetchFails(dir, peer, Long.MAX_VALUE, SnapshotTransfer.Outcome.DAMAGED, "damaged");
        assertThat(mine.latest()).isEmpty();
    }

    @Test
    void anUnexpectedFrameTypeAbortsTheTransfer(@TempDir Path dir) throws Exception {
        int peer = scripted((ctx, atLeast) -> {
            ByteBuf reply = ctx.alloc().buffer();
            ClientWire.writeOk(reply, 1, ByteBuffer.allocate(3));
            ctx.writeAndFlush(reply);
        });
        assertFetchFails(dir, peer, Long.MAX_VALUE, SnapshotTransfer.Outcome.PROTOCOL, "protocol");
    }

    @Test
    void aStalledPeerTimesOutAndAFetchCanRunAgain(@TempDir Path dir) throws Exception {
        CountDownLatch asked = new CountDownLatch(2);
        int stalled = scripted((ctx, atLeast) -> asked.countDown()); // keeps the connection open, sends nothing
        MeterRegistry registry = new SimpleMeterRegistry();
        SnapshotTransfer t = fetcher(new SnapshotStore(dir.resolve("mine")), stalled, s -> { }, Duration.ofMillis(300),
                Long.MAX_VALUE, registry);

        CompletableFuture<SnapshotTransfer.Outcome> first = t.fetch(0, 1);
        assertThat(t.fetch(0, 1).getNow(null)).as("one fetch at a time").isEqualTo(SnapshotTransfer.Outcome.BUSY);
        assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo(SnapshotTransfer.Outcome.TIMEOUT);
        assertThat(failed(registry, "timeout")).isEqualTo(1.0);

        assertThat(t.fetch(0, 1).get(20, TimeUnit.SECONDS)).as("the retry runs").isEqualTo(SnapshotTransfer.Outcome.TIMEOUT);
        assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(failed(registry, "timeout")).isEqualTo(2.0);
        assertThat(registry.get("parallax.snapshots.fetch.started").counter().count()).isEqualTo(2.0);
    }

    // ------------------------------------------------------------------ serving: bad input and back-pressure

    @Test
    void aShortRequestClosesOnlyItsConnectionAndIsCounted(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, body(3 * SnapshotServer.CHUNK));
        MeterRegistry registry = new SimpleMeterRegistry();
        int port = serve(new SnapshotServer(0, peerStore, registry), null);
        TestClient other = client(port, true, 0);
        TestClient bad = client(port, true, 0);

        bad.send(ClientWire.SNAPSHOT_REQUEST, new byte[3]);
        assertThat(bad.channel.closeFuture().await(20, TimeUnit.SECONDS)).as("the malformed connection is closed").isTrue();
        assertThat(bad.frames).as("nothing was sent on it").isEmpty();
        assertThat(refused(registry, "malformed")).isEqualTo(1.0);

        other.request(100);
        assertThat(other.readTransfer()).as("another connection is still served").isEqualTo(Files.size(s.file()));
        assertThat(registry.get("parallax.snapshots.served").counter().count()).isEqualTo(1.0);
    }

    @Test
    void aReplicaWithoutSnapshotsAnswersAnErrorAndKeepsTheConnection(@TempDir Path dir) throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        int port = serve(new SnapshotServer(0, null, registry), null);
        TestClient c = client(port, true, 0);

        c.request(1);
        assertThat(c.next().message()).contains("keeps no snapshots");
        c.request(1);
        assertThat(c.next().type).as("the same connection is still served").isEqualTo(ClientWire.SNAPSHOT_ERROR);
        assertThat(refused(registry, "unavailable")).isEqualTo(2.0);
    }

    @Test
    void aSlowReaderHoldsBackTheSenderAndASecondRequestIsRefused(@TempDir Path dir) throws Exception {
        SnapshotStore peerStore = new SnapshotStore(dir.resolve("peer"));
        SnapshotStore.Snapshot s = peerStore.write(100, body(8 << 20));
        long fileBytes = Files.size(s.file());
        MeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch unwritable = new CountDownLatch(1);
        int port = serve(new SnapshotServer(0, peerStore, registry), unwritable);
        TestClient c = client(port, false, 32 * 1024);
        long bound = 2L << 20;

        c.request(100);
        assertThat(unwritable.await(20, TimeUnit.SECONDS)).as("the reader stalls the sender").isTrue();
        c.request(100); // while the first is still streaming
        double served = registry.get("parallax.snapshots.served.bytes").counter().count();
        assertThat(served).as("read ahead of a reader that read nothing").isLessThan(bound);

        long received = 0;
        Received f;
        while ((f = c.next()).type == ClientWire.SNAPSHOT_CHUNK) {
            received += f.length;
            double ahead = registry.get("parallax.snapshots.served.bytes").counter().count() - received;
            assertThat(ahead).as("outstanding bytes stay bounded").isLessThan(bound);
        }
        assertThat(f.type).isEqualTo(ClientWire.SNAPSHOT_END);
        assertThat(f.total).isEqualTo(fileBytes).isEqualTo(received);
        Received err = c.next();
        assertThat(err.type).isEqualTo(ClientWire.SNAPSHOT_ERROR);
        assertThat(err.message()).contains("already being sent");
        assertThat(refused(registry, "busy")).isEqualTo(1.0);
    }

    // ------------------------------------------------------------------ helpers

    private SnapshotStore assertFetchFails(Path dir, int port, long maxBytes, SnapshotTransfer.Outcome expected,
                                           String reason) throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        List<SnapshotStore.Snapshot> installed = new ArrayList<>();
        SnapshotStore mine = new SnapshotStore(dir.resolve("mine"));
        SnapshotTransfer t = fetcher(mine, port, installed::add, Duration.ofSeconds(10), maxBytes, registry);
        assertThat(t.fetch(0, 100).get(20, TimeUnit.SECONDS)).isEqualTo(expected);
        assertThat(failed(registry, reason)).isEqualTo(1.0);
        assertThat(installed).isEmpty();
        try (var files = Files.list(mine.directory())) {
            assertThat(files).as("nothing left behind").isEmpty();
        }
        return mine;
    }

    private static double failed(MeterRegistry r, String reason) {
        return r.get("parallax.snapshots.fetch.failed").tag("reason", reason).counter().count();
    }

    private static double refused(MeterRegistry r, String reason) {
        return r.get("parallax.snapshots.requests.refused").tag("reason", reason).counter().count();
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

    private static byte[] snapshotFile(Path dir, int bodyBytes) throws IOException {
        SnapshotStore s = new SnapshotStore(dir.resolve("source"));
        return Files.readAllBytes(s.write(100, body(bodyBytes)).file());
    }

    private static ByteBuf chunk(ChannelHandlerContext ctx, byte[] file, int from, int n) {
        ByteBuf b = ctx.alloc().buffer(Frames.HEADER + n);
        Frames.writeHeader(b, ClientWire.SNAPSHOT_CHUNK, n);
        return b.writeBytes(file, from, n);
    }

    private static ByteBuf end(ChannelHandlerContext ctx, long total) {
        ByteBuf b = ctx.alloc().buffer(Frames.HEADER + 8);
        Frames.writeHeader(b, ClientWire.SNAPSHOT_END, 8);
        return b.writeLong(total);
    }

    private static ClusterMembers members(int port0, int port2) {
        return ClusterMembers.of(new Member(0, "127.0.0.1", port0), new Member(1, "127.0.0.1", 1),
                new Member(2, "127.0.0.1", port2));
    }

    private SnapshotTransfer fetcher(SnapshotStore store, int port, SnapshotTransfer.Installer installer, Duration timeout,
                                     long maxBytes, MeterRegistry registry) {
        return track(new SnapshotTransfer(1, members(port, 2), store, installer, timeout, maxBytes, MAX_FRAME, registry));
    }

    private <T extends AutoCloseable> T track(T t) {
        closers.add(t);
        return t;
    }

    /** A server like ClientIO's snapshot path; counts down {@code unwritable} when a connection stops being writable. */
    private int serve(SnapshotServer server, CountDownLatch unwritable) {
        track(server);
        return listen(ch -> ch.pipeline().addLast(Frames.decoder(MAX_FRAME), new ChunkedWriteHandler(),
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

                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        if (unwritable != null && !ctx.channel().isWritable()) {
                            unwritable.countDown();
                        }
                    }
                }));
    }

    /** A peer that answers each SNAPSHOT_REQUEST with {@code script}. */
    private int scripted(BiConsumer<ChannelHandlerContext, Long> script) {
        return listen(ch -> ch.pipeline().addLast(Frames.decoder(MAX_FRAME), new SimpleChannelInboundHandler<ByteBuf>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
                if (Frames.readType(frame) == ClientWire.SNAPSHOT_REQUEST) {
                    script.accept(ctx, frame.readLong());
                }
            }
        }));
    }

    private int listen(java.util.function.Consumer<SocketChannel> init) {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.SO_SNDBUF, 32 * 1024)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        init.accept(ch);
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        closers.add(() -> server.close().syncUninterruptibly());
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    private TestClient client(int port, boolean autoRead, int receiveBuffer) {
        TestClient c = new TestClient();
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.AUTO_READ, autoRead)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Frames.decoder(MAX_FRAME), c);
                    }
                });
        if (receiveBuffer > 0) {
            b.option(ChannelOption.SO_RCVBUF, receiveBuffer);
        }
        c.channel = b.connect("127.0.0.1", port).syncUninterruptibly().channel();
        closers.add(() -> c.channel.close().syncUninterruptibly());
        return c;
    }

    /** One frame as the test client saw it. */
    private record Received(int type, int length, long total, byte[] body) {
        String message() {
            return new String(body, 4, body.length - 4, StandardCharsets.UTF_8);
        }
    }

    /** Collects frames; with auto-read off, reads only when the test asks for the next frame. */
    private static final class TestClient extends SimpleChannelInboundHandler<ByteBuf> {
        final BlockingQueue<Received> frames = new LinkedBlockingQueue<>();
        Channel channel;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            int type = Frames.readType(frame);
            int length = frame.readableBytes();
            long total = type == ClientWire.SNAPSHOT_END ? frame.getLong(frame.readerIndex()) : -1;
            byte[] body = type == ClientWire.SNAPSHOT_CHUNK ? new byte[0] : new byte[length];
            frame.readBytes(body);
            frames.add(new Received(type, length, total, body));
        }

        void send(int type, byte[] body) {
            ByteBuf b = channel.alloc().buffer(Frames.HEADER + body.length);
            Frames.writeHeader(b, type, body.length);
            channel.writeAndFlush(b.writeBytes(body));
        }

        void request(long atLeast) {
            send(ClientWire.SNAPSHOT_REQUEST, ByteBuffer.allocate(8).putLong(atLeast).array());
        }

        Received next() throws InterruptedException {
            if (frames.isEmpty() && !channel.config().isAutoRead()) {
                channel.read();
            }
            Received r = frames.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("a frame arrives").isNotNull();
            return r;
        }

        /** Reads CHUNKs up to the END. @return the bytes received, checked against END's total */
        long readTransfer() throws InterruptedException {
            long n = 0;
            Received f;
            while ((f = next()).type == ClientWire.SNAPSHOT_CHUNK) {
                n += f.length;
            }
            assertThat(f.type).isEqualTo(ClientWire.SNAPSHOT_END);
            assertThat(f.total).isEqualTo(n);
            return n;
        }
    }
}
