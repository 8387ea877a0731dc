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

import javax.crypto.Mac;
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
 * <p><b>Authentication.</b> A request that carries the fetcher's nonce
 * ({@code atLeast:8 nonce:16}, sent by every replica that holds a cluster secret) is answered with
 * an END of {@code totalBytes:8 tag:32}: the HMAC under the cluster secret of the nonce, this
 * replica's id, {@code atLeast}, the file's bytes and the total, computed as the chunks are read
 * ({@link SnapshotAuthenticator} defines it). A replica without a secret refuses such a request
 * ({@code no_secret}: the fetcher would refuse whatever it sent). A request without a nonce comes
 * from a replica without a secret, whose fetches TLS on the client port authenticates or nothing
 * does; it is answered as before, untagged.
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
 * ({@code busy}), a request when the pool is full ({@code overloaded}), and an authenticated
 * request on a replica without a secret ({@code no_secret}). A request whose body is neither 8
 * nor 24 bytes is a malformed frame: counted ({@code malformed}) and thrown as a
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
    private final SnapshotAuthenticator auth;
    private final ThreadPoolExecutor readers;
    private final MeterRegistry registry;
    private final Counter served;
    private final Counter servedBytes;

    /** A server without a cluster secret: it answers unauthenticated requests only. */
    SnapshotServer(int self, SnapshotStore store, MeterRegistry registry) {
        this(self, store, registry, null);
    }

    /**
     * @param store the replica's snapshots, or {@code null} when it keeps none (every request is
     *              then refused)
     * @param auth  the cluster secret's authentication, or {@code null} when this replica has no
     *              secret (an authenticated request is then refused)
     */
    SnapshotServer(int self, SnapshotStore store, MeterRegistry registry, SnapshotAuthenticator auth) {
        this.self = self;
        this.store = store;
        this.auth = auth;
        this.registry = registry;
        this.readers = new ThreadPoolExecutor(READERS, READERS, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUED),
                new DefaultThreadFactory("snapshot-serve-" + self, true));
        String id = Integer.toString(self);
        this.served = Counter.builder("parallax.snapshots.served").description("snapshot files sent to peers")
                .tag("replica", id).register(registry);
        this.servedBytes = Counter.builder("parallax.snapshots.served.bytes")
                .description("snapshot bytes read from disk for peers").tag("replica", id).register(registry);
        for (String reason : new String[]{"malformed", "unavailable", "busy", "overloaded", "no_secret"}) {
            refused(reason);
        }
    }

    /**
     * Handles one {@code SNAPSHOT_REQUEST} whose type byte was read from {@code body}: answers
     * {@code SNAPSHOT_ERROR} (counted) when it cannot serve, else streams the snapshot.
     *
     * @throws BadFrameException if the body is neither {@code atLeast:8} nor {@code atLeast:8
     *                           nonce:16} (counted as {@code malformed}); the caller closes the
     *                           connection
     */
    void handle(ChannelHandlerContext ctx, ByteBuf body) {
        int length = body.readableBytes();
        if (length != 8 && length != 8 + SnapshotAuthenticator.NONCE_BYTES) {
            refused("malformed").increment();
            throw new BadFrameException("a SNAPSHOT_REQUEST body has 8 or " + (8 + SnapshotAuthenticator.NONCE_BYTES)
                    + " bytes, got " + length);
        }
        long atLeast = body.readLong();
        byte[] nonce = null;
        if (body.isReadable()) {
            nonce = new byte[SnapshotAuthenticator.NONCE_BYTES];
            body.readBytes(nonce);
        }
        if (store == null) {
            refuse(ctx, "unavailable", "replica " + self + " keeps no snapshots");
            return;
        }
        if (nonce != null && auth == null) {
            refuse(ctx, "no_secret", "replica " + self + " has no cluster.secret to authenticate a snapshot with; "
                    + "every replica needs the same one");
            return;
        }
        if (ctx.channel().attr(SERVING).setIfAbsent(Boolean.TRUE) != null) {
            refuse(ctx, "busy", "a snapshot is already being sent on this connection");
            return;
        }
        try {
            Mac mac = nonce == null ? null : auth.begin(nonce, self, atLeast);
            readers.execute(() -> send(ctx, atLeast, mac));
        } catch (RejectedExecutionException e) {
            ctx.channel().attr(SERVING).set(null);
            refuse(ctx, "overloaded", "replica " + self + " is sending too many snapshots; retry later");
        }
    }

    /**
     * On a reader thread: finds the snapshot (checksum pass) and starts streaming it, tagging the
     * stream with {@code mac} unless {@code null}.
     */
    private void send(ChannelHandlerContext ctx, long atLeast, Mac mac) {
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
            ctx.writeAndFlush(end(ctx.alloc(), 0, mac)).addListener(finished);
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
        ctx.writeAndFlush(new FramedFile(file, servedBytes, mac)).addListener(finished);
    }

    /** The END frame of a stream of {@code total} bytes: {@code total:8}, then the tag if {@code mac}. */
    private static ByteBuf end(ByteBufAllocator alloc, long total, Mac mac) {
        int body = 8 + (mac == null ? 0 : SnapshotAuthenticator.TAG_BYTES);
        ByteBuf end = alloc.buffer(Frames.HEADER + body);
        Frames.writeHeader(end, ClientWire.SNAPSHOT_END, body);
        end.writeLong(total);
        if (mac != null) {
            end.writeBytes(SnapshotAuthenticator.finish(mac, total));
        }
        return end;
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

    /**
     * A file as a sequence of CHUNK frames, then END with the total size (and the tag, when
     * authenticated). Used on one event loop.
     */
    private static final class FramedFile implements ChunkedInput<ByteBuf> {
        private final FileChannel file;
        private final Counter bytesRead;
        /** The stream's tag so far, or {@code null}. */
        private final Mac mac;
        private long position;
        private boolean endSent;

        FramedFile(FileChannel file, Counter bytesRead, Mac mac) {
            this.file = file;
            this.bytesRead = bytesRead;
            this.mac = mac;
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
                if (mac != null) {
                    mac.update(buf.nioBuffer(Frames.HEADER, n));
                }
                position += n;
                bytesRead.increment(n);
                return buf;
            }
            if (!endSent) {
                endSent = true;
                return end(alloc, position, mac);
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
