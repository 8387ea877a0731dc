package dev.parallax.core.net;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.TextCodec;
import dev.parallax.core.testkit.TransportContract;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The Netty replica transport passes the shared transport contract over loopback TCP. */
class NettyReplicaTransportTest extends TransportContract {
    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));

    @Override
    protected Transport<String> member(int id) {
        ReplicaConfig config = ReplicaConfig.builder().id(id).members(members).build();
        return new NettyReplicaTransport<>(config, TextCodec.INSTANCE, new SimpleMeterRegistry(), WaitStrategies.yieldPark(),
                SystemClock.INSTANCE);
    }
}
