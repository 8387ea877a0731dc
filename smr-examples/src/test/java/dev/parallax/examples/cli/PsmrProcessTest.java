package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

/**
 * P-SMR's fault test (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6): three
 * replica JVMs over Multi-Ring Paxos with two rings ({@code ordering=multi-ring},
 * {@code multiring.rings=2}), history clients addressing per-key commands to their key's group and
 * the global commands DBSIZE and FLUSHALL to every group ({@link KvRouting},
 * {@link dev.parallax.examples.kv.KvRouter}). {@link KillUnderLoadScenario} with
 * {@link KillUnderLoadScenario.Commands#GLOBAL}: SIGKILL ring 1's coordinator under load and
 * restart it, then the next replica; the history with global commands (checked as one partition)
 * is linearizable, including a final read back of every key through every replica (no
 * acknowledged write lost), the replicas converge (equal store digests), and no replica redirects.
 */
class PsmrProcessTest {

    /**
     * Stress profile only (CI budget): the default run runs P-SMR over Multi-Ring in replica JVMs in
     * {@code MultiProcessClusterTest$Psmr} and restarts and wipes P-SMR replicas in process
     * ({@code PsmrReplicaClusterTest}).
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @Tag("one-placement") // as MultiRingProcessTest: the thread placements are covered in-process; see smr-examples/pom.xml
    @DisplayName("seed 003 ch. 6: per-key and global KV commands over two rings, SIGKILL ring 1's coordinator, then another "
            + "replica; the history with DBSIZE and FLUSHALL is linearizable, nothing acknowledged lost, converged")
    void globalCommandsStayLinearizableWhenARingCoordinatorAndAnotherReplicaAreKilled(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("ordering", "multi-ring");
        p.setProperty("multiring.rings", "2");
        p.setProperty("ring.heartbeat.ms", "40");
        p.setProperty("ring.suspect.ms", "400");
        // P-SMR with one worker per ring (execution.threads defaults to multiring.rings): each replica
        // drives its two workers from their own multicast subscriptions.
        p.setProperty("execution", "p-smr");
        KillUnderLoadScenario.run(dir, p, KillUnderLoadScenario.Commands.GLOBAL,
                cluster -> cluster.awaitRingCoordinator("ring-1", Duration.ofSeconds(10)),
                "coordinator of ring 1", "next replica",
                (cluster, coordinator) -> (coordinator + 1) % cluster.size());
    }
}
