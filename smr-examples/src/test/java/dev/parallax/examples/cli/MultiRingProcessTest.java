package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

/**
 * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5) in three replica JVMs: two
 * M-Ring rings and the global ring on real IP multicast over loopback ({@code ordering=multi-ring},
 * the defaults: k = 2, M = 1, λ = 20000/s, Δ = 5 ms), clients addressing their commands by key
 * ({@link KvRouting}). {@link KillUnderLoadScenario}: SIGKILL ring 1's coordinator (found from
 * {@code parallax_ring_coordinator{protocol="ring-1"}}) under load and restart it, then the next
 * replica; nothing acknowledged lost, linearizable, converged.
 *
 * <p>Under {@code -Pstress} only ({@link dev.parallax.core.testkit.StressOnly}, the default run's
 * time budget): {@link PsmrProcessTest} runs the same scenario over the same Multi-Ring cluster (two
 * rings, ring 1's coordinator then the next replica killed under load) in the default run, with
 * P-SMR's per-ring workers and global commands on top.
 */
class MultiRingProcessTest {

    @Test
    @dev.parallax.core.testkit.StressOnly // covered in the default run by PsmrProcessTest: see the class comment
    @Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("seed 003 ch. 5 §5.2: SIGKILL ring 1's coordinator, then another replica, under load routed by key over "
            + "two rings; nothing acknowledged lost, linearizable, converged, never a redirect")
    void killingARingCoordinatorUnderLoadLosesNothing(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("ordering", "multi-ring");
        p.setProperty("ring.heartbeat.ms", "40");
        p.setProperty("ring.suspect.ms", "400");
        KillUnderLoadScenario.run(dir, p, cluster -> cluster.awaitRingCoordinator("ring-1", Duration.ofSeconds(10)),
                "coordinator of ring 1", "next replica",
                (cluster, coordinator) -> (coordinator + 1) % cluster.size());
    }
}
