package dev.parallax.core.replica;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsGate;
import dev.parallax.core.wire.tls.TlsRefusals;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.snapshot.SnapshotStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.Mac;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

/**
 * The fetching side of snapshot transfer, for a replica that needs instances its peers trimmed:
 * asks a peer's {@link SnapshotServer} over its client port and receives the file into a
 * temporary file next to the {@link SnapshotStore}, then installs it (checksum verified by the
 * store) and hands it to the {@link Installer} (the ServiceManager).
 *
 * <p>Limits: one fetch at a time (a fetch asked for while one runs is {@link Outcome#BUSY});
 * a fetch is abandoned after {@code idleTimeout} without a byte from the peer (a stalled peer
 * that keeps the connection open), after which the next fetch runs; the receiver reads the file
 * size from the snapshot header in the first bytes and refuses a file larger than
 * {@code maxBytes}, more bytes than announced, or an END whose total differs. Every failed fetch
 * is counted in {@code parallax.snapshots.fetch.failed} by reason. With TLS on the client ports,
 * the fetch runs over TLS and sends its request only once the peer's certificate proved to be
 * that replica's ({@code parallax-replica-<peer>}); otherwise it fails as {@link Outcome#UNREACHABLE}.
 *
 * <p><b>Authentication.</b> A checksum proves only that the file arrived whole, not who made it:
 * over a plain client port anyone on the path, or anyone who can take a peer's address, could
 * serve a well-formed snapshot and install any state. So with a cluster secret (whatever the TLS
 * settings) every request carries a fresh nonce and the peer's END a tag under the secret over
 * the nonce, the peer's id, the request and every byte of the file ({@link SnapshotAuthenticator});
 * the fetcher recomputes it over what it wrote and installs only on an exact match. A missing or
 * wrong tag ends the fetch as {@link Outcome#UNAUTHENTICATED}: logged at ERROR naming the peer,
 * counted ({@code reason="unauthenticated"}), the temporary file deleted, nothing installed; the
 * next fetch (from whichever peer the protocol asks) runs as after any other failure. Without a
 * secret, only TLS on the client port authenticates the peer; a replica with mutual TLS between
 * replicas but a plain client port and no secret does not start
 * ({@link SnapshotAuthenticator#forReplica}).
 *
 * <p>Threads: {@link #fetch} from any thread, non-blocking. Receiving runs on one dedicated event
 * loop, installation on one dedicated thread (at most one install pending).
 */
