package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

/**
 * S-Paxos (seed 002) in separate replica JVMs ({@link KillUnderLoadScenario}) with durable state
 * ({@code log.sync=every-batch}, snapshots every 2,000 instances) and clients spread over the
 * replicas: the crash of the ordering
 * leader and the crash of a follower that is itself an origin of batches (seed 002 (S-Paxos) §V-C,
 * "crash of the leader / of a follower"), each by SIGKILL under load and followed by a restart.
 * Every replica takes its own clients' commands, so the follower dies with clients attached and
 * batches it forwarded but that are not yet decided. No acknowledged write may be lost (read back
 * through every replica), the history must be linearizable, the replicas must converge to the same
 * frontier and store contents, and no replica may ever redirect a client.
 */
class SPaxosProcessTest {

    /**
     * Stress profile only (CI budget): the default run SIGKILLs the S-Paxos ordering leader under
     * load in replica JVMs in {@code MembershipProcessTest}'s s-paxos case and in
     * {@code MultiProcessClusterTest$SPaxos}, with clients on every replica.
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @DisplayName("seed 002 (S-Paxos) §V-C: SIGKILL the ordering leader, then a non-leader origin, under load; "
            + "nothing acknowledged lost, linearizable, converged, never a redirect")
    void killingTheOrderingLeaderAndANonLeaderOriginUnderLoadLosesNothing(@TempDir Path dir) throws Exception {
        Properties p = new Properties();
        p.setProperty("ordering", "s-paxos");
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        // The second victim has clients attached and batches of its own in flight.
        KillUnderLoadScenario.run(dir, p, "ordering leader", "non-leader origin", (cluster, leader) -> (leader + 1) % 3);
    }
}
