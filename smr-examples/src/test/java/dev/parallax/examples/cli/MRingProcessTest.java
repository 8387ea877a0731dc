package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

/**
 * M-Ring (seed 003 (Ring Paxos) §3.3.2, Alg. 2) in three replica JVMs on real IP multicast over
 * loopback, with injected datagram faults ({@code mring.test.faults=drop=0.01,dup=0.01,reorder=4}:
 * §3.3.4's lost, duplicated and reordered packets): {@link KillUnderLoadScenario} — the
 * coordinator, then a spare (off the ring, §3.3.2 ¶1), SIGKILLed under load and restarted.
 */
class MRingProcessTest {

    @Test
    @Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("seed 003 (Ring Paxos) §3.3.4-§3.3.5: with lost, duplicated and reordered datagrams, SIGKILL the M-Ring coordinator, "
            + "then a spare, under load; nothing acknowledged lost, linearizable, converged, never a redirect")
    void killingTheCoordinatorAndASpareUnderDatagramFaultsLosesNothing(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("ordering", "m-ring");
        p.setProperty("ring.heartbeat.ms", "40");
        p.setProperty("ring.suspect.ms", "400");
        p.setProperty("mring.test.faults", "drop=0.01,dup=0.01,reorder=4");
        KillUnderLoadScenario.run(dir, p, "coordinator", "spare", MRingProcessTest::spare);
    }

    /** A live replica off the ring ({@code parallax_ring_position} -1), or the coordinator's successor. */
    private static int spare(ProcessCluster cluster, int coordinator) {
        for (int i = 0; i < 3; i++) {
            if (i != coordinator && cluster.isAlive(i)
                    && ReplicaMetrics.gauge(cluster.metricsPort(i), "parallax_ring_position") == -1) {
                return i;
            }
        }
        return (coordinator + 1) % 3;
    }
}
