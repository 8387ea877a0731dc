package dev.parallax.examples.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax demo}, run in-process through picocli as {@code ./parallax demo} runs it (three
 * replica JVMs), with a parallel executor chosen on the command line: the option reaches every
 * replica through the generated cluster file, and the executor survives the kill, the restart
 * (log and snapshot recovery) and the catch-up. The other multi-process tests run the default,
 * sequential execution. The demo also runs with S-Paxos, whose ordering leader no client is
 * redirected to: it is found from the replicas' metrics ({@link ProcessCluster#leader()}), and with
 * M-Ring, whose coordinator is found the same way.
 */
class DemoCommandTest {

    @Test
    void aShortDemoKillsRestartsAndCatchesUpTheLeaderAndLosesNothing() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new DemoCommand(out)).execute("--seconds", "6", "--warmup", "0",
                    "--clients", "2", "--outstanding", "8", "--keys", "300", "--execution", "early-busy-wait");
        }
        String report = captured.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        assertThat(report).containsPattern(">> killed the leader, replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern(">> restarted replica \\d at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica at instance [\\d,]+ with store digest")
                .contains("check            OK: every acknowledged write is readable (600 keys read)")
                .containsPattern("runtime +ordering multi-paxos, execution early-busy-wait \\(2 workers\\), threads (auto|staged|compact)")
                .doesNotContain("FAILED");
        String killed = report.replaceAll("(?s).*killed the leader, replica (\\d).*", "$1");
        assertThat(report).contains("restarted replica " + killed + " at").contains("restarted replica " + killed + " caught up");
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (SPaxosReplicaClusterTest); see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 002 (S-Paxos) §V-C: the demo with --ordering s-paxos kills the ordering leader "
            + "(no client is redirected to it), restarts it and loses nothing")
    void theDemoWithSPaxosKillsTheOrderingLeaderRestartsItAndLosesNothing() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new DemoCommand(out)).execute("--seconds", "6", "--warmup", "0",
                    "--clients", "3", "--outstanding", "8", "--keys", "300", "--ordering", "s-paxos");
        }
        String report = captured.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        assertThat(report).containsPattern(">> killed the leader, replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica at instance [\\d,]+ with store digest")
                .contains("check            OK: every acknowledged write is readable (900 keys read)")
                .containsPattern("runtime +ordering s-paxos, execution sequential, threads (auto|staged|compact)")
                .doesNotContain("FAILED");
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos) §3.3.5: the demo with --ordering m-ring kills the coordinator "
            + "(found from parallax_ring_coordinator), restarts it and loses nothing")
    void theDemoWithMRingKillsTheCoordinatorRestartsItAndLosesNothing() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new DemoCommand(out)).execute("--seconds", "6", "--warmup", "0",
                    "--clients", "3", "--outstanding", "8", "--keys", "300", "--ordering", "m-ring");
        }
        String report = captured.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        assertThat(report).containsPattern(">> killed the leader, replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica at instance [\\d,]+ with store digest")
                .contains("check            OK: every acknowledged write is readable (900 keys read)")
                .containsPattern("runtime +ordering m-ring, execution sequential, threads (auto|staged|compact)")
                .doesNotContain("FAILED");
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process; see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: the demo with --ordering multi-ring "
            + "(two M-Ring rings and the global ring, the load routed by key) with execution=p-smr (seed 003 ch. 6: a worker per ring) "
            + "kills a ring coordinator, restarts it and loses nothing")
    void theDemoWithMultiRingKillsACoordinatorRestartsItAndLosesNothing() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            // Shorter than the other demos (4 s, kill at 2 s, restart at 3 s): the default test run's time is tight.
            code = new CommandLine(new DemoCommand(out)).execute("--seconds", "4", "--warmup", "0",
                    "--clients", "3", "--outstanding", "8", "--keys", "300", "--ordering", "multi-ring",
                    "--execution", "p-smr");
        }
        String report = captured.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        assertThat(report).containsPattern(">> killed a ring coordinator, replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica (at instance [\\d,]+ )?with store digest")
                .contains("check            OK: every acknowledged write is readable (900 keys read)")
                .containsPattern("runtime +ordering multi-ring, execution p-smr \\(2 workers, one per group\\), threads (auto|staged|compact)")
                .doesNotContain("FAILED");
    }
}
