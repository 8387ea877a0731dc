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
 * sequential execution. The demo also runs under S-SMR (2 partitions x 3 replicas), whose load and
 * catch-up take the partitioned path of the demo.
 *
 * <p>Under {@code -Pstress} only ({@link dev.parallax.core.testkit.StressOnly}, the default run's
 * 15-minute budget), the demo runs with S-Paxos, whose ordering leader no client is redirected to
 * (found from the replicas' metrics, {@link ProcessCluster#leader()}), with M-Ring, whose coordinator
 * is found the same way, and with Multi-Ring and P-SMR. The default run covers each of those
 * twice over: what the demo does with them, kill the ordering leader (or a ring coordinator) found
 * from the metrics under load, restart it, wait for it to catch up and read back every acknowledged
 * write, is the process test of each ordering ({@link SPaxosProcessTest}, {@link MRingProcessTest},
 * {@link PsmrProcessTest} and {@link MultiRingProcessTest}: the same kill and restart through
 * {@link ProcessCluster}, then a second one, with linearizability, lost-write and convergence
 * checks); and what is particular to the demo for them, the cluster file its options write, the
 * runtime line of its report and the name it gives the killed replica, is
 * {@link #theDemosClusterFileCarriesEachOrderingAndItsReportNamesTheReplicaItKills} (nothing started),
 * while its flow is {@link #aShortDemoKillsRestartsAndCatchesUpTheLeaderAndLosesNothing}'s.
 */
class DemoCommandTest {
    /**
     * How the report names the leader it killed: the one the replicas report, or, if none reported
     * leading in time (a loaded machine, an election under way), the replica it killed instead
     * ({@code DemoPhase.leader}). A regular expression with no capturing group.
     */
    private static final String NONE_LEADING = "a replica \\(none reported leading\\)";
    private static final String LEADER = "(?:the leader|" + NONE_LEADING + ")";


    /** Runs {@code parallax demo args...} in process, prints its report, asserts exit code 0; the report. */
    private static String passingDemo(String... args) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new DemoCommand(out)).execute(args);
        }
        String report = captured.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        return report;
    }

    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: MultiProcessClusterTest$MultiPaxos kills the leader under load; see smr-examples/pom.xml
    void aShortDemoKillsRestartsAndCatchesUpTheLeaderAndLosesNothing() {
        // 4 s (kill at 2 s, restart at 3 s), as the other demos of the default run: its time is tight.
        String report = passingDemo("--seconds", "4", "--warmup", "0",
                "--clients", "2", "--outstanding", "8", "--keys", "300", "--execution", "early-busy-wait");
        assertThat(report).containsPattern(">> killed " + LEADER + ", replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern(">> restarted replica \\d at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica at instance [\\d,]+ with store digest")
                .contains("check            OK: every acknowledged write is readable (600 keys read)")
                .containsPattern("runtime +ordering multi-paxos, execution early-busy-wait \\(2 workers\\), threads (auto|staged|compact)")
                .doesNotContain("FAILED");
        String killed = report.replaceAll("(?s).*>> killed " + LEADER + ", replica (\\d).*", "$1");
        assertThat(report).contains("restarted replica " + killed + " at").contains("restarted replica " + killed + " caught up");
    }

    @Test
    @dev.parallax.core.testkit.StressOnly // covered in the default run: see the class comment
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (SPaxosReplicaClusterTest); see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 002 (S-Paxos) §V-C: the demo with --ordering s-paxos kills the ordering leader "
            + "(no client is redirected to it), restarts it and loses nothing")
    void theDemoWithSPaxosKillsTheOrderingLeaderRestartsItAndLosesNothing() {
        String report = passingDemo("--seconds", "6", "--warmup", "0",
                "--clients", "3", "--outstanding", "8", "--keys", "300", "--ordering", "s-paxos");
        assertThat(report).containsPattern(">> killed " + LEADER + ", replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica at instance [\\d,]+ with store digest")
                .contains("check            OK: every acknowledged write is readable (900 keys read)")
                .containsPattern("runtime +ordering s-paxos, execution sequential, threads (auto|staged|compact)")
                .doesNotContain("FAILED");
    }

    @Test
    @dev.parallax.core.testkit.StressOnly // covered in the default run: see the class comment
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (RingReplicaClusterTest); see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos) §3.3.5: the demo with --ordering m-ring kills the coordinator "
            + "(found from parallax_ring_coordinator), restarts it and loses nothing")
    void theDemoWithMRingKillsTheCoordinatorRestartsItAndLosesNothing() {
        String report = passingDemo("--seconds", "6", "--warmup", "0",
                "--clients", "3", "--outstanding", "8", "--keys", "300", "--ordering", "m-ring");
        assertThat(report).containsPattern(">> killed " + LEADER + ", replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica at instance [\\d,]+ with store digest")
                .contains("check            OK: every acknowledged write is readable (900 keys read)")
                .containsPattern("runtime +ordering m-ring, execution sequential, threads (auto|staged|compact)")
                .doesNotContain("FAILED");
    }

    @Test
    @dev.parallax.core.testkit.StressOnly // covered in the default run: see the class comment
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process; see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: the demo with --ordering multi-ring "
            + "(two M-Ring rings and the global ring, the load routed by key) with execution=p-smr (seed 003 ch. 6: a worker per ring) "
            + "kills a ring coordinator, restarts it and loses nothing")
    void theDemoWithMultiRingKillsACoordinatorRestartsItAndLosesNothing() {
        // 4 s (kill at 2 s, restart at 3 s), as the demos of the default run.
        String report = passingDemo("--seconds", "4", "--warmup", "0",
                "--clients", "3", "--outstanding", "8", "--keys", "300", "--ordering", "multi-ring",
                "--execution", "p-smr");
        assertThat(report).containsPattern(">> killed (a ring coordinator|" + NONE_LEADING + "), replica \\d, with SIGKILL at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica \\d caught up: every replica (at instance [\\d,]+ )?with store digest")
                .contains("check            OK: every acknowledged write is readable (900 keys read)")
                .containsPattern("runtime +ordering multi-ring, execution p-smr \\(2 workers, one per group\\), threads (auto|staged|compact)")
                .doesNotContain("FAILED");
    }

    /**
     * Stress profile only (CI budget): the default run replaces a voter under load and checks
     * linearizability with {@code chaos --membership} ({@link MembershipChaosTest}, the same
     * {@link ClusterMembership#replace}), and hands leadership over under load in
     * {@link RollingRestartProcessTest}; what is the demo's own, the figures, is checked here.
     */
    @Test
    @dev.parallax.core.testkit.StressOnly
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("demo --membership: a follower replaced by a fresh replica, then leadership handed to it, "
            + "under load; the report gives both write gaps and the catch-up time, and nothing is lost")
    void theMembershipDemoReplacesAFollowerHandsLeadershipToItAndLosesNothing() {
        String report = passingDemo("--membership", "--seconds", "4", "--warmup", "0",
                "--clients", "2", "--outstanding", "8", "--keys", "300");
        assertThat(report).containsPattern(">> replica 3 joined, caught up and replaced replica \\d \\(voters \\[\\d, \\d, 3\\]\\)")
                .containsPattern(">> leadership handed from replica \\d to replica 3 at \\d+\\.\\d s")
                .containsPattern("replacement +replica \\d by new replica 3, [\\d.]+ s to [\\d.]+ s: longest gap without a completed write \\d+ ms")
                .containsPattern("catch-up +new replica 3 voting [\\d,]+ ms after its start")
                .containsPattern("transfer +leadership from replica \\d to replica 3 in [\\d,]+ ms; longest gap without a completed "
                        + "write \\d+ ms \\(suspect timeout 500 ms\\)")
                .containsPattern("convergence +voters \\[\\d, \\d, 3\\]: every replica at instance")
                .contains("check            OK: every acknowledged write is readable (600 keys read)")
                .doesNotContain("FAILED");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("demo --membership is refused, exit code 2, with an ordering that does not change its members")
    void theMembershipDemoNeedsAnOrderingThatChangesItsMembers() {
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--membership", "--ordering", "multicast");
        assertThat(demo.refusal()).isEqualTo("--membership: ordering multicast does not support membership changes at run "
                + "time (multi-paxos, s-paxos, u-ring, m-ring and multi-ring do)");
        for (String ordering : new String[] {"s-paxos", "u-ring", "m-ring", "multi-ring"}) {
            DemoCommand accepted = new DemoCommand();
            new CommandLine(accepted).parseArgs("--membership", "--ordering", ordering);
            assertThat(accepted.refusal()).as(ordering).isNull();
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            assertThat(new CommandLine(new DemoCommand(System.out, e)).execute("--membership", "--ordering", "multicast"))
                    .isEqualTo(2);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("ordering multicast does not support membership changes");
    }

    /**
     * What the S-Paxos, M-Ring and Multi-Ring demos (stress profile only) do that no other test of
     * the default run does, with nothing started: the demo's options pass the ordering (and P-SMR)
     * into the cluster file it writes, as the demo builds it; the runtime line of its report names
     * them; the report calls the replica it kills the leader (the ordering leader of S-Paxos, the
     * M-Ring coordinator) or a ring coordinator (Multi-Ring); and the Multi-Ring demo's load is routed
     * by key.
     */
    @Test
    @org.junit.jupiter.api.DisplayName("seeds 002, 003: the demo's cluster file carries --ordering s-paxos, m-ring and "
            + "multi-ring with p-smr; its runtime line names them; its report names the replica it kills")
    void theDemosClusterFileCarriesEachOrderingAndItsReportNamesTheReplicaItKills(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        record Case(String[] args, Orderings ordering, String runtime, String role, boolean routed) {
        }
        String threads = ", threads (auto|staged|compact).*";
        java.util.List<Case> cases = java.util.List.of(
                new Case(new String[] {"--ordering", "s-paxos"}, Orderings.S_PAXOS,
                        "ordering s-paxos, execution sequential" + threads, "the leader", false),
                new Case(new String[] {"--ordering", "m-ring"}, Orderings.M_RING,
                        "ordering m-ring, execution sequential" + threads, "the leader", false),
                new Case(new String[] {"--ordering", "multi-ring", "--execution", "p-smr"}, Orderings.MULTI_RING,
                        "ordering multi-ring, execution p-smr \\(2 workers, one per group\\)" + threads, "a ring coordinator", true));
        int n = 0;
        for (Case c : cases) {
            DemoCommand demo = new DemoCommand();
            new CommandLine(demo).parseArgs(c.args());
            assertThat(demo.refusal()).as("%s", java.util.Arrays.toString(c.args())).isNull();
            // The cluster file as DemoCommand.call writes it for an unpartitioned run.
            java.nio.file.Path work = dir.resolve("demo-" + n++);
            java.util.Properties props = ProcessCluster.localDefaults(work.resolve("data"), 20_000);
            props.putAll(demo.runtime.clusterSettings());
            try (ProcessCluster cluster = new ProcessCluster(work, 3, props, false, java.util.List.of())) {
                ClusterFile file = ClusterFile.load(cluster.configFile());
                assertThat(file.ordering()).isEqualTo(c.ordering());
                assertThat(file.describeRuntime(Runtime.getRuntime().availableProcessors())).matches(c.runtime());
                assertThat(KvRouting.router(file).isPresent()).as("load routed by key").isEqualTo(c.routed());
                assertThat(DemoCommand.leaderRole(file.ordering())).isEqualTo(c.role());
            }
        }
    }

    /**
     * Stress profile only (CI budget): the default run kills a replica of an S-SMR partition under
     * load in replica JVMs in {@code VoleryProcessTest}, and runs S-SMR clusters in process
     * ({@code KvSsmrClusterTest}).
     */
    @dev.parallax.core.testkit.StressOnly
    @Test
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (KvSsmrClusterTest); see smr-examples/pom.xml
    @org.junit.jupiter.api.DisplayName("seed 004 (S-SMR) §IV: the demo with --execution s-smr runs 2 partitions x 3 replicas, "
            + "loads them through one client per partition with MSET/MGET/DBSIZE across partitions, kills ring 0's "
            + "coordinator, restarts it, converges per partition and loses nothing")
    void theDemoUnderSsmrKillsAPartitionsCoordinatorRestartsItAndLosesNothing() {
        // Short (4 s, kill at 2 s, restart at 3 s): six replica JVMs, and the default test run's time is tight.
        String report = passingDemo("--seconds", "4", "--warmup", "0",
                "--clients", "2", "--outstanding", "8", "--keys", "300", "--execution", "s-smr", "--partitions", "2");
        assertThat(report).contains("Parallax demo: 2 partitions x 3 replica processes (key-value store under S-SMR)")
                .containsPattern(">> killed (ring-0's coordinator|a replica \\(none reported coordinating ring-0\\)), replica [012] "
                        + "\\(partition 0\\), with SIGKILL at \\d+\\.\\d s")
                .containsPattern(">> restarted replica [012] at \\d+\\.\\d s")
                .containsPattern("catch-up +restarted replica [012] caught up: each partition's replicas hold equal digests: "
                        + "partition 0 \\p{XDigit}+; partition 1 \\p{XDigit}+")
                .containsPattern("multi-partition +[1-9][\\d,]* acknowledged MSET, MGET and DBSIZE")
                .contains("check            OK: every acknowledged write is readable (600 keys read)")
                .containsPattern("runtime +ordering multi-ring, execution s-smr, threads compact, 2 partitions x 3 replicas")
                .doesNotContain("FAILED");
        String killed = report.replaceAll("(?s).*>> killed [^\\n]*?, replica (\\d) \\(partition.*", "$1");
        assertThat(report).contains("restarted replica " + killed + " at").contains("restarted replica " + killed + " caught up");
    }
}
