package dev.parallax.core.replica;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.net.BodyReader;
import dev.parallax.core.net.ClientWire;
import dev.parallax.core.net.Frames;
import dev.parallax.core.snapshot.SnapshotStore;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.stream.ChunkedInput;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Moves snapshots between replicas over the client port, for a replica that needs instances its
 * peers trimmed. The asking replica sends {@code SNAPSHOT_REQUEST}; the peer streams its newest
 * snapshot file as {@code SNAPSHOT_CHUNK} frames of 64 KiB through Netty's chunked writer, which
 * reads the next chunk only when the connection is writable (back-pressure), then
 * {@code SNAPSHOT_END}. The receiver writes the chunks to a temporary file, verifies the
 * checksum, installs it in its {@link SnapshotStore} and hands it to the ServiceManager.
 *
 * <p>Threads: {@link #fetch} from any thread (non-blocking; one transfer at a time); serving runs
 * on the client IO event loops; installation on a dedicated thread.
 */
final class SnapshotTransfer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotTransfer.class);
    static final int CHUNK = 64 * 1024;

    private final int self;
    private final ClusterMembers peers;
    private final SnapshotStore store;
    private final ServiceManager serviceManager;
    private final NioEventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("snapshot-fetch", true));
    private final ExecutorService installer = Executors.newSingleThreadExecutor(new DefaultThreadFactory("snapshot-install", true));
    private final AtomicBoolean busy = new AtomicBoolean();
    private final int maxFrameBytes;

    SnapshotTransfer(int self, ClusterMembers peers, SnapshotStore store, ServiceManager serviceManager, int maxFrameBytes) {
        this.self = self;
        this.peers = peers;
        this.store = store;
        this.serviceManager = serviceManager;
        this.maxFrameBytes = maxFrameBytes;
    }

    // ------------------------------------------------------------------ serving

    /** Streams the newest snapshot covering at least {@code atLeast} on {@code ctx}, or an empty END. */
    void serve(ChannelHandlerContext ctx, long atLeast) {
        Optional<SnapshotStore.Snapshot> s = store.latest();
        if (s.isEmpty() || s.get().instance() < atLeast) {
            ByteBuf end = ctx.alloc().buffer(14);
            Frames.writeHeader(end, ClientWire.SNAPSHOT_END, 8);
            end.writeLong(0);
            ctx.writeAndFlush(end);
            return;
        }
        try {
            ctx.writeAndFlush(new FramedFile(FileChannel.open(s.get().file(), StandardOpenOption.READ)));
            LOG.info("replica {}: sending snapshot below {} ({} bytes) to {}", self, s.get().instance(),
                    Files.size(s.get().file()), ctx.channel().remoteAddress());
        } catch (IOException e) {
            LOG.warn("replica {}: cannot send snapshot {}: {}", self, s.get().file(), e.toString());
            ctx.close();
        }
    }

    /** A file as a sequence of CHUNK frames, then END with the total size. */
    private static final class FramedFile implements ChunkedInput<ByteBuf> {
        private final FileChannel file;
        private long position;
        private boolean endSent;

        FramedFile(FileChannel file) {
            this.file = file;
        }

        @Override
        public boolean isEndOfInput() {
            return endSent;
        }

        @Override
        public void close() throws IOException {
            file.close();
        }

        @Override
        @Deprecated
        public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
            return readChunk(ctx.alloc());
        }

        @Override
        public ByteBuf readChunk(ByteBufAllocator alloc) throws IOException {
            long size = file.size();
            if (position < size) {
                int n = (int) Math.min(CHUNK, size - position);
                ByteBuf buf = alloc.buffer(Frames.HEADER + n);
                Frames.writeHeader(buf, ClientWire.SNAPSHOT_CHUNK, n);
                int read = 0;
                while (read < n) {
                    int r = buf.writeBytes(file, position + read, n - read);
                    if (r < 0) {
                        buf.release();
                        throw new IOException("snapshot file shrank while being sent");
                    }
                    read += r;
                }
                position += n;
                return buf;
            }
            if (!endSent) {
                endSent = true;
                ByteBuf end = alloc.buffer(Frames.HEADER + 8);
                Frames.writeHeader(end, ClientWire.SNAPSHOT_END, 8);
                end.writeLong(position);
                return end;
            }
            return null;
        }

        @Override
        public long length() {
            return -1;
        }

        @Override
        public long progress() {
            return position;
        }
    }

    // ------------------------------------------------------------------ fetching

    /** Starts fetching a snapshot covering at least {@code atLeast} from {@code peer}, unless one is under way. */
    void fetch(int peer, long atLeast) {
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        Member m = peers.member(peer);
        Path tmp;
        FileChannel out;
        try {
            tmp = Files.createTempFile(store.directory(), "incoming-", ".part");
            out = FileChannel.open(tmp, StandardOpenOption.WRITE);
        } catch (IOException e) {
            LOG.warn("replica {}: cannot receive a snapshot: {}", self, e.toString());
            busy.set(false);
            return;
        }
        LOG.info("replica {}: fetching a snapshot (at least instance {}) from replica {}", self, atLeast, peer);
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Frames.decoder(maxFrameBytes), new Receiver(tmp, out));
                    }
                });
        b.connect(m.host(), m.port()).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                done(tmp, out, "cannot connect to replica " + peer);
                return;
            }
            ByteBuf req = f.channel().alloc().buffer(14);
            Frames.writeHeader(req, ClientWire.SNAPSHOT_REQUEST, 8);
            req.writeLong(atLeast);
            f.channel().writeAndFlush(req);
        });
    }

    private void done(Path tmp, FileChannel out, String failure) {
        try {
            out.close();
            if (failure != null) {
                Files.deleteIfExists(tmp);
                LOG.warn("replica {}: snapshot transfer failed: {}", self, failure);
            }
        } catch (IOException e) {
            LOG.warn("replica {}: cleaning up a snapshot transfer: {}", self, e.toString());
        }
        if (failure != null) {
            busy.set(false);
        }
    }

    /** Writes the chunks of one transfer to a temporary file; installs it at the end. */
    private final class Receiver extends SimpleChannelInboundHandler<ByteBuf> {
        private final Path tmp;
        private final FileChannel out;
        private long received;
        private boolean finished;

        Receiver(Path tmp, FileChannel out) {
            this.tmp = tmp;
            this.out = out;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) throws Exception {
            int type = Frames.readType(frame);
            if (type == ClientWire.SNAPSHOT_CHUNK) {
                received += frame.readBytes(out, received, frame.readableBytes());
                return;
            }
            if (type != ClientWire.SNAPSHOT_END) {
                throw new IOException("unexpected frame type " + type + " in a snapshot transfer");
            }
            long total = BodyReader.readLong(frame);
            finished = true;
            Channel ch = ctx.channel();
            ch.close();
            if (total == 0 || total != received) {
                done(tmp, out, total == 0 ? "the peer has no recent enough snapshot" : "received " + received + " of " + total + " bytes");
                return;
            }
            out.force(true);
            done(tmp, out, null);
            installer.execute(() -> {
                try {
                    SnapshotStore.Snapshot s = store.install(tmp);
                    serviceManager.install(s);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("replica {}: received snapshot could not be installed: {}", self, e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    busy.set(false);
                }
            });
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!finished) {
                finished = true;
                done(tmp, out, "connection closed mid-transfer");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        installer.shutdownNow();
    }
}
