package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

/**
 * U-Ring (seed 003 (Ring Paxos) §3.3.3, Alg. 3) in three replica JVMs: {@link RingProcessScenario}
 * — the coordinator, then the learner-only member, SIGKILLed under load and restarted.
 */
class URingProcessTest {

    @Test
    @Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @DisplayName("seed 003 (Ring Paxos) §3.3.5: SIGKILL the U-Ring coordinator, then the learner-only member, under load; "
            + "nothing acknowledged lost, linearizable, converged, never a redirect")
    void killingTheCoordinatorAndALearnerUnderLoadLosesNothing(@TempDir Path dir) throws Exception {
        RingProcessScenario.run(dir, "u-ring", new Properties());
    }
}
