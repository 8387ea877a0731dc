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
    private final PortSockets sockets;
    private final List<PeerSender> senders = new ArrayList<>();
    private final List<StageHandle> handles = new ArrayList<>();
    private volatile boolean started;
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
        this.sockets = new PortSockets(config, meters, channels);
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
        return channels.open(name, number -> new PortChannel<>(number, name, Objects.requireNonNull(codec), config,
                meters, this, this::channelStarted));
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
        List<PortChannel<?>> open = channels.all();
        for (Member peer : config.members().members()) {
            if (peer.id() == config.id()) {
                continue;
            }
            PeerSender s = new PeerSender(config, peer, sockets.dialer(peer.id()), open, clock, meters.net(),
                    sockets.tls(), () -> closed);
            senders.add(s);
            handles.add(threads.run(s));
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        channels.closeAll();
        handles.forEach(StageHandle::close);
        for (PeerSender s : senders) {
            s.closeChannel();
        }
        sockets.close();
    }
}