final class SnapshotTransfer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotTransfer.class);

    /** Receives a verified, installed snapshot; the ServiceManager. */
    @FunctionalInterface
    interface Installer {
        /**
         * @throws IOException if the snapshot cannot be restored
         * @throws InterruptedException if interrupted while waiting for the executor
         */
        void install(SnapshotStore.Snapshot snapshot) throws IOException, InterruptedException;
    }

    /** How a fetch ended. */
    enum Outcome {
        /** Received, verified and installed. */
        INSTALLED,
        /** Not started: another fetch is under way. */
        BUSY,
        /** No byte from the peer within the idle timeout. */
        TIMEOUT,
        /** The peer could not be reached. */
        UNREACHABLE,
        /** The connection closed before the END frame. */
        CLOSED,
        /** The peer has no snapshot covering the instance asked for. */
        MISSING,
        /** The peer answered SNAPSHOT_ERROR. */
        REFUSED,
        /** The file announced or received is larger than allowed. */
        TOO_LARGE,
        /** The bytes received differ from what the header or END announced. */
        SIZE_MISMATCH,
        /** A frame that has no place in a transfer, or a file that is not a snapshot. */
        PROTOCOL,
        /** The file arrived whole but its checksum does not verify, or it could not be restored. */
        DAMAGED,
        /** A local file error. */
        IO_ERROR,
        /**
         * The stream's tag under the cluster secret is missing or does not verify: a forged or
         * replayed stream, or a peer with another (or no) {@code cluster.secret}.
         */
        UNAUTHENTICATED
    }

    private final int self;
    private final ClusterMembers peers;
    private final SnapshotStore store;
    private final Installer target;
    private final Duration idleTimeout;
    private final long maxBytes;
    private final int maxFrameBytes;
    private final NioEventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("snapshot-fetch", true));
    private final ThreadPoolExecutor installer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(1), new DefaultThreadFactory("snapshot-install", true));
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Map<Outcome, Counter> failed = new EnumMap<>(Outcome.class);
    private final Counter started;
    /** TLS to the peers' client ports, or {@code null}. */
    private final TlsContexts tls;
    private final TlsRefusals refusals;
    /** Authentication of the streams under the cluster secret, or {@code null}. */
    private final SnapshotAuthenticator auth;
    /** The client address of a peer that joined at run time (not one of {@link #peers}), or null: {@link #joinedPeers}. */
    private volatile IntFunction<Member> joined = id -> null;

    /** A fetcher over plain TCP without a cluster secret: nothing authenticates what it installs. */
    SnapshotTransfer(int self, ClusterMembers peers, SnapshotStore store, Installer target, Duration idleTimeout,
                     long maxBytes, int maxFrameBytes, MeterRegistry registry) {
        this(self, peers, store, target, idleTimeout, maxBytes, maxFrameBytes, registry, null, null);
    }

    /** A fetcher without a cluster secret; {@code tls} as below. */
    SnapshotTransfer(int self, ClusterMembers peers, SnapshotStore store, Installer target, Duration idleTimeout,
                     long maxBytes, int maxFrameBytes, MeterRegistry registry, TlsContexts tls) {
        this(self, peers, store, target, idleTimeout, maxBytes, maxFrameBytes, registry, tls, null);
    }

    /**
     * @param tls  TLS to the peers' client ports ({@code null}: plain TCP)
     * @param auth the cluster secret's authentication of every stream ({@code null}: none; see
     *             {@link SnapshotAuthenticator#forReplica} for when that is allowed)
     */
    SnapshotTransfer(int self, ClusterMembers peers, SnapshotStore store, Installer target, Duration idleTimeout,
                     long maxBytes, int maxFrameBytes, MeterRegistry registry, TlsContexts tls, SnapshotAuthenticator auth) {
        this.tls = tls;
        this.auth = auth;
        this.refusals = TlsRefusals.logged("snapshot", "replica " + self);
        this.self = self;
        this.peers = peers;
        this.store = store;
        this.target = target;
        this.idleTimeout = idleTimeout;
        this.maxBytes = maxBytes;
        this.maxFrameBytes = maxFrameBytes;
        String id = Integer.toString(self);
        this.started = Counter.builder("parallax.snapshots.fetch.started").description("snapshot fetches begun")
                .tag("replica", id).register(registry);
        for (Outcome o : Outcome.values()) {
            if (o != Outcome.INSTALLED && o != Outcome.BUSY) {
                failed.put(o, Counter.builder("parallax.snapshots.fetch.failed")
                        .description("snapshot fetches abandoned; a later fetch retries").tag("replica", id)
                        .tag("reason", o.name().toLowerCase(Locale.ROOT)).register(registry));
            }
        }
    }

    /**
     * Where to fetch from a peer outside the cluster file's members (a replica a membership change
     * added at run time): {@code addresses} gives its client address, or null while it is unknown
     * (the fetch then fails as {@link Outcome#UNREACHABLE} and the protocol asks again). Set once,
     * before the first fetch; {@code addresses} is called on the fetching thread and must not block.
     */
    void joinedPeers(IntFunction<Member> addresses) {
        this.joined = java.util.Objects.requireNonNull(addresses, "addresses");
    }

    /** {@code peer}'s client address: the file's, or a joined peer's ({@link #joinedPeers}); null if unknown. */
    private Member address(int peer) {
        return peer >= 0 && peer < peers.size() ? peers.member(peer) : joined.apply(peer);
    }

    /**
     * Starts fetching a snapshot covering at least {@code atLeast} from {@code peer}, unless one
     * is under way. Non-blocking.
     *
     * @return completes with how the fetch ended ({@link Outcome#BUSY} at once if another runs)
     */
    CompletableFuture<Outcome> fetch(int peer, long atLeast) {
        CompletableFuture<Outcome> result = new CompletableFuture<>();
        if (!busy.compareAndSet(false, true)) {
            result.complete(Outcome.BUSY);
            return result;
        }
        started.increment();
        Member m = address(peer);
        if (m == null) {
            LOG.warn("replica {}: cannot fetch a snapshot from replica {}: its address is not known here", self, peer);
            failed.get(Outcome.UNREACHABLE).increment();
            busy.set(false);
            result.complete(Outcome.UNREACHABLE);
            return result;
        }
        Fetch fetch;
        try {
            byte[] nonce = auth == null ? null : auth.nonce();
            Mac mac = auth == null ? null : auth.begin(nonce, peer, atLeast);
            Path tmp = Files.createTempFile(store.directory(), "incoming-", ".part");
            fetch = new Fetch(peer, atLeast, nonce, mac, tmp,
                    FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE), result);
        } catch (IOException | RuntimeException e) {
            LOG.warn("replica {}: cannot receive a snapshot: {}", self, e.toString());
            failed.get(Outcome.IO_ERROR).increment();
            busy.set(false);
            result.complete(Outcome.IO_ERROR);
            return result;
        }
        LOG.info("replica {}: fetching a snapshot (at least instance {}) from replica {}", self, atLeast, peer);
        long idleMillis = Math.max(1, idleTimeout.toMillis());
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, idleMillis))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.handler(tls.clientClient(), ch),
                                    new TlsGate(refusals, TlsConfig.replicaIdentity(peer)));
                        }
                        ch.pipeline().addLast(new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS),
                                Frames.decoder(maxFrameBytes), new Receiver(fetch));
                    }
                });
        try {
            b.connect(m.host(), m.port()).addListener((ChannelFuture f) -> {
                if (!f.isSuccess()) {
                    fetch.fail(Outcome.UNREACHABLE, "cannot connect to replica " + peer + ": " + f.cause());
                    return;
                }
                if (tls == null) {
                    request(f.channel(), fetch);
                    return;
                }
                f.channel().pipeline().get(TlsGate.class).verified().addListener(v -> {
                    if (v.isSuccess()) {
                        request(f.channel(), fetch);
                    } else {
                        f.channel().close();
                        fetch.fail(Outcome.UNREACHABLE, "no TLS connection to replica " + peer + ": " + v.cause().getMessage());
                    }
                });
            });
        } catch (RuntimeException e) {
            fetch.fail(Outcome.UNREACHABLE, "cannot connect to replica " + peer + ": " + e);
        }
        return result;
    }

    /** {@code atLeast:8}, then the nonce when the stream is to be authenticated. */
    private static void request(io.netty.channel.Channel ch, Fetch fetch) {
        int body = 8 + (fetch.nonce == null ? 0 : fetch.nonce.length);
        ByteBuf req = ch.alloc().buffer(Frames.HEADER + body);
        Frames.writeHeader(req, ClientWire.SNAPSHOT_REQUEST, body);
        req.writeLong(fetch.atLeast);
        if (fetch.nonce != null) {
            req.writeBytes(fetch.nonce);
        }
        ch.writeAndFlush(req);
    }

    /** One transfer's file and result; ends exactly once. */
    private final class Fetch {
        final int peer;
        final long atLeast;
        /** The request's nonce and the expected tag so far (fetch event loop only), or both {@code null}. */
        final byte[] nonce;
        final Mac mac;
        final Path tmp;
        final FileChannel out;
        final CompletableFuture<Outcome> result;
        final AtomicBoolean ended = new AtomicBoolean();

        Fetch(int peer, long atLeast, byte[] nonce, Mac mac, Path tmp, FileChannel out, CompletableFuture<Outcome> result) {
            this.peer = peer;
            this.atLeast = atLeast;
            this.nonce = nonce;
            this.mac = mac;
            this.tmp = tmp;
            this.out = out;
            this.result = result;
        }

        void fail(Outcome outcome, String why) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            try {
                out.close();
                Files.deleteIfExists(tmp);
            } catch (IOException e) {
                LOG.warn("replica {}: cleaning up a snapshot transfer: {}", self, e.toString());
            }
            failed.get(outcome).increment();
            if (outcome == Outcome.UNAUTHENTICATED) {
                LOG.error("replica {}: refused the snapshot from replica {} (unauthenticated): {}; nothing installed", self,
                        peer, why);
            } else {
                LOG.warn("replica {}: snapshot transfer from replica {} failed ({}): {}", self, peer,
                        outcome.name().toLowerCase(Locale.ROOT), why);
            }
            busy.set(false);
            result.complete(outcome);
        }

        /** The whole file arrived: force, verify and install it off the event loop. */
        void complete() {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            try {
                installer.execute(this::install);
            } catch (RejectedExecutionException e) {
                ended.set(false);
                fail(Outcome.IO_ERROR, "the installer is shut down or busy");
            }
        }

        private void install() {
            Outcome outcome = Outcome.INSTALLED;
            try {
                out.force(true);
                out.close();
                SnapshotStore.Snapshot s = store.install(tmp);
                target.install(s);
            } catch (IOException | RuntimeException e) {
                outcome = Outcome.DAMAGED;
                LOG.warn("replica {}: received snapshot could not be installed: {}", self, e.toString());
                failed.get(outcome).increment();
                try {
                    out.close();
                    Files.deleteIfExists(tmp);
                } catch (IOException cleanup) {
                    LOG.warn("replica {}: cleaning up a snapshot transfer: {}", self, cleanup.toString());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome = Outcome.IO_ERROR;
                failed.get(outcome).increment();
            } finally {
                busy.set(false);
                result.complete(outcome);
            }
        }
    }

    /** Writes the chunks of one transfer to its temporary file; everything on the fetch event loop. */
    private final class Receiver extends SimpleChannelInboundHandler<ByteBuf> {
        private final Fetch fetch;
        private long received;
        private long announced = -1;

        Receiver(Fetch fetch) {
            this.fetch = fetch;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (fetch.ended.get()) {
                return;
            }
            if (frame.readableBytes() < 2) {
                abort(ctx, Outcome.PROTOCOL, "a frame of " + frame.readableBytes() + " bytes");
                return;
            }
            int version = frame.readByte();
            int type = frame.readUnsignedByte();
            if (version != Frames.VERSION) {
                abort(ctx, Outcome.PROTOCOL, "wire version " + version);
            } else if (type == ClientWire.SNAPSHOT_CHUNK) {
                try {
                    chunk(ctx, frame);
                } catch (IOException e) {
                    abort(ctx, Outcome.IO_ERROR, "cannot write the received snapshot: " + e);
                }
            } else if (type == ClientWire.SNAPSHOT_END) {
                end(ctx, frame);
            } else if (type == ClientWire.SNAPSHOT_ERROR) {
                byte[] m = new byte[Math.max(0, frame.readableBytes() - 4)];
                frame.skipBytes(Math.min(4, frame.readableBytes())).readBytes(m);
                abort(ctx, Outcome.REFUSED, "the peer refused: " + new String(m, StandardCharsets.UTF_8));
            } else {
                abort(ctx, Outcome.PROTOCOL, "unexpected frame type " + type + " in a snapshot transfer");
            }
        }

        private void chunk(ChannelHandlerContext ctx, ByteBuf frame) throws IOException {
            int n = frame.readableBytes();
            long limit = announced >= 0 ? announced : maxBytes;
            if (received + n > limit) {
                abort(ctx, announced >= 0 ? Outcome.SIZE_MISMATCH : Outcome.TOO_LARGE,
                        "more than " + limit + " bytes" + (announced >= 0 ? " announced" : " allowed"));
                return;
            }
            if (fetch.mac != null) {
                fetch.mac.update(frame.nioBuffer());
            }
            while (frame.isReadable()) {
                received += frame.readBytes(fetch.out, received, frame.readableBytes());
            }
            if (announced < 0 && received >= SnapshotStore.HEADER_BYTES) {
                ByteBuffer h = ByteBuffer.allocate(SnapshotStore.HEADER_BYTES);
                fetch.out.read(h, 0);
                Optional<SnapshotStore.FileHeader> header = SnapshotStore.readHeader(h.flip());
                if (header.isEmpty()) {
                    abort(ctx, Outcome.PROTOCOL, "the file is not a snapshot");
                } else if (header.get().fileBytes() > maxBytes) {
                    abort(ctx, Outcome.TOO_LARGE, "a snapshot of " + header.get().fileBytes() + " bytes (limit " + maxBytes + ")");
                } else if (header.get().instance() < fetch.atLeast) {
                    abort(ctx, Outcome.PROTOCOL, "the snapshot covers below " + header.get().instance() + ", "
                            + fetch.atLeast + " was asked for");
                } else if (received > header.get().fileBytes()) {
                    abort(ctx, Outcome.SIZE_MISMATCH, received + " bytes for a file of " + header.get().fileBytes());
                } else {
                    announced = header.get().fileBytes();
                }
            }
        }

        private void end(ChannelHandlerContext ctx, ByteBuf frame) {
            int expected = 8 + (fetch.mac == null ? 0 : SnapshotAuthenticator.TAG_BYTES);
            if (fetch.mac != null && frame.readableBytes() == 8) {
                abort(ctx, Outcome.UNAUTHENTICATED, "its END carries no tag under the cluster secret (a peer without "
                        + "cluster.secret, or a forgery)");
                return;
            }
            if (frame.readableBytes() != expected) {
                abort(ctx, Outcome.PROTOCOL, "an END body of " + frame.readableBytes() + " bytes");
                return;
            }
            long total = frame.readLong();
            if (fetch.mac != null) {
                byte[] tag = new byte[SnapshotAuthenticator.TAG_BYTES];
                frame.readBytes(tag);
                if (!SnapshotAuthenticator.matches(SnapshotAuthenticator.finish(fetch.mac, total), tag)) {
                    abort(ctx, Outcome.UNAUTHENTICATED, "the tag of " + received + " bytes does not verify under the "
                            + "cluster secret (a forged or replayed stream, or a peer with another cluster.secret)");
                    return;
                }
            }
            if (total == 0 && received == 0) {
                abort(ctx, Outcome.MISSING, "the peer has no snapshot covering instance " + fetch.atLeast);
            } else if (total != received || received != announced) {
                abort(ctx, Outcome.SIZE_MISMATCH, "received " + received + " bytes, the peer announced " + total
                        + ", the header " + announced);
            } else {
                ctx.close();
                fetch.complete();
            }
        }

        private void abort(ChannelHandlerContext ctx, Outcome outcome, String why) {
            ctx.close();
            fetch.fail(outcome, why);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
                abort(ctx, Outcome.TIMEOUT, "nothing from the peer for " + idleTimeout.toMillis() + " ms");
            } else {
                ctx.fireUserEventTriggered(evt);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fetch.fail(Outcome.CLOSED, "connection closed mid-transfer after " + received + " bytes");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // An IOException here is the socket's (reset); a decoder error is a bad or oversized frame.
            abort(ctx, cause instanceof IOException ? Outcome.CLOSED : Outcome.PROTOCOL, cause.toString());
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        installer.shutdownNow();
    }
}
