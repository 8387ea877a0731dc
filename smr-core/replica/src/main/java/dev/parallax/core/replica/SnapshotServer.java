package dev.parallax.core.replica;

import dev.parallax.core.wire.BadFrameException;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.snapshot.SnapshotStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The serving side of snapshot transfer: answers a peer's {@code SNAPSHOT_REQUEST atLeast:8} on a
 * client connection with its newest snapshot file as {@code SNAPSHOT_CHUNK} frames of
 * {@value #CHUNK} bytes and a closing {@code SNAPSHOT_END totalBytes:8} ({@code 0} when it has
 * none covering {@code atLeast}).
 *
 * <p>Finding the snapshot re-reads and checksums the whole file, so it runs on a small bounded
 * pool ({@value #READERS} thread, {@value #QUEUED} queued), never on the connection's event loop.
 * The file then streams through the connection's {@code ChunkedWriteHandler}, which reads the next
 * chunk only while the connection is writable: a slow reader holds at most the socket buffers and
 * the channel's write-buffer high-water mark, not the whole file.
 *
 * <p>Refused with {@code SNAPSHOT_ERROR}, counted in {@code parallax.snapshots.requests.refused}
 * by reason, the connection staying open: a request on a replica without a snapshot store
 * ({@code unavailable}), a second request while one is streaming on the same connection
 * ({@code busy}), and a request when the pool is full ({@code overloaded}). A request whose body
 * is not 8 bytes is a malformed frame: counted ({@code malformed}) and thrown as a
 * {@link BadFrameException}, so the connection handler closes that connection like any other
 * malformed frame; the replica goes on.
 *
 * <p>Threads: {@link #handle} on the connection's event loop; thread-safe. {@link #close} once.
 */
final class SnapshotServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotServer.class);
    /** Bytes of snapshot file per chunk frame. */
    static final int CHUNK = 64 * 1024;
    private static final int READERS = 1;
    private static final int QUEUED = 4;
    private static final AttributeKey<Boolean> SERVING = AttributeKey.valueOf("parallax.snapshot.serving");

    private final int self;
    private final SnapshotStore store;
    private final ThreadPoolExecutor readers;
    private final MeterRegistry registry;
    private final Counter served;
    private final Counter servedBytes;

    /**
     * @param store the replica's snapshots, or {@code null} when it keeps none (every request is
     *              then refused)
     */
    SnapshotServer(int self, SnapshotStore store, MeterRegistry registry) {
        this.self = self;
        this.store = store;
        this.registry = registry;
        this.readers = new ThreadPoolExecutor(READERS, READERS, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUED),
                new DefaultThreadFactory("snapshot-serve-" + self, true));
        String id = Integer.toString(self);
        this.served = Counter.builder("parallax.snapshots.served").description("snapshot files sent to peers")
                .tag("replica", id).register(registry);
        this.servedBytes = Counter.builder("parallax.snapshots.served.bytes")
                .description("snapshot bytes read from disk for peers").tag("replica", id).register(registry);
        for (String reason : new String[]{"malformed", "unavailable", "busy", "overloaded"}) {
            refused(reason);
        }
    }

    /**
     * Handles one {@code SNAPSHOT_REQUEST} whose type byte was read from {@code body}: answers
     * {@code SNAPSHOT_ERROR} (counted) when it cannot serve, else streams the snapshot.
     *
     * @throws BadFrameException if the body is not exactly {@code atLeast:8} (counted as
     *                           {@code malformed}); the caller closes the connection
     */
    void handle(ChannelHandlerContext ctx, ByteBuf body) {
        if (body.readableBytes() != 8) {
            refused("malformed").increment();
            throw new BadFrameException("a SNAPSHOT_REQUEST body has 8 bytes, got " + body.readableBytes());
        }
        long atLeast = body.readLong();
        if (store == null) {
            refuse(ctx, "unavailable", "replica " + self + " keeps no snapshots");
            return;
        }
        if (ctx.channel().attr(SERVING).setIfAbsent(Boolean.TRUE) != null) {
            refuse(ctx, "busy", "a snapshot is already being sent on this connection");
            return;
        }
        try {
            readers.execute(() -> send(ctx, atLeast));
        } catch (RejectedExecutionException e) {
            ctx.channel().attr(SERVING).set(null);
            refuse(ctx, "overloaded", "replica " + self + " is sending too many snapshots; retry later");
        }
    }

    /** On a reader thread: finds the snapshot (checksum pass) and starts streaming it. */
    private void send(ChannelHandlerContext ctx, long atLeast) {
        ChannelFutureListener finished = f -> {
            ctx.channel().attr(SERVING).set(null);
            if (!f.isSuccess()) {
                LOG.debug("replica {}: sending a snapshot to {} failed: {}", self, ctx.channel().remoteAddress(),
                        String.valueOf(f.cause()));
                f.channel().close();
            }
        };
        if (!ctx.channel().isActive()) {
            ctx.channel().attr(SERVING).set(null);
            return;
        }
        Optional<SnapshotStore.Snapshot> s;
        try {
            s = store.latest();
        } catch (RuntimeException e) {
            LOG.warn("replica {}: cannot list its snapshots: {}", self, e.toString());
            s = Optional.empty();
        }
        if (s.isEmpty() || s.get().instance() < atLeast) {
            ByteBuf end = ctx.alloc().buffer(Frames.HEADER + 8);
            Frames.writeHeader(end, ClientWire.SNAPSHOT_END, 8);
            end.writeLong(0);
            ctx.writeAndFlush(end).addListener(finished);
            return;
        }
        FileChannel file;
        try {
            file = FileChannel.open(s.get().file(), StandardOpenOption.READ);
        } catch (IOException e) {
            LOG.warn("replica {}: cannot send snapshot {}: {}", self, s.get().file(), e.toString());
            ctx.channel().attr(SERVING).set(null);
            ctx.close();
            return;
        }
        served.increment();
        LOG.info("replica {}: sending snapshot below {} to {}", self, s.get().instance(), ctx.channel().remoteAddress());
        ctx.writeAndFlush(new FramedFile(file, servedBytes)).addListener(finished);
    }

    private void refuse(ChannelHandlerContext ctx, String reason, String message) {
        refused(reason).increment();
        LOG.warn("replica {}: refused a snapshot request from {}: {}", self, ctx.channel().remoteAddress(), message);
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        ByteBuf err = ctx.alloc().buffer(Frames.HEADER + 4 + m.length);
        Frames.writeHeader(err, ClientWire.SNAPSHOT_ERROR, 4 + m.length);
        err.writeInt(m.length).writeBytes(m);
        ctx.writeAndFlush(err);
    }

    private Counter refused(String reason) {
        return Counter.builder("parallax.snapshots.requests.refused")
                .description("snapshot requests from peers answered with an error").tag("replica", Integer.toString(self))
                .tag("reason", reason).register(registry);
    }

    @Override
    public void close() {
        readers.shutdownNow();
    }

    /** A file as a sequence of CHUNK frames, then END with the total size. Used on one event loop. */
    private static final class FramedFile implements ChunkedInput<ByteBuf> {
        private final FileChannel file;
        private final Counter bytesRead;
        private long position;
        private boolean endSent;

        FramedFile(FileChannel file, Counter bytesRead) {
            this.file = file;
            this.bytesRead = bytesRead;
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
                try {
                    while (read < n) {
                        int r = buf.writeBytes(file, position + read, n - read);
                        if (r < 0) {
                            throw new IOException("snapshot file shrank while being sent");
                        }
                        read += r;
                    }
                } catch (IOException | RuntimeException e) {
                    buf.release();
                    throw e;
                }
                position += n;
                bytesRead.increment(n);
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
}
