package dev.parallax.core.net;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.time.Clock;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.wire.tls.TlsGate;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The sender stage of one peer of a {@link ReplicaPort}: owns the outbound connection to that peer
 * and drains every channel's send queue for it, encoding a batch of frames (with an
 * {@code ANNOUNCE} before a channel's first frame on each connection) written with one flush. While
 * the connection is down it drops the queued messages, counting them, and redials with exponential
 * back-off (10 ms to 1 s); a connection the peer closes within a second of opening counts as a
 * failed attempt. With TLS on, nothing is sent before the peer's certificate proved it is the
 * replica dialled; every connection then opens with {@code HELLO}.
 *
 * <p>A membership change moves the peer ({@link #moveTo}: the connection to its old address is
 * closed and the new one dialled) or retires it ({@link #retire}: its connection is closed, nothing
 * is dialled, what is still queued is dropped and counted) until it is moved back in.
 *
 * <p>{@link #doWork} runs on the stage's thread and never blocks: while the peer reads slowly (the
 * connection is not writable) messages stay queued. Connection attempts complete on a Netty IO
 * thread, which hands the outcome over through volatile fields. {@link #closeChannel} is called by
 * the port's owner once the stage has stopped, and blocks until the connection has closed.
 * {@link #moveTo} and {@link #retire} are called from any thread (under the port's membership
 * monitor) and never block.
 */
final class PeerSender implements Stage {
    private static final long MIN_BACKOFF = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_BACKOFF = TimeUnit.SECONDS.toNanos(1);
    private static final int BATCH = 256;

    private final ReplicaConfig config;
    private final int peer;
    /** Where the peer listens; a membership change may move it. */
    private volatile Member target;
    /** The address the current connection was dialled at (IO thread writes, sender thread reads). */
    private volatile Member connectedTo;
    /** The peer was removed from the group: no connection, queued messages dropped. */
    private volatile boolean retired;
    private final Bootstrap bootstrap;
    private final List<PortChannel<?>> channels;
    private final Clock clock;
    private final NetMetrics metrics;
    private final boolean tls;
    private final BooleanSupplier portClosed;
    private final List<BoundedQueue<?>> queues = new ArrayList<>();
    private final ByteBufWire.Writer writer = new ByteBufWire.Writer();
    /** Which channels were announced on {@link #announcedOn}; sender thread only. */
    private final boolean[] announced;
    private Channel announcedOn;
    private volatile Channel channel;
    /*
     * Written by the Netty listener of a connection attempt (an IO thread), read by the sender
     * thread: volatile. The listener writes nextAttempt/backoff/channel first and clears
     * attemptInFlight last, so a sender that sees no attempt in flight also sees its outcome
     * (a future that is merely done could be seen before its listener ran: no back-off).
     */
    private volatile boolean attemptInFlight;
    private volatile ChannelFuture connecting;
    private volatile long nextAttempt;
    private volatile long backoff = MIN_BACKOFF;
    /** When {@link #channel} was opened (IO thread writes, sender thread reads). */
    private volatile long openedAt;
    /** The last closed connection whose lifetime set the back-off; sender thread only. */
    private Channel closedSeen;
    private ByteBuf batch;

    /**
     * @param bootstrap  dials the peer (its pipeline verifies the peer's certificate with TLS on)
     * @param channels   every channel of the port, in number order
     * @param tls        whether connections run TLS (a {@link TlsGate} is then in their pipeline)
     * @param portClosed whether the port has closed: no more connection attempts
     */
    PeerSender(ReplicaConfig config, Member peer, Bootstrap bootstrap, List<PortChannel<?>> channels, Clock clock,
               NetMetrics metrics, boolean tls, BooleanSupplier portClosed) {
        this.config = config;
        this.peer = peer.id();
        this.target = peer;
        this.bootstrap = bootstrap;
        this.channels = channels;
        this.clock = clock;
        this.metrics = metrics;
        this.tls = tls;
        this.portClosed = portClosed;
        for (PortChannel<?> c : channels) {
            queues.add(c.queue(peer.id()));
        }
        this.announced = new boolean[ChannelRegistry.MAX_CHANNELS + 1];
    }

    @Override
    public String name() {
        return "replica-send-" + config.id() + "-to-" + peer;
    }

    @Override
    public List<? extends BoundedQueue<?>> inputQueues() {
        return queues;
    }

    @Override
    public int doWork() {
        Channel ch = channel;
        if (ch != null && ch.isActive() && (retired || connectedTo != target)) {
            ch.close(); // removed, or moved: never talk to the old address again
        }
        if (ch == null || !ch.isActive() || retired || connectedTo != target) {
            int dropped = 0;
            for (PortChannel<?> c : channels) {
                dropped += c.queue(peer).drain(m -> {
                    c.dropped.increment();
                    metrics.dropped();
                }, BATCH);
            }
            if (!retired) {
                connect();
            }
            return dropped;
        }
        if (!ch.isWritable()) {
            return 0; // the peer reads slowly: keep messages queued; senders see the queues fill up
        }
        if (announcedOn != ch) {
            Arrays.fill(announced, false);
            announcedOn = ch;
        }
        int n = 0;
        for (int i = 0; i < channels.size(); i++) {
            n += drainChannel(ch, channels.get(i));
        }
        if (batch != null) {
            ch.writeAndFlush(batch, ch.voidPromise());
            batch = null;
        }
        return n;
    }

    private <M> int drainChannel(Channel ch, PortChannel<M> c) {
        BoundedQueue<M> q = c.queue(peer);
        if (q.isEmpty()) {
            return 0;
        }
        if (batch == null) {
            batch = ch.alloc().ioBuffer(16 * 1024);
        }
        if (!announced[c.number]) {
            byte[] name = c.name.getBytes(StandardCharsets.UTF_8);
            int at = Frames.startFrame(batch, ReplicaPort.ANNOUNCE);
            batch.writeByte(ReplicaPort.CONTROL).writeByte(c.number).writeInt(name.length).writeBytes(name);
            Frames.finishFrame(batch, at);
            announced[c.number] = true;
        }
        writer.on(batch);
        int from = batch.writerIndex();
        int n = q.drain(m -> {
            int at = Frames.startFrame(batch, c.codec.type(m));
            batch.writeByte(c.number);
            c.codec.encode(m, writer);
            Frames.finishFrame(batch, at);
        }, BATCH);
        c.bytesSent.increment(batch.writerIndex() - from);
        return n;
    }

    /**
     * Opens the connection, unless an attempt is under way or the back-off has not passed. A
     * connection that closed less than {@link #MAX_BACKOFF} after it opened counts as a failed
     * attempt (the peer accepts and then refuses us: a TLS or hello refusal), so such a peer
     * is retried with back-off, not in a loop; a longer-lived one resets the back-off.
     */
    private void connect() {
        if (attemptInFlight || portClosed.getAsBoolean()) {
            return;
        }
        long now = clock.nanoTime();
        Channel last = channel;
        if (last != null && last != closedSeen) {
            closedSeen = last;
            if (now - openedAt < MAX_BACKOFF) {
                backOff(now);
            } else {
                backoff = MIN_BACKOFF;
            }
        }
        if (now - nextAttempt < 0) {
            return;
        }
        attemptInFlight = true;
        Member to = target;
        ChannelFuture attempt = bootstrap.connect(to.host(), to.port());
        connecting = attempt;
        attempt.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                failed();
            } else if (!tls) {
                opened(f.channel(), to);
            } else {
                // Nothing is sent before the peer proved to be the replica this connection is for.
                f.channel().pipeline().get(TlsGate.class).verified().addListener(v -> {
                    if (v.isSuccess()) {
                        opened(f.channel(), to);
                    } else {
                        failed();
                    }
                });
            }
        });
    }

    /** IO thread: the connection to {@code to} is up (and verified): hello, then hand it to the sender. */
    private void opened(Channel ch, Member to) {
        ByteBuf hello = ch.alloc().buffer(15);
        Frames.writeHeader(hello, ReplicaPort.HELLO, 9);
        hello.writeByte(ReplicaPort.CONTROL).writeInt(config.id()).writeInt(config.members().size());
        ch.writeAndFlush(hello);
        openedAt = clock.nanoTime();
        connectedTo = to;
        channel = ch;
        attemptInFlight = false;
    }

    /** IO thread: the attempt failed; the next one waits for the back-off. */
    private void failed() {
        metrics.connectFailed();
        backOff(clock.nanoTime());
        attemptInFlight = false;
    }

    private void backOff(long now) {
        long wait = backoff;
        nextAttempt = now + wait;
        backoff = Math.min(MAX_BACKOFF, wait * 2);
    }

    /**
     * The peer (re)joined the group at {@code to}: dial it there from now on. A connection to
     * another address is closed; one to this address is kept. Any thread; never blocks.
     */
    void moveTo(Member to) {
        retired = false;
        if (!to.equals(target)) {
            target = to;
            dropConnection();
        }
    }

    /** The peer left the group: close its connection, dial it no more. Any thread; never blocks. */
    void retire() {
        retired = true;
        dropConnection();
    }

    /** Asks Netty to close the connection and cancels an attempt under way; does not wait. */
    private void dropConnection() {
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
        ChannelFuture attempt = connecting;
        if (attempt != null) {
            attempt.cancel(false);
        }
    }

    /** Closes the connection (blocking until it has) and cancels an attempt under way. */
    void closeChannel() {
        Channel ch = channel;
        if (ch != null) {
            ch.close().syncUninterruptibly();
        }
        ChannelFuture attempt = connecting;
        if (attempt != null) {
            attempt.cancel(false);
        }
    }
}
