package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingConfigTest {

    @Test
    @DisplayName("every ring.* and mring.* default")
    void defaults() {
        RingConfig c = RingConfig.builder(3, Ring.Kind.U_RING).build();
        long ms = 1_000_000L;
        assertThat(c.members()).isEqualTo(3);
        assertThat(c.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(c.f()).isEqualTo(1);
        assertThat(c.quorum()).isEqualTo(2);
        assertThat(c.ringAcceptors()).isEqualTo(2);
        assertThat(c.window()).isEqualTo(32);
        assertThat(c.batchBytes()).isEqualTo(8000);
        assertThat(c.batchTimeoutNanos()).isEqualTo(ms);
        assertThat(c.eagerBelow()).isEqualTo(2);
        assertThat(c.packetBytes()).isEqualTo(32768);
        assertThat(c.heartbeatNanos()).isEqualTo(50 * ms);
        assertThat(c.suspectNanos()).isEqualTo(500 * ms);
        assertThat(c.retransmitNanos()).isEqualTo(100 * ms);
        assertThat(c.catchUpNanos()).isEqualTo(100 * ms);
        assertThat(c.catchUpMaxInstances()).isEqualTo(256);
        assertThat(c.catchUpMaxBytes()).isEqualTo(1048576);
        assertThat(c.stallNanos()).isEqualTo(1000 * ms);
        assertThat(c.rejoinBackoffNanos()).isEqualTo(1000 * ms);
        assertThat(c.rejoinLag()).isEqualTo(64);
        assertThat(c.maxBacklog()).isEqualTo(1024);
        assertThat(c.maxPending()).isEqualTo(64);
        assertThat(c.proposalRetryNanos()).isEqualTo(1000 * ms);
        assertThat(c.restartHoldNanos()).isEqualTo(2000 * ms);
        assertThat(c.mringGroup()).isEqualTo("239.255.80.1");
        assertThat(c.mringPort()).isEqualTo(7400);
        assertThat(c.mringInterface()).isEqualTo("127.0.0.1");
        assertThat(c.mringTtl()).isEqualTo(1);
        assertThat(c.mringPacketBytes()).isEqualTo(8192);
        assertThat(c.mringSocketBufferBytes()).isEqualTo(4194304);
        assertThat(c.mringWindowMin()).isEqualTo(1);
        assertThat(c.mringRetransmitNanos()).isEqualTo(20 * ms);
        assertThat(c.mringRetransmitMaxBytes()).isEqualTo(1048576);
        assertThat(c.mringFcThreshold()).isEqualTo(256);
        assertThat(c.mringFcDecreaseNanos()).isEqualTo(10 * ms);
        assertThat(c.mringFcIncreaseNanos()).isEqualTo(5 * ms);
        assertThat(c.mringLearnerBuffer()).isEqualTo(4096);
        assertThat(c.mringLearnerBufferBytes()).isEqualTo(67108864L);
        assertThat(c.mringTestFaults()).isEmpty();
        assertThat(c.lambda()).isZero();
        assertThat(c.skipIntervalNanos()).isEqualTo(5 * ms);
    }

    @Test
    @DisplayName("ring.lambda (instances/s, 0 = off) and ring.delta.ms (Δ) are kept and validated (seed 003 ch. 5 Alg. 1 l.13-20, §5.4.6)")
    void skips() {
        RingConfig c = RingConfig.builder(3, Ring.Kind.M_RING).lambda(20_000).skipInterval(Duration.ofMillis(2)).build();
        assertThat(c.lambda()).isEqualTo(20_000);
        assertThat(c.skipIntervalNanos()).isEqualTo(2_000_000);
        assertThat(c.toString()).contains("ring.lambda=20000", "ring.delta.ms=2");
        assertThat(RingConfig.builder(3, Ring.Kind.U_RING).lambda(RingConfig.MAX_LAMBDA)
                .skipInterval(RingConfig.MAX_SKIP_INTERVAL).build().lambda()).isEqualTo(RingConfig.MAX_LAMBDA);
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).lambda(-1)).hasMessageContaining("ring.lambda");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).lambda(RingConfig.MAX_LAMBDA + 1))
                .hasMessageContaining("ring.lambda");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).skipInterval(Duration.ZERO)).hasMessageContaining("ring.delta.ms");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).skipInterval(Duration.ofMillis(-5)))
                .hasMessageContaining("ring.delta.ms");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).skipInterval(Duration.ofSeconds(61)))
                .hasMessageContaining("ring.delta.ms");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).skipInterval(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("coordinator(r) = r mod n; the next round p leads above r")
    void rounds() {
        RingConfig c = RingConfig.builder(5, Ring.Kind.M_RING).build();
        assertThat(c.coordinatorOf(0)).isZero();
        assertThat(c.coordinatorOf(7)).isEqualTo(2);
        assertThat(c.nextRoundOf(1, -1)).isEqualTo(1);
        assertThat(c.nextRoundOf(1, 1)).isEqualTo(6);
        assertThat(c.nextRoundOf(3, 7)).isEqualTo(8);
        assertThat(c.nextRoundOf(2, 7)).isEqualTo(12);
        for (long r = 0; r < 20; r++) {
            for (int p = 0; p < 5; p++) {
                long next = c.nextRoundOf(p, r);
                assertThat(next).isGreaterThan(r).isLessThanOrEqualTo(r + 5);
                assertThat(c.coordinatorOf(next)).isEqualTo(p);
            }
        }
    }

    @Test
    @DisplayName("setters are kept; eager.below is capped at the window")
    void setters() {
        RingConfig c = RingConfig.builder(5, Ring.Kind.U_RING).window(4).eagerBelow(9).batchBytes(4000)
                .packetBytes(512).maxBacklog(100).maxPending(3).mringWindowMin(2).mringGroup("239.255.1.2")
                .mringPort(9000).mringTestFaults(" drop=0.1 ").build();
        assertThat(c.window()).isEqualTo(4);
        assertThat(c.eagerBelow()).isEqualTo(4);
        assertThat(c.batchBytes()).isEqualTo(4000);
        assertThat(c.packetBytes()).isEqualTo(512);
        assertThat(c.maxBacklog()).isEqualTo(100);
        assertThat(c.maxPending()).isEqualTo(3);
        assertThat(c.mringWindowMin()).isEqualTo(2);
        assertThat(c.mringGroup()).isEqualTo("239.255.1.2");
        assertThat(c.mringPort()).isEqualTo(9000);
        assertThat(c.mringTestFaults()).isEqualTo("drop=0.1");
        assertThat(c.toString()).contains("n=5", "U_RING", "ring.window=4");
    }

    @Test
    @DisplayName("validation: n in 1..31, heartbeat < suspect, retransmit < stall, window.min <= window, "
            + "max.backlog < 4096, packets >= 512")
    void validation() {
        assertThatThrownBy(() -> RingConfig.builder(32, Ring.Kind.U_RING)).hasMessageContaining("members must be 1..31, got 32");
        assertThatThrownBy(() -> RingConfig.builder(0, Ring.Kind.U_RING)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RingConfig.builder(3, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).heartbeat(Duration.ofMillis(500)).build())
                .hasMessageContaining("ring.heartbeat.ms");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).retransmit(Duration.ofSeconds(2)).build())
                .hasMessageContaining("ring.retransmit.ms");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).window(2).mringWindowMin(3).build())
                .hasMessageContaining("mring.window.min");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).maxBacklog(4096).build())
                .hasMessageContaining("ring.max.backlog");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).packetBytes(511))
                .hasMessageContaining("ring.packet.bytes");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).mringPacketBytes(100))
                .hasMessageContaining("mring.packet.bytes");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).mringPacketBytes(70000))
                .hasMessageContaining("mring.packet.bytes");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).window(0)).hasMessageContaining("ring.window");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).suspect(Duration.ZERO))
                .hasMessageContaining("ring.suspect.ms");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).mringPort(0)).hasMessageContaining("mring.port");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).mringTtl(256)).hasMessageContaining("mring.ttl");
        assertThatThrownBy(() -> RingConfig.builder(3, Ring.Kind.U_RING).mringGroup(" ")).hasMessageContaining("mring.group");
    }

    @Test
    @DisplayName("quorums are majorities for odd and even n (seed 003 (Ring Paxos) §3.2: an m-quorum has ⌈(n+1)/2⌉ acceptors): "
            + "n=1..7 quorum 1,2,2,3,3,4,4; the ring holds a quorum; f = n − quorum failures tolerated")
    void quorumsAreMajorities() {
        int[] quorum = {0, 1, 2, 2, 3, 3, 4, 4};
        int[] tolerated = {0, 0, 0, 1, 1, 2, 2, 3};
        for (int n = 1; n <= 7; n++) {
            for (Ring.Kind kind : Ring.Kind.values()) {
                RingConfig c = RingConfig.builder(n, kind).build();
                assertThat(c.members()).isEqualTo(n);
                assertThat(c.quorum()).as("quorum, n=%d", n).isEqualTo(quorum[n]);
                assertThat(c.ringAcceptors()).as("ring acceptors, n=%d", n).isEqualTo(quorum[n]);
                assertThat(c.othersInQuorum()).as("others in a quorum, n=%d", n).isEqualTo(quorum[n] - 1);
                assertThat(c.f()).as("failures tolerated, n=%d", n).isEqualTo(tolerated[n]).isEqualTo(n - c.quorum());
                assertThat(2 * c.quorum()).as("any two quorums intersect, n=%d", n).isGreaterThan(n);
                assertThat(2 * (c.quorum() - 1)).as("a quorum is minimal, n=%d", n).isLessThanOrEqualTo(n);
            }
        }
        for (int n = 8; n <= 31; n++) {
            RingConfig c = RingConfig.builder(n, Ring.Kind.M_RING).build();
            assertThat(c.quorum()).isEqualTo(n / 2 + 1);
            assertThat(c.f()).isEqualTo((n - 1) / 2);
        }
    }
}
