package dev.parallax.bench.systems;

import dev.parallax.bench.BenchMain;
import dev.parallax.examples.testbed.Testbed;
import dev.parallax.core.testkit.Commands;
import dev.parallax.core.testkit.Commands.Run;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code ./parallax bench --hosts --cap}: an M-Ring cluster, one replica per host of the project's
 * own test bed ({@code plxb}, 10.213.50.0/24), every host's egress capped, under a short load from
 * the root namespace; a real {@code BenchMain} process, as an operator runs it. Checks that the
 * replicas were placed on the hosts (the cluster file's addresses, M-Ring on {@code eth0}), that the
 * caps were set and removed, and that commands were answered. Figures are not asserted (this
 * machine is shared); docs/benchmarks.md has the measured network-bound table. Skipped with the
 * reason printed where the test bed cannot run.
 */
@Tag("testbed")
class TestbedBenchTest {
    private static final String PREFIX = "plxb";
    private static final String NET = "10.213.50";

    private static Path script() {
        return Commands.above("scripts/testbed.sh");
    }

    private static Run command(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        return Commands.run(cmd, Map.of(Testbed.PREFIX_ENV, PREFIX, Testbed.NET_ENV, NET), Duration.ofSeconds(timeoutSeconds));
    }

    @BeforeAll
    static void up() throws Exception {
        Run up = command(List.of(script().toString(), "up", "--hosts", "3"), 60);
        if (up.code() != 0) {
            System.out.println("test bed skipped: " + up.output().strip());
        }
        assumeTrue(up.code() == 0, () -> "the test bed cannot run here: " + up.output().strip());
        Run tbf = command(List.of("ip", "netns", "exec", PREFIX + "-h0", "sh", "-c",
                "tc qdisc add dev eth0 root tbf rate 100mbit burst 32768 latency 50ms && tc qdisc del dev eth0 root"), 30);
        if (tbf.code() != 0) {
            System.out.println("test bed skipped: no tc token bucket here: " + tbf.output().strip());
        }
        assumeTrue(tbf.code() == 0, () -> "no tc token bucket here: " + tbf.output().strip());
    }

    @AfterAll
    static void down() throws Exception {
        command(List.of(script().toString(), "down"), 60);
    }

    @Test
    @DisplayName("bench --hosts --cap: M-Ring replicas one per host, egress capped, commands answered, caps removed after")
    void mRingOnCappedHosts(@TempDir Path out) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        cmd.addAll(ReplicaCluster.replicaFlags());
        cmd.addAll(List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
                "-cp", System.getProperty("java.class.path"), BenchMain.class.getName(),
                "--hosts", "--system", "parallax-mring-none", "--cap", "100", "--cap-host", "2=50", "--size", "1024",
                "--connections", "2", "--outstanding", "8", "--seconds", "2", "--warmup", "1", "--keep",
                "--out", out.toString()));
        Run run = command(cmd, 300);
        System.out.println(run.output());
        assertThat(run.code()).as(run.output()).isZero();
        assertThat(run.output()).contains("host 0 (" + NET + ".1): egress capped at 100 Mbit/s")
                .contains("host 2 (" + NET + ".3): egress capped at 50 Mbit/s")
                .containsPattern("throughput +[1-9][\\d,]* ops/s \\([\\d,]+ answered, 0 failed\\)");
        Matcher kept = Pattern.compile("server files \\(logs\\) kept in (\\S+)").matcher(run.output());
        assertThat(kept.find()).as("the work directory is named").isTrue();
        String file = Files.readString(Path.of(kept.group(1)).resolve("cluster.properties"));
        assertThat(file).contains(NET + ".1:").contains(NET + ".2:").contains(NET + ".3:").doesNotContain("127.0.0.1")
                .contains("mring.interface=eth0");
        Run qdisc = command(List.of("ip", "netns", "exec", PREFIX + "-h2", "tc", "qdisc", "show", "dev", "eth0"), 10);
        assertThat(qdisc.output()).as("the cap is removed after the run").doesNotContain("tbf");
    }
}
