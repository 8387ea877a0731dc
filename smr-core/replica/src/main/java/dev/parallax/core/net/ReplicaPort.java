package dev.parallax.core.net;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.Names;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageHandle;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.wire.tls.TlsContexts;
import dev.parallax.core.wire.tls.TlsRefusals;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The replica port (ReplicaIO, seed 000 (JPaxos staged replica) §V-B): replica-to-replica
 * messaging over TCP, shared by every protocol instance of the process through named
 * <b>channels</b> ({@link #channel}). Every replica listens on its member address and opens one
 * outbound connection to each peer; all channels share those connections.
 *
 * <h2>Wire</h2>
 * Frames are {@code length:4 version:1 type:1 channel:1 body} ({@link Frames}); channel 0 is the
 * port's own control channel: {@code HELLO} (type 0, {@code id:4 members:4}) opens every
 * connection, and {@code ANNOUNCE} (type 1, {@code number:1 name:bytes}) tells the receiver which
 * name the sender's channel number stands for, once per connection before the first frame of that
 * channel. Numbers are the sender's own, so two replicas need not open their channels in the same
 * order; they are matched by name.
 *
 * <h2>Sending</h2>
 * Per peer, one sender stage drains every channel's bounded send queue for that peer, encodes a
 * batch of frames and writes it with one flush, so protocol threads never block on a socket.
 * Messages to a peer whose connection is down are dropped and counted (TCP loses them too when a
 * connection breaks); a full send queue refuses the message. Outbound connections reconnect with
 * exponential back-off (10 ms to 1 s; a connection the peer closes within a second of opening
 * counts as a failed attempt, so a peer that refuses us is not redialled in a loop). Messages a
 * replica sends to itself are handed to the
 * channel's handler directly. The bytes of every frame written are counted per channel
 * ({@code parallax.net.bytes.sent{channel,replica}}, framing included, announcements not), so the
 * traffic of two protocols, or of two layers of one (S-Paxos' dissemination and ordering), is
 * measured apart.
 *
 * <h2>Receiving</h2>
 * A Netty IO thread per inbound connection decodes frames and hands each message to its channel's
 * {@link MessageHandler}, after stamping the sender's arrival ({@link ArrivalStamps}) for every
 * frame, whatever its channel. A frame for a channel this replica has not started (a protocol it
 * does not run, or not yet) is dropped and counted ({@code parallax.net.channel.unknown}). A
 * malformed frame, or a frame for a channel that was never announced, closes its connection with
 * a log line (rate-limited, {@link LogRateLimiter}) and {@code parallax.net.bad.frames} (exact); the other connections go on. So does a frame left
 * incomplete longer than {@link ReplicaConfig#partialFrameTimeout()}.
 *
 * <h2>Mutual TLS</h2>
 * With {@link TlsConfig#replicaPort()} on, every connection runs TLS under the frames, both ends
 * presenting their certificate and checking the other's against the CA ({@link TlsContexts}). The
 * accepting replica requires the peer's certificate to name the replica its HELLO announces
 * ({@code parallax-replica-<id>}, {@link dev.parallax.core.wire.tls.PeerIdentity}); the connecting
 * replica requires the accepting one's to name the peer it dialled, and sends nothing before that.
 * A failed handshake (no certificate, an untrusted one, bytes that are not TLS, a handshake past
 * {@link TlsConfig#handshakeTimeout()}) closes the connection and counts
 * {@code parallax.net.refused{kind=replica,reason=tls}}; a certificate naming another replica
 * counts {@code reason=identity} ({@link TlsRefusals}, logged rate-limited). So a process without
 * a certificate of the cluster's CA cannot join or send a single frame, and a replica cannot
 * speak as another.
 *
 * <h2>Membership</h2>
 * The port starts with the cluster file's members ({@link ReplicaConfig#members()}); a replica that
 * joins the group listens on its {@link ReplicaConfig#joinAddress()} and dials the same members.
 * {@link #addMember} (a membership change decided that a replica with an id up to
 * {@value Member#MAX_ID} joins at an address) starts a sender to it, or moves the existing one to
 * the new address, and from then on accepts its connections; {@link #removeMember} closes its
 * inbound and outbound connections, refuses every later frame on a connection it opened, and makes
 * {@code send} to it return {@code false} (counted as dropped). Both are idempotent, act on every
 * channel, and are remembered until the port starts if called before.
 *
 * <p>Who may connect: a {@code HELLO} must carry this replica's cluster-file size as
 * {@code members} and an id that is not this replica's, and (with TLS on) the peer's certificate
 * must name that id, as before; then the id must not be a removed member. A well-formed hello
 * from a removed replica is refused: the connection is closed, counted in
 * {@code parallax.net.refused{kind=replica,reason=member}} and logged (rate-limited), and no frame
 * of it is delivered or stamped. That is no bad frame. A replica never known here is heard: a
 * joining replica dials the group before the change that adds it is decided everywhere, and a
 * replica behind a change (a joiner catching up, a member that was down) must hear the members it
 * added, a leader among them; what a non-member's message may do is the protocol core's business
 * (Multi-Paxos counts only the votes of an instance's voters). Sends go to members only.
 *
 * <h2>Lifecycle and threads</h2>
 * Channels are opened before the port starts (a replica's protocols open theirs while being
 * built); the port starts — binds, connects, starts its sender stages on the given
 * {@link StageThreads} — when the first channel starts. {@link Transport#send} from any thread,
 * never blocking; {@link #close} once, by the owner (it closes every channel).
 *
 * <h2>Parts</h2>
 * The port holds its lifecycle; {@link ChannelRegistry} the channels ({@link PortChannel}) and
 * arrival stamps, {@link PortSockets} the Netty sockets and pipelines, {@link InboundDispatcher} the
 * decoding of one inbound connection, {@link PeerSender} the outbound connection and sends to one
 * peer, {@link PortMeters} the meters.
 */
public final class ReplicaPort implements AutoCloseable {
    /** Channel number of the port's control frames. */
    static final int CONTROL = 0;
    /** Control frame opening a connection: {@code id:4 members:4}. */
    static final int HELLO = 0;
    /** Control frame naming a channel number: {@code number:1 name:bytes}. */
    static final int ANNOUNCE = 1;

    private final ReplicaConfig config;
    private final StageThreads threads;
    private final Clock clock;
    private final PortMeters meters;
    private final ChannelRegistry channels = new ChannelRegistry();
    /** The peers; its monitor guards {@link #senders} and {@link #handles} and orders membership changes. */
    private final PeerTable peers;
    private final PortSockets sockets;
    /** Sender per peer id, made when the port starts or the peer is added; never removed before close. */
    private final PeerSender[] senders = new PeerSender[Member.MAX_ID + 1];
    private final StageHandle[] handles = new StageHandle[Member.MAX_ID + 1];
    private volatile boolean started;
    /** The sockets started: senders may be made. Guarded by {@link #peers}' monitor. */
    private boolean dialing;
    private volatile boolean closed;

    /**
     * @param threads where the per-peer sender stages run (the replica's placement)
     * @throws IllegalArgumentException if {@code config} turns TLS on and its files cannot be loaded
     */
    public ReplicaPort(ReplicaConfig config, MeterRegistry registry, StageThreads threads, Clock clock) {
        this.config = Objects.requireNonNull(config);
        Objects.requireNonNull(registry);
        this.threads = Objects.requireNonNull(threads);
        this.clock = Objects.requireNonNull(clock);
        this.meters = new PortMeters(registry, config.id());
        this.peers = new PeerTable(config);
        this.sockets = new PortSockets(config, meters, channels, peers);
    }

    /** Network meters of this port. */
    public NetMetrics metrics() {
        return meters.net();
    }

    /**
     * Opens the channel {@code name}: a {@link Transport} for messages encoded by {@code codec},
     * sharing this port's connections. Its {@code start} starts the port if it is not yet running.
     *
     * @param name 1..64 characters of {@code [a-z0-9.-]}, matched by name at the peers
     * @throws IllegalArgumentException if the name is malformed or taken
     * @throws IllegalStateException    if the port has started or closed, or 255 channels are open
     */
    public synchronized <M> Transport<M> channel(String name, MessageCodec<M> codec) {
        Names.check("channel", name);
        if (started || closed) {
            throw new IllegalStateException("channel '" + name + "' opened after the replica port started; "
                    + "open every channel while building the protocol");
        }
        Objects.requireNonNull(codec);
        synchronized (peers) {
            PortChannel<M> c = channels.open(name, number -> new PortChannel<>(number, name, codec, config, meters, this,
                    peers, this::channelStarted));
            for (int id = 0; id <= Member.MAX_ID; id++) {
                if (peers.known(id)) {
                    c.openQueue(id);
                }
            }
            return c;
        }
    }

    /**
     * Where member {@code id}'s replica port listens as this port knows it: the cluster file's
     * address, or the one {@link #addMember} gave (its last if it was removed since); null if it was
     * never a member here. Any thread.
     */
    public Member addedMember(int id) {
        return id < 0 || id > Member.MAX_ID ? null : peers.address(id);
    }

    /**
     * Adds replica {@code id} at {@code host:port}, or moves it there: every channel sends to it
     * and its connections are accepted ({@link Transport#addMember}). Idempotent. Before the port
     * starts it is remembered and its sender starts with the others. Any thread; never blocks (it
     * takes a monitor that no blocking call holds).
     *
     * @throws IllegalArgumentException if {@code id} is outside {@code 0..}{@value Member#MAX_ID} or
     *                                  is this replica's, or the address is malformed
     */
    public void addMember(int id, String host, int port) {
        if (id < 0 || id > Member.MAX_ID || id == config.id()) {
            throw new IllegalArgumentException("replica " + config.id() + " cannot add member " + id
                    + ": ids are 0.." + Member.MAX_ID + ", other than this replica's");
        }
        Member m = new Member(id, host, port);
        synchronized (peers) {
            if (closed || (peers.live(id) && m.equals(peers.address(id)))) {
                return;
            }
            for (PortChannel<?> c : channels.all()) {
                c.openQueue(id);
            }
            PeerSender s = senders[id];
            if (s != null) {
                s.moveTo(m);
                handles[id].wake();
            }
            peers.put(m); // live only now that every channel has its queue
            if (s == null && dialing) {
                startSender(m);
            }
        }
    }

    /**
     * Removes replica {@code id} ({@link Transport#removeMember}): its connections are closed, its
     * frames refused, sends to it return {@code false}. Idempotent; removing this replica or an id
     * that is no member does nothing. Any thread; never blocks.
     *
     * @throws IllegalArgumentException if {@code id} is outside {@code 0..}{@value Member#MAX_ID}
     */
    public void removeMember(int id) {
        if (id < 0 || id > Member.MAX_ID) {
            throw new IllegalArgumentException("no member " + id + ": ids are 0.." + Member.MAX_ID);
        }
        synchronized (peers) {
            if (!peers.live(id)) {
                return;
            }
            peers.remove(id); // first: a hello read from now on is refused
            if (senders[id] != null) {
                senders[id].retire();
                handles[id].wake();
            }
        }
        peers.closeInbound(id);
    }

    /** A channel started (under this port's monitor): stamp its arrivals, start the port once. */
    private synchronized void channelStarted(ArrivalStamps arrivals) {
        if (arrivals != ArrivalStamps.NONE) {
            channels.addStamps(arrivals);
        }
        startOnce();
    }

    private synchronized void startOnce() {
        if (started || closed) {
            return;
        }
        started = true;
        sockets.start();
        synchronized (peers) {
            dialing = true;
            for (int id = 0; id <= Member.MAX_ID; id++) {
                if (peers.live(id)) {
                    startSender(peers.address(id));
                }
            }
        }
    }

    /** Starts the sender stage of {@code peer}; under {@link #peers}' monitor, once the sockets started. */
    private void startSender(Member peer) {
        PeerSender s = new PeerSender(config, peer, sockets.dialer(peer.id()), channels.all(), clock, meters.net(),
                sockets.tls(), () -> closed);
        senders[peer.id()] = s;
        handles[peer.id()] = threads.run(s);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        List<StageHandle> running = new ArrayList<>();
        List<PeerSender> stopping = new ArrayList<>();
        synchronized (peers) {
            closed = true; // no sender starts after this
            for (int id = 0; id <= Member.MAX_ID; id++) {
                if (senders[id] != null) {
                    running.add(handles[id]);
                    stopping.add(senders[id]);
                }
            }
        }
        channels.closeAll();
        running.forEach(StageHandle::close);
        for (PeerSender s : stopping) {
            s.closeChannel();
        }
        sockets.close();
    }
}
