package dev.parallax.core.net;

import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.Names;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.stage.StageHandle;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * A datagram group over IPv4 multicast, as a {@link Transport}: {@link #sendDatagram sendDatagram(0, m)}
 * sends {@code m} as one UDP datagram to every other member that joined the group; {@link #send} is
 * not supported. Plain JDK {@link DatagramChannel}, no Netty. What M-Ring's coordinator uses for
 * Phase 2A and decisions (seed 003 (Ring Paxos) §3.3.2, Alg. 2 l.17–18 and l.34): ip-multicast, so
 * the coordinator sends each value once whatever the number of receivers.
 *
 * <h2>Socket</h2>
 * One channel, {@code INET}, {@code SO_REUSEADDR} (several members, or clusters, may share a host),
 * bound to {@code group:port}, joined to the group on the configured interface, which is also
 * {@code IP_MULTICAST_IF}; {@code IP_MULTICAST_LOOP} on (members on one host hear each other),
 * {@code IP_MULTICAST_TTL} as configured, {@code SO_RCVBUF}/{@code SO_SNDBUF} as requested. The
 * kernel may grant less ({@code net.core.rmem_max}): the granted sizes are the gauge
 * {@code parallax.net.datagram.socket.buffer{buffer=receive|send}}, with a WARN when below the
 * request. A socket that cannot be opened fails the constructor.
 *
 * <h2>Wire</h2>
 * {@code magic:2 "PX" version:1 clusterTag:4 sender:2 type:1 body} ({@link #HEADER_BYTES} bytes of
 * header), the body as the channel's {@link MessageCodec} writes it, then, when the group is
 * {@linkplain DatagramGroupConfig#authenticated authenticated} (version 2), the trailer
 * {@code epoch:8 counter:8 tag:16} ({@link #AUTH_TRAILER_BYTES}): an HMAC-SHA256, truncated to 16
 * bytes, under a key derived from the cluster secret for this channel, over every byte before the
 * tag; the epoch is this port's incarnation (random, chosen when it opens), the counter its
 * datagrams in send order from 1. {@code clusterTag} is the CRC32C of the cluster's membership
 * ({@link #clusterTag}), so clusters sharing a group and port ignore each other; it is public and
 * proves nothing. A datagram whose header and body exceed {@link DatagramGroupConfig#packetBytes}
 * is refused at the sender ({@code sendDatagram} returns {@code false}) and dropped at a receiver;
 * the trailer comes on top.
 *
 * <h2>Authentication</h2>
 * An authenticated group refuses to open without a cluster secret ({@link ReplicaConfig#clusterSecret}):
 * the constructor fails naming {@code cluster.secret} and {@code mring.auth}. A receiver drops, and
 * counts as {@code unauthenticated}, every datagram without a valid tag (version 1, or a trailer
 * that does not verify), and as {@code replayed} every verified datagram whose counter its
 * {@code ReplayWindow} has seen from that sender epoch (or is below the window). Both are logged,
 * rate-limited, with the source address and the sender claimed. An unauthenticated group
 * ({@code mring.auth=none}, isolated test networks only) sends version 1 and drops version 2.
 *
 * <h2>Sending</h2>
 * {@code sendDatagram} encodes on the caller's thread (so an oversized message is refused there) and
 * queues the datagram in a bounded queue ({@link ReplicaConfig#sendQueueCapacity}); one sender stage,
 * run on the given {@link StageThreads}, is the only writer of the socket. A full queue refuses the
 * message. The caller never blocks.
 *
 * <h2>Receiving</h2>
 * One receiver thread waits on a {@link Selector} (10 ms ticks, so {@link #close} and the fault
 * injector's flush are noticed) and drains the socket. Datagrams that are oversized, from this
 * member itself (the loop-back of its own sends), of another cluster, or malformed (short, bad
 * magic or version, a sender id above {@value Member#MAX_ID}, a body the codec refuses) are dropped and
 * counted, never
 * thrown. With {@link DatagramGroupConfig#faults} active, the rest pass a
 * {@link DatagramFaultInjector} first. Then the sender is stamped ({@link ArrivalStamps}, like the
 * TCP port stamps each frame) and the decoded message handed to the handler.
 *
 * <h2>Meters</h2>
 * {@code parallax.net.datagrams{result=sent|received|dropped,
 * reason=none|foreign|size|fault|queue|own|malformed|unauthenticated|replayed|error}},
 * {@code parallax.net.datagram.bytes.sent} (header and trailer included), each also tagged {@code channel} and
 * {@code replica}.
 *
 * <h2>Threads</h2>
 * {@link #sendDatagram} from any thread, never blocking; {@link #start} once; {@link #close} once by the
 * owner (idempotent): it stops the receiver thread and the sender stage and closes the socket, so no
 * thread is left behind. The sender stage seals (the HMAC costs one pass over each datagram there),
 * the receiver thread verifies.
 *
 * @param <M> message type
 */
public final class DatagramPort<M> implements Transport<M> {
    /** Bytes of the datagram header. */
    public static final int HEADER_BYTES = 10;
    /** Bytes of the authentication trailer of an authenticated group's datagrams: epoch, counter, tag. */
    public static final int AUTH_TRAILER_BYTES = DatagramAuthenticator.TRAILER_BYTES;
    static final int MAGIC = ('P' << 8) | 'X';
    /** The version of an unauthenticated datagram. */
    static final int VERSION = 1;
    /** The version of an authenticated datagram (with the trailer). */
    static final int VERSION_AUTHENTICATED = 2;
    private static final int RECEIVE_BYTES = 65_536;
    private static final int BATCH = 64;
    private static final long SELECT_MILLIS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(DatagramPort.class);
    private static final LogRateLimiter WARNINGS = LogRateLimiter.withDefaults("datagram group drops");

    private final int self;
    /**
     * Sender ids accepted: {@code 0..}{@value Member#MAX_ID}, not only the cluster file's members — a
     * member added at run time (a replica that joined, {@code ReplicaConfig#joinAddress}) sends to
     * the group as the others do, as the replica port accepts its hello.
     */
    private static final int SENDERS = Member.MAX_ID + 1;
    private final String channelName;
    private final MessageCodec<M> codec;
    private final DatagramGroupConfig group;
    private final int tag;
    private final InetSocketAddress target;
    private final StageThreads threads;
    private final Clock clock;
    private final DatagramChannel socket;
    private final Selector selector;
    private final BoundedQueue<ByteBuffer> queue;
    private final DatagramFaultInjector<ByteBuffer> injector;
    private final int receiveBuffer;
    private final int sendBuffer;
    private final DatagramCounters counters;
    /** Authenticated groups: the sender stage's sealer, the receiver's verifier, and the receiver's replay window. */
    private final DatagramAuthenticator sealer;
    private final DatagramAuthenticator verifier;
    private final ReplayWindow replays;
    /** This port's incarnation, in every trailer it seals. */
    private final long epoch;
    private final int trailer;
    private volatile MessageHandler<M> handler;
    private volatile ArrivalStamps stamps = ArrivalStamps.NONE;
    private volatile boolean closed;
    private Thread receiver;
    private StageHandle sender;

    /**
     * Opens the socket and joins the group; nothing runs until {@link #start}.
     *
     * @param config  this replica: its id, the membership (the cluster tag), the send queue capacity
     * @param channel the group's name, the {@code channel} tag of its meters
     * @param threads where the sender stage runs (the replica's placement)
     * @throws IllegalArgumentException if the channel name is malformed
     * @throws IllegalStateException    if the group is authenticated and the configuration has no cluster
     *                                  secret, or its packets leave no room for the trailer; if the socket cannot
     *                                  be opened, bound or joined to the group (no interface with the configured
     *                                  address, ...)
     */
    public DatagramPort(ReplicaConfig config, String channel, MessageCodec<M> codec, DatagramGroupConfig group,
                         MeterRegistry registry, StageThreads threads, Clock clock) {
        Names.check("channel", channel);
        this.self = config.id();
        this.channelName = channel;
        this.codec = Objects.requireNonNull(codec);
        this.group = Objects.requireNonNull(group);
        this.threads = Objects.requireNonNull(threads);
        this.clock = Objects.requireNonNull(clock);
        this.tag = clusterTag(config.members());
        this.target = new InetSocketAddress(group.groupAddress(), group.port());
        this.queue = Queues.mpsc(config.sendQueueCapacity());
        this.injector = group.faults().active() ? new DatagramFaultInjector<>(group.faults(), self) : null;
        this.sealer = DatagramAuthenticator.forGroup(config, channel, group);
        this.verifier = DatagramAuthenticator.forGroup(config, channel, group);
        this.replays = sealer == null ? null : new ReplayWindow(SENDERS);
        this.epoch = sealer == null ? 0 : new SecureRandom().nextLong();
        this.trailer = sealer == null ? 0 : AUTH_TRAILER_BYTES;
        DatagramChannel ch = null;
        Selector sel = null;
        try {
            NetworkInterface nif = group.interfaceByName() ? NetworkInterface.getByName(group.interfaceAddress())
                    : NetworkInterface.getByInetAddress(group.interfaceInetAddress());
            if (nif == null) {
                throw new IllegalStateException("datagram group '" + channel + "': no network interface "
                        + (group.interfaceByName() ? "is called " : "has the address ") + group.interfaceAddress()
                        + " (mring.interface)");
            }
            ch = DatagramChannel.open(StandardProtocolFamily.INET);
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, group.socketBufferBytes());
            ch.setOption(StandardSocketOptions.SO_SNDBUF, group.socketBufferBytes());
            ch.bind(target);
            ch.setOption(StandardSocketOptions.IP_MULTICAST_IF, nif);
            ch.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            ch.setOption(StandardSocketOptions.IP_MULTICAST_TTL, group.ttl());
            ch.join(group.groupAddress(), nif);
            ch.configureBlocking(false);
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            this.receiveBuffer = ch.getOption(StandardSocketOptions.SO_RCVBUF);
            this.sendBuffer = ch.getOption(StandardSocketOptions.SO_SNDBUF);
        } catch (IOException | RuntimeException e) {
            closeQuietly(sel);
            closeQuietly(ch);
            if (e instanceof IllegalStateException ise) {
                throw ise;
            }
            throw new IllegalStateException("datagram group '" + channel + "': cannot join " + group.group() + ":"
                    + group.port() + " on " + group.interfaceAddress() + ": " + e, e);
        }
        this.socket = ch;
        this.selector = sel;
        this.counters = new DatagramCounters(registry, channel, self);
        counters.socketBuffer("receive", receiveBuffer);
        counters.socketBuffer("send", sendBuffer);
        if (receiveBuffer < group.socketBufferBytes() || sendBuffer < group.socketBufferBytes()) {
            LOG.warn("replica {}: datagram group '{}': the kernel granted socket buffers of {} B (receive) and {} B (send), "
                    + "below the {} B asked (mring.socket.buffer.bytes); raise net.core.rmem_max / wmem_max, "
                    + "or expect datagrams lost when a receiver falls behind", self, channel, receiveBuffer, sendBuffer,
                    group.socketBufferBytes());
        }
        LOG.info("replica {}: joined datagram group '{}' {}:{} on {} (ttl {}, packets <= {} B, {}{})", self, channel,
                group.group(), group.port(), group.interfaceAddress(), group.ttl(), group.packetBytes(),
                group.authenticated() ? "authenticated" : "NOT authenticated",
                injector == null ? "" : ", test faults " + group.faults());
        if (!group.authenticated()) {
            LOG.warn("replica {}: datagram group '{}' is not authenticated (mring.auth=none): anyone who can send to {}:{} "
                    + "can forge its datagrams; for isolated test networks only", self, channel, group.group(), group.port());
        }
    }

    /**
     * The cluster tag of a membership: the CRC32C of {@code id=host:port,} for every member in id
     * order. Two clusters differ in it unless they have the very same members.
     */
    public static int clusterTag(ClusterMembers members) {
        CRC32C crc = new CRC32C();
        for (Member m : members.members()) {
            crc.update((m.id() + "=" + m.host() + ":" + m.port() + ",").getBytes(StandardCharsets.UTF_8));
        }
        return (int) crc.getValue();
    }

    /** The group's name ({@code channel} tag of its meters). */
    public String channel() {
        return channelName;
    }

    /** The receive buffer the kernel granted, in bytes. */
    public int receiveBufferBytes() {
        return receiveBuffer;
    }

    @Override
    public int localId() {
        return self;
    }

    @Override
    public void start(MessageHandler<M> messageHandler) {
        start(messageHandler, ArrivalStamps.NONE);
    }

    /** Starts the receiver thread and the sender stage; {@code arrivals} is stamped for every datagram handed on. */
    @Override
    public synchronized void start(MessageHandler<M> messageHandler, ArrivalStamps arrivals) {
        Objects.requireNonNull(messageHandler);
        Objects.requireNonNull(arrivals);
        if (handler != null || closed) {
            throw new IllegalStateException("datagram group '" + channelName + "' already started or closed");
        }
        stamps = arrivals;
        handler = messageHandler;
        sender = threads.run(new Sender());
        receiver = StageThreads.newThread("replica-" + self + "-" + channelName + "-receiver", true, this::receive);
        receiver.start();
    }

    /** @throws UnsupportedOperationException always: a datagram group has no point-to-point sends */
    @Override
    public boolean send(int to, M message) {
        throw new UnsupportedOperationException("datagram group '" + channelName + "' only sends datagrams");
    }

    /**
     * Nothing to do: a group has no member addresses — a member added at run time hears the group
     * once it joined it, and its datagrams are accepted like any member's (ids up to
     * {@value Member#MAX_ID}). So a union of this group and a TCP channel ({@code Channels.union})
     * takes membership changes. Any thread, idempotent.
     */
    @Override
    public void addMember(int id, String host, int port) {
        // The group reaches whoever joined it.
    }

    /**
     * Nothing to do: the group is open (whoever joins it hears it); a removed member's datagrams
     * reach the protocol, which ignores a member that is not in its set. Any thread, idempotent.
     */
    @Override
    public void removeMember(int id) {
        // The group cannot exclude a member: see the class comment.
    }

    /**
     * Encodes {@code message} on the calling thread and queues it for the sender stage. Non-blocking.
     *
     * @return {@code false} if refused: larger than the packet size, the queue is full, or closed
     * @throws IllegalArgumentException if {@code group} is not 0 (a port is one group)
     */
    @Override
    public boolean sendDatagram(int groupNumber, M message) {
        if (groupNumber != 0) {
            throw new IllegalArgumentException("datagram group '" + channelName + "' is group 0, not " + groupNumber);
        }
        if (closed) {
            return false;
        }
        // grows only for a message refused below
        ByteBufferWire.Writer w = new ByteBufferWire.Writer(group.packetBytes() + trailer);
        w.putByte(MAGIC >>> 8).putByte(MAGIC & 0xff).putByte(sealer == null ? VERSION : VERSION_AUTHENTICATED).putInt(tag)
                .putByte(self >>> 8).putByte(self & 0xff).putByte(codec.type(message));
        codec.encode(message, w);
        for (int i = 0; i < trailer; i += 8) {
            w.putLong(0); // the trailer, sealed by the sender stage
        }
        ByteBuffer datagram = w.toBuffer();
        if (datagram.remaining() - trailer > group.packetBytes()) {
            counters.dropped(DatagramCounters.Drop.SIZE);
            WARNINGS.warn(LOG, "replica {}: datagram group '{}': refused a {}-byte datagram (mring.packet.bytes {})", self,
                    channelName, datagram.remaining() - trailer, group.packetBytes());
            return false;
        }
        if (!queue.offer(datagram)) {
            counters.dropped(DatagramCounters.Drop.QUEUE);
            return false;
        }
        return true;
    }

    /** Receiver thread: select, drain, check, inject faults, stamp, decode, hand on; until closed. */
    private void receive() {
        ByteBuffer buf = ByteBuffer.allocateDirect(RECEIVE_BYTES);
        while (!closed) {
            try {
                selector.select(SELECT_MILLIS);
                selector.selectedKeys().clear();
                for (int i = 0; i < BATCH && !closed; i++) {
                    buf.clear();
                    SocketAddress source = socket.receive(buf);
                    if (source == null) {
                        break;
                    }
                    buf.flip();
                    arrived(buf, source);
                }
                if (injector != null) {
                    injector.flush(clock.nanoTime(), this::deliver);
                }
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (closed) {
                    return;
                }
                WARNINGS.warn(LOG, "replica {}: datagram group '{}': receive failed: {}", self, channelName, e.toString());
            }
        }
    }

    /** One datagram, the buffer from position to limit: header checks, authentication, then faults and delivery. */
    private void arrived(ByteBuffer d, SocketAddress source) {
        int size = d.remaining();
        if (size > group.packetBytes() + trailer) {
            counters.dropped(DatagramCounters.Drop.SIZE);
            return;
        }
        if (size < HEADER_BYTES) {
            malformed("a " + size + "-byte datagram, shorter than the header");
            return;
        }
        int at = d.position();
        int magic = d.getShort(at) & 0xffff;
        int version = d.get(at + 2) & 0xff;
        if (magic != MAGIC || (version != VERSION && version != VERSION_AUTHENTICATED)) {
            malformed("magic " + Integer.toHexString(magic) + " version " + version);
            return;
        }
        if (d.getInt(at + 3) != tag) {
            counters.dropped(DatagramCounters.Drop.FOREIGN);
            return;
        }
        int from = d.getShort(at + 7) & 0xffff;
        if (from == self) {
            counters.dropped(DatagramCounters.Drop.OWN);
            return;
        }
        if (from >= SENDERS) {
            malformed("sender " + from + " (ids are 0.." + Member.MAX_ID + ")");
            return;
        }
        if (sealer == null) {
            if (version != VERSION) {
                malformed("an authenticated datagram claiming member " + from + " (mring.auth=none here, not at its sender?)");
                return;
            }
        } else if (!authentic(d, version, from, source)) {
            return;
        }
        size = d.remaining();
        if (injector == null) {
            deliver(d);
            return;
        }
        ByteBuffer copy = ByteBuffer.allocate(size).put(d).flip();
        if (injector.offer(copy, clock.nanoTime(), this::deliver) == 0) {
            counters.dropped(DatagramCounters.Drop.FAULT);
        }
    }

    /**
     * Checks the trailer of {@code d} and its counter; on success strips the trailer (the limit moves
     * back) and returns true, else counts and logs the drop.
     */
    private boolean authentic(ByteBuffer d, int version, int from, SocketAddress source) {
        if (version != VERSION_AUTHENTICATED || d.remaining() < HEADER_BYTES + AUTH_TRAILER_BYTES || !verifier.verify(d)) {
            counters.dropped(DatagramCounters.Drop.UNAUTHENTICATED);
            WARNINGS.warn(LOG, "replica {}: datagram group '{}': dropped an unauthenticated datagram from {} claiming member {} "
                    + "(no valid HMAC under the cluster secret: a forgery, or a sender with another cluster.secret)", self,
                    channelName, source, from);
            return false;
        }
        long senderEpoch = DatagramAuthenticator.epoch(d);
        long counter = DatagramAuthenticator.counter(d);
        if (!replays.accept(from, senderEpoch, counter)) {
            counters.dropped(DatagramCounters.Drop.REPLAYED);
            WARNINGS.warn(LOG, "replica {}: datagram group '{}': dropped a replayed datagram from {}: member {}'s counter {} "
                    + "was seen, or is too old", self, channelName, source, from, counter);
            return false;
        }
        d.limit(d.limit() - AUTH_TRAILER_BYTES);
        return true;
    }

    /** Stamps the sender, decodes, hands on. The header was checked, the trailer stripped. */
    private void deliver(ByteBuffer d) {
        ByteBuffer b = d.duplicate();
        int at = b.position();
        int from = b.getShort(at + 7) & 0xffff;
        int type = b.get(at + 9) & 0xff;
        b.position(at + HEADER_BYTES);
        stamps.heard(from);
        M message;
        try {
            message = codec.decode(type, new ByteBufferWire.Reader(b));
        } catch (RuntimeException e) {
            malformed("undecodable datagram of type " + type + " from " + from + ": " + e);
            return;
        }
        counters.received.increment();
        try {
            handler.onMessage(from, message);
        } catch (RuntimeException e) {
            WARNINGS.warn(LOG, "replica {}: datagram group '{}': handler failed on a message from {}: {}", self, channelName,
                    from, e.toString());
        }
    }

    private void malformed(String what) {
        counters.dropped(DatagramCounters.Drop.MALFORMED);
        WARNINGS.warn(LOG, "replica {}: datagram group '{}': dropped {}", self, channelName, what);
    }

    /** Stops the receiver thread and the sender stage, closes the socket. Idempotent; blocks until they stopped. */
    @Override
    public void close() {
        Thread r;
        StageHandle s;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            r = receiver;
            s = sender;
        }
        selector.wakeup();
        if (r != null) {
            try {
                r.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (s != null) {
            s.close();
        }
        closeQuietly(selector);
        closeQuietly(socket);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("closing a datagram socket failed: {}", e.toString());
        }
    }

    /** The sender stage: the only writer of the socket; drains the queue in batches. */
    private final class Sender implements Stage {
        /** A datagram the socket had no room for; sent first next time (already sealed). */
        private ByteBuffer pending;
        /** Datagrams sealed so far: the counter of the last. */
        private long sealed;

        @Override
        public String name() {
            return "mcast-send-" + self + "-" + channelName;
        }

        @Override
        public List<? extends BoundedQueue<?>> inputQueues() {
            return List.of(queue);
        }

        @Override
        public int doWork() {
            int n = 0;
            if (pending != null) {
                if (!write(pending)) {
                    return 0;
                }
                pending = null;
                n++;
            }
            while (n < BATCH) {
                ByteBuffer d = queue.poll();
                if (d == null) {
                    break;
                }
                if (sealer != null) {
                    sealer.seal(d, epoch, ++sealed);
                }
                if (!write(d)) {
                    pending = d;
                    break;
                }
                n++;
            }
            return n;
        }

        /** @return false if the socket had no room (try again later); true if sent or dropped for an error */
        private boolean write(ByteBuffer d) {
            int size = d.remaining();
            try {
                if (socket.send(d, target) == 0) {
                    return false;
                }
                counters.sent.increment();
                counters.bytesSent.increment(size);
            } catch (IOException | RuntimeException e) {
                counters.dropped(DatagramCounters.Drop.ERROR);
                if (!closed) {
                    WARNINGS.warn(LOG, "replica {}: datagram group '{}': send failed: {}", self, channelName, e.toString());
                }
            }
            return true;
        }

        @Override
        public void onClose() {
            pending = null;
            queue.drain(d -> { }, Integer.MAX_VALUE);
        }
    }
}
