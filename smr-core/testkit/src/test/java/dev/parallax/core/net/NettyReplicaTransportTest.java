package dev.parallax.core.net;

import dev.parallax.core.wire.BadFrameException;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.TransportContract;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

import java.nio.ByteBuffer;

import java.nio.charset.StandardCharsets;

/** The Netty replica transport passes the shared transport contract over loopback TCP. */
class NettyReplicaTransportTest extends TransportContract {
    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));

    /** Strings as length-prefixed UTF-8 frame bodies of type 1. */
    static final MessageCodec<String> STRINGS = new MessageCodec<>() {
        @Override
        public int type(String message) {
            return 1;
        }

        @Override
        public void encode(String message, WireWriter out) {
            out.putBytes(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public String decode(int type, WireReader body) {
            if (type != 1) {
                throw new BadFrameException("unknown type " + type);
            }
            String s = new String(body.getBytes(), StandardCharsets.UTF_8);
            body.end();
            return s;
        }
    };

    @Override
    protected Transport<String> member(int id) {
        ReplicaConfig config = ReplicaConfig.builder().id(id).members(members).build();
        return new NettyReplicaTransport<>(config, STRINGS, new SimpleMeterRegistry(), WaitStrategies.yieldPark(),
                SystemClock.INSTANCE);
    }
}
