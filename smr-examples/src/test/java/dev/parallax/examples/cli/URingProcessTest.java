package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

/**
 * U-Ring (seed 003 (Ring Paxos) §3.3.3, Alg. 3) in three replica JVMs: {@link KillUnderLoadScenario}
 * — the coordinator, then the learner-only member (the ring's last position, §3.3.3 ¶2), SIGKILLed
 * under load and restarted.
 */
class URingProcessTest {

    /**
     * Stress profile only (CI budget): the default run SIGKILLs the U-Ring coordinator under load in
     * replica JVMs in {@code MembershipProcessTest}'s u-ring case (during a replacement).
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("seed 003 (Ring Paxos) §3.3.5: SIGKILL the U-Ring coordinator, then the learner-only member, under load; "
            + "nothing acknowledged lost, linearizable, converged, never a redirect")
    void killingTheCoordinatorAndALearnerUnderLoadLosesNothing(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("ordering", "u-ring");
        p.setProperty("ring.heartbeat.ms", "40");
        p.setProperty("ring.suspect.ms", "400");
        KillUnderLoadScenario.run(dir, p, "coordinator", "learner-only member", URingProcessTest::lastOnTheRing);
    }

    /** The live replica at the highest {@code parallax_ring_position} (a learner only), or the coordinator's successor. */
    private static int lastOnTheRing(ProcessCluster cluster, int coordinator) {
        int best = (coordinator + 1) % 3;
        long bestPosition = Long.MIN_VALUE;
        for (int i = 0; i < 3; i++) {
            long position = ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_ring_position");
            if (i != coordinator && cluster.isAlive(i) && position > bestPosition) {
                best = i;
                bestPosition = position;
            }
        }
        return best;
    }
}
