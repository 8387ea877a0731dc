package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

/**
 * The reference atomic multicast ({@code ordering=multicast}: one Multi-Paxos stream per group and
 * the global stream, merged) in three replica JVMs, clients addressing their commands by key
 * ({@link KvRouting}) and reading through queries at their own replica: read-index over the merge
 * ({@code MergedReads}: every merged stream confirms its point). {@link KillUnderLoadScenario}:
 * SIGKILL replica 0 — the first leader of every stream (view 0) — under load and restart it, then
 * the next replica; nothing acknowledged lost, linearizable, converged. Under {@code -Pstress} only.
 */
class MulticastProcessTest {

    @Test
    @dev.parallax.core.testkit.StressOnly // the default run's time budget; MergedReads is covered there in-process
    // (ReadIndexReplicaTest's multicast cluster, RingReadIndexReplicaTest, VoleryClusterTest) and by the multi-ring chaos
    @Tag("one-placement") // the thread placements are covered in-process (ReadIndexReplicaTest); see smr-examples/pom.xml
    @DisplayName("SIGKILL the streams' leader, then another replica, under load routed by key, reads as queries at every "
            + "replica; nothing acknowledged lost, linearizable, converged")
    void killingTheStreamsLeaderUnderLoadLosesNothing(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("ordering", "multicast");
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        KillUnderLoadScenario.run(dir, p, cluster -> 0, "the streams' first leader", "next replica",
                (cluster, first) -> (first + 1) % cluster.size());
    }
}
