package dev.parallax.core.net;

import dev.parallax.core.config.Member;
import dev.parallax.core.config.Names;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.wire.BadFrameException;
import dev.parallax.core.wire.BodyReader;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.core.wire.tls.TlsGate;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

/**
 * Decodes the frames of one inbound peer connection of a {@link ReplicaPort}: the {@code HELLO}
 * handshake that names the peer (and, with TLS on, has the {@link TlsGate} check that the peer's
 * certificate names that replica), the {@code ANNOUNCE} control frames that map the peer's channel
 * numbers to names, and then every data frame, decoded by its channel's codec and handed to the
 * channel's {@link MessageHandler}. Every frame after the hello is stamped on the port's
 * {@link ArrivalStamps}.
 *
 * <p>A malformed frame, a frame on a channel never announced, or a hello from no valid peer (an id
 * outside {@code 0..31} or this replica's own, another cluster size) closes the connection, counts
 * {@code parallax.net.bad.frames} and logs a rate-limited WARN line; a frame for a channel this
 * replica does not run is dropped and counted. A valid hello from a replica that was removed from
 * the group ({@link PeerTable#admits}), checked after the TLS identity, closes the connection,
 * counts {@code parallax.net.refused{kind=replica,reason=member}} and logs a rate-limited line; so
 * does any frame on a connection whose replica was removed since its hello. A replica never known
 * here is heard: this one may be behind the change that added it (the protocol core decides what
 * a message from a non-member may do).
 *
 * <p>One instance per connection, confined to that connection's Netty IO thread; handlers run on
 * it, so a slow handler holds up that peer's traffic only.
 */
final class InboundDispatcher extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaPort.class);
    /** Bad-frame warnings of every replica port in the process; the meter counts each one. */
    private static final LogRateLimiter BAD_FRAME_WARNINGS = LogRateLimiter.withDefaults("replica port bad frames");
    /** Refusals of replicas that are not members, of every replica port in the process. */
    private static final LogRateLimiter NON_MEMBER_WARNINGS = LogRateLimiter.withDefaults("replica port non-members");

    private final ReplicaConfig config;
    private final ChannelRegistry registry;
    private final PeerTable peers;
    private final PortMeters meters;
    private final boolean tls;
    private final ByteBufWire.Reader reader = new ByteBufWire.Reader();
    private final String[] announced = new String[ChannelRegistry.MAX_CHANNELS + 1];
    private final PortChannel<?>[] resolved = new PortChannel<?>[ChannelRegistry.MAX_CHANNELS + 1];
    private int peer = -1;
    /** Set once a bad frame closed this connection: frames already read behind it are ignored, not counted again. */
    private boolean rejected;

    /**
     * @param tls whether the connection runs TLS (a {@link TlsGate} is then in its pipeline)
     */
    InboundDispatcher(ReplicaConfig config, ChannelRegistry registry, PeerTable peers, PortMeters meters, boolean tls) {
        this.config = config;
        this.registry = registry;
        this.peers = peers;
        this.meters = meters;
        this.tls = tls;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        if (rejected) {
            return;
        }
        int type = Frames.readType(frame);
        int channel = BodyReader.readUnsignedByte(frame);
        if (peer < 0) {
            if (channel != ReplicaPort.CONTROL || type != ReplicaPort.HELLO) {
                throw new BadFrameException("first frame must be a hello, got type " + type + " on channel " + channel);
            }
            int id = BodyReader.readInt(frame);
            int size = BodyReader.readInt(frame);
            BodyReader.end(frame);
            if (size != config.members().size() || id < 0 || id > Member.MAX_ID || id == config.id()) {
                throw new BadFrameException("hello from member " + id + " of a " + size + "-member cluster; this is member "
                        + config.id() + " of " + config.members().size());
            }
            if (tls && !ctx.pipeline().get(TlsGate.class).require(ctx, TlsConfig.replicaIdentity(id))) {
                rejected = true; // counted and closed by the gate; frames read behind this one are ignored
                return;
            }
            if (!peers.admits(id) || !peers.inboundOpened(id, ctx.channel())) {
                refuseNonMember(ctx, id, "was removed from the group");
                return;
            }
            peer = id;
            stamp();
            return;
        }
        if (!peers.admits(peer)) {
            refuseNonMember(ctx, peer, "was removed from the group");
            return;
        }
        stamp();
        if (channel == ReplicaPort.CONTROL) {
            control(type, frame);
            return;
        }
        deliver(channel, type, frame);
    }

    private void control(int type, ByteBuf frame) {
        if (type != ReplicaPort.ANNOUNCE) {
            throw new BadFrameException("unknown control frame type " + type);
        }
        int number = BodyReader.readUnsignedByte(frame);
        String name = new String(BodyReader.readBytes(frame), StandardCharsets.UTF_8);
        BodyReader.end(frame);
        if (number == ReplicaPort.CONTROL || !Names.valid(name)) {
            throw new BadFrameException("bad channel announcement: " + number + " = '" + name + "'");
        }
        announced[number] = name;
        resolved[number] = registry.named(name);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void deliver(int channel, int type, ByteBuf frame) {
        PortChannel c = resolved[channel];
        if (c == null) {
            String name = announced[channel];
            if (name == null) {
                throw new BadFrameException("frame on channel " + channel + ", which was never announced");
            }
            meters.unknownChannel().increment();
            return;
        }
        MessageHandler h = c.handler();
        if (h == null) {
            meters.unknownChannel().increment();
            return;
        }
        Object message;
        try {
            message = c.codec.decode(type, reader.on(frame));
        } catch (BadFrameException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BadFrameException("undecodable frame of type " + type + " on channel '" + c.name + "': " + e, e);
        }
        h.onMessage(peer, message);
    }

    /** Closes the connection of {@code id}, no member now; frames read behind this one are ignored. */
    private void refuseNonMember(ChannelHandlerContext ctx, int id, String why) {
        rejected = true;
        meters.refusedMember().increment();
        NON_MEMBER_WARNINGS.warn(LOG, "replica {}: refusing the connection from {}: replica {} {}", config.id(),
                ctx.channel().remoteAddress(), id, why);
        ctx.close();
    }

    private void stamp() {
        for (ArrivalStamps s : registry.stamps()) {
            s.heard(peer);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof java.io.IOException) {
            LOG.debug("replica {}: connection from {} failed: {}", config.id(), ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
            return;
        }
        if (rejected) {
            return;
        }
        rejected = true;
        meters.net().badFrame();
        BAD_FRAME_WARNINGS.warn(LOG, "replica {}: closing connection from {} (peer {}): {}", config.id(),
                ctx.channel().remoteAddress(), peer, cause.toString());
        ctx.close();
    }
}
