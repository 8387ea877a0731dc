package dev.parallax.examples.cli;

import dev.parallax.examples.testbed.KernelFaults;
import dev.parallax.examples.testbed.Testbed;
import dev.parallax.core.testkit.Commands;
import dev.parallax.core.testkit.Commands.Run;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code parallax chaos --hosts} on a test bed of real (namespaced) hosts: every ordering under
 * faults the kernel makes, not the replicas: nftables drops between hosts (lossy links, a replica
 * partitioned away) and tc caps. Each run is a real CLI process (its own JVM, as an operator runs
 * it) on the project's own test beds (prefixes {@code plxc} and {@code plxd}, 10.213.49.0/24 and
 * 10.213.51.0/24; two orderings run at once, one on each), so an operator's is left
 * alone. Seed 345's schedule (its draws do not depend on timing) is a replica partitioned away, a
 * heal, then lossy links on every link, within 4.8 s; the 8 s run leaves room for a machine twice as
 * slow. Under {@code -Pstress} each ordering runs {@code chaos.duration} (every shape, kills and caps
 * included). Skipped with the reason printed where the test bed cannot run (not
 * root, no namespaces, no nft).
 */
@Tag("testbed")
@Tag("one-placement") // the thread placements are covered in-process; see smr-examples/pom.xml
class TestbedChaosTest {
    /** Two test beds of 3 hosts: two orderings run at once, one on each. */
    private static final String[] PREFIXES = {"plxc", "plxd"};
    private static final String[] NETS = {"10.213.49", "10.213.51"};
    private static final String PREFIX = PREFIXES[0];
    private static final String NET = NETS[0];
    private static final String SMALL_JVMS = "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private static Run command(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        return command(cmd, timeoutSeconds, 0);
    }

    /** Runs {@code cmd} with test bed {@code bed}'s environment; its exit code and output. */
    private static Run command(List<String> cmd, long timeoutSeconds, int bed) throws IOException, InterruptedException {
        return Commands.run(cmd, Map.of(Testbed.PREFIX_ENV, PREFIXES[bed], Testbed.NET_ENV, NETS[bed]),
                Duration.ofSeconds(timeoutSeconds));
    }

    private static Run script(int bed, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(TestbedScriptTest.script().toString()));
        cmd.addAll(List.of(args));
        return command(cmd, 60, bed);
    }

    @BeforeAll
    static void up() throws Exception {
        Run up = script(0, "up", "--hosts", "3");
        if (up.code() == 0) {
            up = script(1, "up", "--hosts", "3");
        }
        Run failed = up;
        if (failed.code() != 0) {
            System.out.println("test bed skipped: " + failed.output().strip());
        }
        assumeTrue(failed.code() == 0, () -> "the test bed cannot run here: " + failed.output().strip());
        // The kernel faults need nft, nf_tables in the kernel and tc's token bucket: probe them in a host.
        Run probe = command(List.of("ip", "netns", "exec", PREFIXES[0] + "-h0", "sh", "-c",
                "nft add table inet plxprobe && nft delete table inet plxprobe"
                        + " && tc qdisc add dev eth0 root tbf rate 100mbit burst 32768 latency 50ms && tc qdisc del dev eth0 root"), 30);
        if (probe.code() != 0) {
            System.out.println("test bed skipped: the kernel faults cannot run here (nft, nf_tables or tc tbf): "
                    + probe.output().strip());
        }
        assumeTrue(probe.code() == 0, () -> "the kernel faults cannot run here: " + probe.output().strip());
    }

    @AfterAll
    static void down() throws Exception {
        script(0, "down");
        script(1, "down");
    }

    private static boolean stress() {
        return Boolean.getBoolean("parallax.stress");
    }

    /** Runs {@code parallax chaos --hosts} with {@code args} on test bed {@code bed}, in a JVM of its own; its report. */
    private static Run chaos(int bed, Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        cmd.addAll(JvmFlags.replica());
        cmd.addAll(List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                ParallaxCli.class.getName(), "chaos", "--hosts", "--jvm-options", SMALL_JVMS, "--dir", dir.toString()));
        cmd.addAll(List.of(args));
        return command(cmd, stress() ? 3600 : 300, bed);
    }

    /** Asserts that {@code run} on test bed {@code bed} passed, with the kernel's lossy links and a partition. */
    private static void assertPassed(Run run, int bed) {
        System.out.println(run.output());
        assertThat(run.code()).as(run.output()).isZero();
        assertThat(run.output()).contains("on 3 test-bed hosts " + PREFIXES[bed] + "-h0.." + PREFIXES[bed] + "-h2")
                .containsPattern("history +[\\d,]+ operations by 4 clients, LINEARIZABLE")
                .contains("lost writes      0 acknowledged writes missing")
                .contains("verdict          OK: linearizable, no acknowledged write lost, replicas converged")
                .containsPattern("lossy links \\(kernel\\): 0->1 [\\d.]+%")
                .contains("partitioned away from the others")
                .containsPattern("[1-9]\\d* lossy-link spells, \\d+ capped hosts, \\d+ delayed hosts \\(in the kernel\\)");
    }

    /**
     * Two orderings at once, one per test bed (the runs are CPU-light: C1-only replica JVMs and a
     * small load; their verdicts do not depend on timing).
     */
    @ParameterizedTest(name = "{0} and {1}")
    @CsvSource({"multi-paxos, s-paxos", "u-ring, m-ring", "multi-ring, multicast"})
    @DisplayName("chaos --hosts: lossy links and a partition made by the kernel between hosts; linearizable, nothing lost, converged")
    void everyOrderingSurvivesKernelFaults(String first, String second, @TempDir Path dir) throws Exception {
        String[] orderings = {first, second};
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<Run>> runs = new ArrayList<>();
            for (int bed = 0; bed < 2; bed++) {
                String ordering = orderings[bed];
                Path work = Files.createDirectories(dir.resolve(ordering));
                int b = bed;
                runs.add(pool.submit(() -> stress()
                        ? chaos(b, work, "--ordering", ordering, "--duration", System.getProperty("chaos.duration", "5m"),
                                "--seed", "345")
                        : chaos(b, work, "--ordering", ordering, "--duration", "8s", "--seed", "345")));
            }
            for (int bed = 0; bed < 2; bed++) {
                assertPassed(runs.get(bed).get(), bed);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("kernel faults: a cut drops one direction only, loss drops a share, heal restores; bad rates are refused")
    void kernelFaultsCutAndHeal() throws Exception {
        Testbed bed = Testbed.attach(PREFIX, NET);
        assertThat(bed.hosts()).isEqualTo(3);
        try (KernelFaults kernel = new KernelFaults(bed)) {
            assertThat(reaches(bed, 0, 1)).as("h0 -> h1 before any fault").isTrue();
            kernel.cut(0, 1);
            assertThat(reaches(bed, 0, 1)).as("h0 -> h1 cut").isFalse();
            assertThat(reaches(bed, 1, 0)).as("h1 -> h0 (the other way) still up").isTrue();
            assertThat(kernel.dropped(1)).as("h1 counted the drops").isPositive();
            kernel.heal();
            assertThat(reaches(bed, 0, 1)).as("h0 -> h1 healed").isTrue();
            kernel.lose(2, 0, 1000);
            assertThat(reaches(bed, 2, 0)).as("h2 -> h0 at 100 % loss").isFalse();
            kernel.heal();
            assertThatThrownBy(() -> kernel.lose(0, 1, 1001)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> bed.cap(0, 0)).isInstanceOf(IllegalArgumentException.class);
            bed.cap(0, 10);
            bed.uncap(0);
            bed.uncap(0); // idempotent
        }
        assertThatThrownBy(() -> bed.place("0=127.0.0.1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(bed.place("0=127.0.0.1:7001,4=127.0.0.1:7005")).isEqualTo("0=" + NET + ".1:7001,4=" + NET + ".2:7005");
    }

    /** Whether a datagram host {@code from} sends to host {@code to} arrives (one direction only: UDP). */
    private static boolean reaches(Testbed bed, int from, int to) throws Exception {
        Process receiver = new ProcessBuilder(List.of("ip", "netns", "exec", bed.namespace(to), "timeout", "10", "python3", "-c",
                "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
                        + "s.bind(('" + bed.address(to) + "', 7999)); print('ready', flush=True); s.settimeout(1.5); "
                        + "print('got', s.recv(64).decode(), flush=True)")).redirectErrorStream(true).start();
        try {
            byte[] ready = receiver.getInputStream().readNBytes(6);
            assertThat(new String(ready, StandardCharsets.US_ASCII)).startsWith("ready");
            command(List.of("ip", "netns", "exec", bed.namespace(from), "bash", "-c",
                    "for i in 1 2 3 4 5; do echo probe > /dev/udp/" + bed.address(to) + "/7999; done"), 10);
            String out = new String(receiver.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return out.contains("got probe");
        } finally {
            receiver.destroyForcibly().waitFor();
        }
    }
}
