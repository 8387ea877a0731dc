package dev.parallax.ringpaxos.replica;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.cluster.TextKv;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingKeys;
import dev.parallax.ringpaxos.RingPaxos;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An M-Ring replica without a cluster secret: refused at start unless its configuration says mring.auth=none. */
class MRingClusterSecretTest {

    private static Replica replica(RingConfig.Builder ring) {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
        RingConfig config = ring.mringGroup(RingReplicaClusterTest.randomGroup())
                .mringPort(ThreadLocalRandom.current().nextInt(20_000, 60_000)).build();
        return Replica.builder().config(ReplicaConfig.builder().id(0).members(members)
                        .clientMembers(ClusterMembers.parse(LocalPorts.endpoints(3))).clientIoThreads(1).build())
                .stateMachine(new TextKv()).ordering(RingPaxos.mRing(config)).bootstrap(true).build();
    }

    @Test
    @DisplayName("without cluster.secret an M-Ring replica refuses to start, naming cluster.secret and mring.auth")
    void refusedWithoutASecret() {
        assertThatThrownBy(() -> {
            try (Replica r = replica(RingReplicaClusterTest.testConfig(3, Ring.Kind.M_RING))) {
                r.start();
            }
        }).hasMessageContaining("cluster.secret").hasMessageContaining("mring.auth=none");
    }

    @Test
    @DisplayName("with mring.auth=none (isolated test networks only) it starts without a secret")
    void startsWithAuthNone() {
        try (Replica r = replica(RingReplicaClusterTest.testConfig(3, Ring.Kind.M_RING).set(RingKeys.MRING_AUTH, "none"))) {
            r.start();
            assertThat(r.meterRegistry().find("parallax.net.datagrams").tag("channel", RingPaxos.M_DATAGRAM_CHANNEL).counters())
                    .as("the datagram group opened").isNotEmpty();
        }
    }
}
