package dev.parallax.core.net;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.TransportContract;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/** The Netty replica transport passes the shared transport contract over loopback TCP. */
class NettyReplicaTransportTest extends TransportContract {
    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));

    /** Strings as UTF-8 frame bodies of type 1. */
    static final MessageCodec<String> STRINGS = new MessageCodec<>() {
        @Override
        public int type(String message) {
            return 1;
        }

        @Override
        public void encode(String message, ByteBuf out) {
            out.writeCharSequence(message, StandardCharsets.UTF_8);
        }

        @Override
        public String decode(int type, ByteBuf body) {
            if (type != 1) {
                throw new BadFrameException("unknown type " + type);
            }
            return body.readCharSequence(body.readableBytes(), StandardCharsets.UTF_8).toString();
        }
    };

    @Override
    protected Transport<String> member(int id) {
        ReplicaConfig config = ReplicaConfig.builder().id(id).members(members).build();
        return new NettyReplicaTransport<>(config, STRINGS, new SimpleMeterRegistry(), WaitStrategies.yieldPark(),
                SystemClock.INSTANCE);
    }
}
