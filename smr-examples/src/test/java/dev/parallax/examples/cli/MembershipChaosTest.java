package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax chaos --membership}: the kills and partitions of the replicated store plus the
 * {@link MembershipNemesis} (a voter replaced by a fresh replica, leadership handed to a voter).
 * With seed 1 the first fault step is a membership step (the schedule's draws do not depend on
 * timing), so a short run replaces a voter and hands leadership over, and it must still be
 * linearizable, lose nothing and converge.
 * The Ring Paxos orderings hand their coordination over as the others hand their leadership.
 * Orderings that do not change their members are refused before anything starts.
 */
class MembershipChaosTest {

    private static String run(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            code = new CommandLine(new ChaosCommand()).execute(args);
        } finally {
            System.setOut(saved);
        }
        String report = out.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        return report;
    }

    private static void assertPassed(String report) {
        assertThat(report).containsPattern("replaced voter \\d+ by replica \\d+ \\(started, caught up and voting in \\d+ ms")
                .containsPattern("membership +[1-9]\\d* voters replaced, [1-9]\\d* leadership transfers, 0 failed")
                .containsPattern("history +[\\d,]+ operations by 4 clients, LINEARIZABLE")
                .contains("lost writes      0 acknowledged writes missing")
                .contains("verdict          OK: linearizable, no acknowledged write lost, every membership change done, replicas converged");
    }

    /**
     * Replica JVMs for a short run on a loaded 2-core machine (as the other process tests): C1 only,
     * so that no C2 compilation competes with the load and a joining replica starts in a few seconds.
     */
    private static final String SMALL_JVMS = "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private static boolean stress() {
        return Boolean.getBoolean("parallax.stress");
    }

    /**
     * The default run's chaos run (DurabilityProcessTest's plain one runs under {@code -Pstress}
     * only): the kills, restarts, partitions, one-way cuts and bridges of {@code parallax chaos}
     * under load, with the membership nemesis among them.
     */
    @Test
    @org.junit.jupiter.api.Tag("one-placement") // compact placement: MultiProcessClusterTest$MultiPaxos; see smr-examples/pom.xml
    @DisplayName("chaos --membership over Multi-Paxos: kills, partitions and a voter replaced under load; linearizable, nothing lost, converged")
    void aShortMembershipChaosRunPasses(@TempDir Path dir) {
        // Seed 4 kills a replica first (its draws do not depend on timing), restarts it, then replaces a
        // voter and hands leadership over: about 10 s into the run here, so 20 s leave room for a
        // machine twice as slow.
        String duration = stress() ? System.getProperty("chaos.duration", "20s") : "20s";
        String report = run("--membership", "--duration", duration, "--seed", "4", "--jvm-options", SMALL_JVMS,
                "--dir", dir.toString());
        assertPassed(report);
        assertThat(report).containsPattern("killed replica \\d+ \\(SIGKILL\\)").containsPattern("restarted replica \\d+");
    }

    /**
     * Every other ordering that changes its members (Multi-Ring alone in the default run, see
     * {@link #membershipOrderings}). Seed 1's first fault step is a membership step
     * (a replacement, then a transfer) whatever the timing, and the run ends after its step however
     * long it takes, so a 5 s run always has both; under {@code -Pstress} 30 s runs, with kills,
     * partitions and more replacements around them. Ring orderings hand their coordination over
     * (Multi-Ring every ring's); {@code chaos} sets their {@code ring.member.ids}.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("membershipOrderings")
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process; see smr-examples/pom.xml
    @DisplayName("chaos --membership over S-Paxos, U-Ring, M-Ring and Multi-Ring: a voter replaced and leadership handed over under load")
    void aMembershipChaosRunPassesForEveryOrdering(String ordering, @TempDir Path dir) {
        String report = run("--membership", "--ordering", ordering, "--duration", stress() ? "30s" : "5s", "--seed", "1",
                "--jvm-options", SMALL_JVMS, "--dir", dir.toString());
        assertPassed(report);
    }

    /**
     * The orderings of {@link #aMembershipChaosRunPassesForEveryOrdering}: all of them under
     * {@code -Pstress}; Multi-Ring alone in the default run, whose rings exercise the ring path and
     * the per-ring hand-over. There, S-Paxos, U-Ring and M-Ring replace a voter under load with a
     * leader SIGKILL in MembershipProcessTest (U-Ring) and in their membership simulations under
     * the full fault mix; the default run's 15 minutes have no room for all of them twice.
     */
    static java.util.List<String> membershipOrderings() {
        return stress() ? java.util.List.of("s-paxos", "u-ring", "m-ring", "multi-ring") : java.util.List.of("multi-ring");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"multicast"})
    @DisplayName("an ordering that does not change its members at run time is refused with exit code 2 and a clear message")
    void orderingsWithoutMembershipAreRefused(String ordering) {
        ChaosCommand chaos = new ChaosCommand();
        new CommandLine(chaos).parseArgs("--membership", "--ordering", ordering);
        assertThat(chaos.refusal()).isEqualTo("--membership: ordering " + ordering
                + " does not support membership changes at run time (multi-paxos, s-paxos, u-ring, m-ring and multi-ring do)");
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(e);
            code = new CommandLine(new ChaosCommand()).execute("--membership", "--ordering", ordering);
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("does not support membership changes");
    }

    @Test
    @DisplayName("--membership with Volery or --tls is refused")
    void otherRefusals() {
        ChaosCommand tls = new ChaosCommand();
        new CommandLine(tls).parseArgs("--membership", "--ordering", "multi-paxos", "--tls");
        assertThat(tls.refusal()).contains("--membership: not with --tls");
        ChaosCommand volery = new ChaosCommand();
        new CommandLine(volery).parseArgs("--membership", "--service", "volery");
        assertThat(volery.refusal()).isNotNull();
    }
}
