package dev.parallax.paxos.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.StateMachine;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Batcher takes BSZ and time-out from the Multi-Paxos configuration unless the replica sets its own. */
class BatchPolicyTest {
    private static final StateMachine ECHO = new StateMachine() {
        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return command;
        }

        @Override
        public void snapshot(java.nio.channels.WritableByteChannel out) {
        }

        @Override
        public void restore(java.nio.channels.ReadableByteChannel in) {
        }
    };

    private static Replica.Builder builder(PaxosConfig paxos) {
        ReplicaConfig rc = ReplicaConfig.builder().id(0)
                .members(ClusterMembers.parse("0=127.0.0.1:1,1=127.0.0.1:2,2=127.0.0.1:3")).build();
        return Replica.builder().config(rc).stateMachine(ECHO).ordering(MultiPaxos.protocol(paxos));
    }

    @Test
    void theProtocolsBatchSizeAndTimeoutReachTheBatcher() {
        Replica r = builder(PaxosConfig.builder(3).batchBytes(16384).batchTimeout(Duration.ofMillis(3)).build()).build();
        assertThat(r.batchBytes()).isEqualTo(16384);
        assertThat(r.batchTimeout()).isEqualTo(Duration.ofMillis(3));
    }

    @Test
    void anExplicitReplicaSettingWins() {
        Replica r = builder(PaxosConfig.builder(3).batchBytes(16384).build()).batching(2000, Duration.ofMillis(2)).build();
        assertThat(r.batchBytes()).isEqualTo(2000);
        assertThat(r.batchTimeout()).isEqualTo(Duration.ofMillis(2));
    }

    @Test
    void defaultsAreThePapers() {
        Replica r = builder(PaxosConfig.builder(3).build()).build();
        assertThat(r.batchBytes()).isEqualTo(PaxosConfig.DEFAULT_BATCH_BYTES);
        assertThat(r.batchTimeout()).isEqualTo(Duration.ofMillis(1));
    }
}
