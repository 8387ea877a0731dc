package dev.parallax.ringpaxos.sim;

import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.ValueId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulation's other monitors bite: one body per id, U-Ring's backlog bound, the undelivered bound. */
@dev.parallax.core.testkit.DeterministicSimulation
class SimulationMonitorsTest {
    private static final ValueId A = new ValueId(1, 7, 1);

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("one body per value id: a second body under an id fails (incarnation = max(recovered + 1, floor))")
    void aValueIdNamesOneBody() {
        RingSimulation.Shared shared = new RingSimulation.Shared(RingSimulation.Scenario.hostile(Ring.Kind.U_RING, 3),
                RingSimulation.Options.NONE);
        shared.proposed(1, A, bytes("x"), 0);
        shared.proposed(1, A, bytes("x"), 5); // the same body again (a re-forward) is fine
        assertThatThrownBy(() -> shared.proposed(1, A, bytes("y"), 9)).hasMessageContaining("one body per id");
        assertThat(shared.proposedAt).containsEntry(A, 0L);
    }

    @Test
    @DisplayName("U-Ring backlog bound: opening at or above what any member delivered + ring.max.backlog fails "
            + "(seed 003 (Ring Paxos) §3.3.6 (b))")
    void uRingOpensOnlyWithinTheBacklogBound() {
        RingConfig config = RingSimulation.Scenario.config(Ring.Kind.U_RING, 3).build();
        BoundsMonitor bounds = new BoundsMonitor(config);
        bounds.delivered(10);
        bounds.opened(0, 10 + config.maxBacklog() - 1);
        assertThatThrownBy(() -> bounds.opened(0, 10 + config.maxBacklog())).hasMessageContaining("ring.max.backlog");
        BoundsMonitor mRing = new BoundsMonitor(RingSimulation.Scenario.config(Ring.Kind.M_RING, 3).build());
        mRing.opened(0, 1_000_000); // M-Ring bounds its learners by flow control, not by this rule
    }

    @Test
    @DisplayName("a member holding more decided-but-unexecuted instances than the bound fails (seed 003 (Ring Paxos) §3.3.6)")
    void theUndeliveredBoundBites() {
        RingSimulation.Shared shared = new RingSimulation.Shared(RingSimulation.Scenario.hostile(Ring.Kind.M_RING, 3),
                RingSimulation.Options.NONE);
        shared.undelivered(2, 1_000); // unchecked while no bound is set
        shared.undeliveredBound = 64;
        shared.undelivered(2, 64);
        assertThatThrownBy(() -> shared.undelivered(2, 65)).hasMessageContaining("not yet executed");
        assertThat(shared.maxUndelivered).isEqualTo(1_000);
    }
}
