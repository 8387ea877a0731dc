package dev.parallax.paxos;

import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.MS;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The parts every Multi-Paxos-ordered broadcast wires around its runtime (PaxosBroadcast and
 * S-Paxos', seed 002 (S-Paxos) §IV-D): published state and gauges, the replay-handover rule for
 * the failure detector, and the detector's settings.
 */
class PaxosRuntimePartsTest {

    /** A cluster where replica 0 finished Phase 1 of view 0. */
    private static ScriptedCluster stableCluster() {
        ScriptedCluster c = new ScriptedCluster(CONFIG);
        c.tick(MS);
        c.deliverAll(1000);
        assertThat(c.core(0).isLeader()).isTrue();
        return c;
    }

    @Test
    @DisplayName("the observer publishes view, leader and hints to the gauges, tagged with the broadcast's name")
    void publishesTheOrderingCoreState() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PaxosRuntimeParts leaderParts = new PaxosRuntimeParts(CONFIG, 0, "spaxos", registry);
        ScriptedCluster c = stableCluster();
        assertThat(leaderParts.view()).isEqualTo(-1);
        assertThat(leaderParts.leaderHint()).isEqualTo(-1);

        leaderParts.observe(c.core(0), 0);
        assertThat(leaderParts.view()).isZero();
        assertThat(leaderParts.isLeader()).isTrue();
        assertThat(leaderParts.leaderHint()).isZero();
        assertThat(leaderParts.followedView()).as("a leader follows nobody").isEqualTo(-1);
        assertThat(registry.get("parallax.paxos.leader").tag("protocol", "spaxos").tag("replica", "0").gauge().value())
                .isEqualTo(1.0);
        assertThat(registry.get("parallax.paxos.view").tag("protocol", "spaxos").gauge().value()).isZero();
        assertThat(registry.get("parallax.paxos.view.changes").tag("protocol", "spaxos").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("parallax.protocol.stepdowns").tag("protocol", "spaxos").functionCounter().count()).isZero();
        assertThat(registry.find("parallax.protocol.prevotes").tag("protocol", "spaxos").functionCounters()).hasSize(2);

        // A composite core is observed through the function that finds its ordering core.
        PaxosRuntimeParts followerParts = new PaxosRuntimeParts(CONFIG, 1, "spaxos", registry);
        Consumer<ScriptedCluster> observer = followerParts.observer(cluster -> cluster.core(1), () -> 0);
        observer.accept(c);
        assertThat(followerParts.isLeader()).isFalse();
        assertThat(followerParts.leaderHint()).isZero();
        assertThat(followerParts.followedView()).isZero();
    }

    @Test
    @DisplayName("replay hand-over: the detector watches no view until the local replay left the protocol stage")
    void theDetectorWatchesOnlyOnceTheReplayIsHandedOver() {
        PaxosRuntimeParts parts = new PaxosRuntimeParts(CONFIG, 1, "paxos", new SimpleMeterRegistry());
        ScriptedCluster c = stableCluster();
        parts.observe(c.core(1), 5);
        assertThat(parts.followedView()).as("decisions of the replay still wait for execution").isEqualTo(-1);
        parts.observe(c.core(1), 0);
        assertThat(parts.followedView()).isZero();
        parts.observe(c.core(1), 7);
        assertThat(parts.followedView()).as("a lagging execution later does not stop the detector").isZero();
        ProtocolRuntimeDetection detection = new ProtocolRuntimeDetection(parts);
        assertThat(detection.followed()).isZero();
        assertThat(detection.period()).isEqualTo(PaxosRuntimeParts.detectorPeriod(CONFIG))
                .isEqualTo(Math.max(CONFIG.heartbeatNanos() / 4, 100_000L));
        assertThat(parts.maxTickNanos()).isEqualTo(Math.min(CONFIG.heartbeatNanos(), CONFIG.retransmitNanos()) / 2);
    }

    @Test
    void selfMustBeAnIdOfTheIdSpace() {
        // A replica beyond the cluster file's members may join by a membership change (ids up to 31).
        new PaxosRuntimeParts(CONFIG, CONFIG.members(), "paxos", new SimpleMeterRegistry());
        assertThatThrownBy(() -> new PaxosRuntimeParts(CONFIG, 32, "paxos", new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..31");
    }

    /** Reads what the runtime's detector would read. */
    private record ProtocolRuntimeDetection(PaxosRuntimeParts parts) {
        long followed() {
            return parts.failureDetection().followedView().getAsLong();
        }

        long period() {
            return parts.failureDetection().periodNanos();
        }
    }
}
