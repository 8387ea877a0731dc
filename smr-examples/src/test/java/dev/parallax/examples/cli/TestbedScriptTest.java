package dev.parallax.examples.cli;

import dev.parallax.core.testkit.Commands;
import dev.parallax.core.testkit.Commands.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code scripts/testbed.sh} ({@code ./parallax testbed}): hosts in network namespaces on a bridge.
 * Runs its own test bed (prefix {@code plxt}, 10.213.48.0/24) so an operator's ({@code plx}) is left
 * alone. Skipped, with the script's reason printed, where it cannot run (not root, no namespaces).
 */
@org.junit.jupiter.api.Tag("testbed")
class TestbedScriptTest {
    private static final String NET = "10.213.48";

    /** scripts/testbed.sh of this checkout. */
    static Path script() {
        return Commands.above("scripts/testbed.sh");
    }

    private static Run run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(script().toString()));
        cmd.addAll(List.of(args));
        return runCommand(cmd);
    }

    private static Run runCommand(List<String> cmd) throws IOException, InterruptedException {
        return Commands.run(cmd, Map.of("PARALLAX_TESTBED_PREFIX", "plxt", "PARALLAX_TESTBED_NET", NET), Duration.ofSeconds(60));
    }

    @BeforeEach
    void needsNamespaces() throws Exception {
        Run probe = run("down");
        if (probe.code() != 0) {
            System.out.println("test bed skipped: " + probe.output().strip());
        }
        assumeTrue(probe.code() == 0, () -> "the test bed cannot run here: " + probe.output().strip());
    }

    @AfterEach
    void down() throws Exception {
        run("down");
    }

    @Test
    @DisplayName("up makes N hosts on a bridge, idempotently; hosts reach each other and the root namespace over it; "
            + "cap and uncap a host's egress")
    void upMakesConnectedHosts() throws Exception {
        assertThat(run("up", "--hosts", "2").code()).isZero();
        Run again = run("up", "--hosts", "2");
        assertThat(again.code()).as("up again: %s", again.output()).isZero();
        assertThat(again.output()).contains("plxt-h0  " + NET + ".1").contains("plxt-h1  " + NET + ".2")
                .doesNotContain("plxt-h2").contains("UP");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getByName(NET + ".254"))) {
            server.setSoTimeout(20_000);
            Run send = run("exec", "1", "bash", "-c",
                    "exec 3<>/dev/tcp/" + NET + ".254/" + server.getLocalPort() + "; echo hello >&3");
            assertThat(send.code()).as("host 1 → the root namespace: %s", send.output()).isZero();
            try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                assertThat(new String(in.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("hello");
                assertThat(s.getInetAddress().getHostAddress()).isEqualTo(NET + ".2");
            }
        }
        Run refused = run("exec", "0", "bash", "-c", "exec 3<>/dev/tcp/" + NET + ".2/1");
        assertThat(refused.output()).as("host 0 → host 1 reaches host 1's kernel, which has no listener on port 1")
                .contains("Connection refused");
        assertThat(run("cap", "0", "200").code()).isZero();
        assertThat(run("exec", "0", "tc", "qdisc", "show", "dev", "eth0").output()).contains("tbf").contains("rate 200Mbit");
        assertThat(run("uncap", "0").code()).isZero();
        assertThat(run("exec", "0", "tc", "qdisc", "show", "dev", "eth0").output()).doesNotContain("tbf");
        assertThat(run("cap", "0", "fast").code()).isEqualTo(2);
    }

    @Test
    @DisplayName("down removes the hosts and kills what still runs in them; status then says there are none")
    void downCleansUpAfterAKilledRun() throws Exception {
        assertThat(run("up", "--hosts", "1").code()).isZero();
        ProcessBuilder left = new ProcessBuilder(script().toString(), "exec", "0", "sleep", "600")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        left.environment().put("PARALLAX_TESTBED_PREFIX", "plxt");
        left.environment().put("PARALLAX_TESTBED_NET", NET);
        Process sleeper = left.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (runCommand(List.of("ip", "netns", "pids", "plxt-h0")).output().isBlank()) {
            assertThat(System.nanoTime() - deadline).as("the process started in host 0").isNegative();
            assertThat(sleeper.isAlive()).as("the process in host 0 runs").isTrue();
            Thread.onSpinWait();
        }
        Run down = run("down");
        assertThat(down.code()).as(down.output()).isZero();
        assertThat(sleeper.waitFor(20, TimeUnit.SECONDS)).as("the process left in the host is killed").isTrue();
        Run status = run("status");
        assertThat(status.code()).isEqualTo(3);
        assertThat(status.output()).contains("no hosts");
    }

    @Test
    @DisplayName("bad input is refused with a reason and exit 2: a host count out of range, an unknown command, a public net, not root")
    void badInputIsRefused() throws Exception {
        Run zero = run("up", "--hosts", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.output()).contains("--hosts must be 1..64");
        Run unknown = run("sideways");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.output()).contains("unknown command 'sideways'");
        ProcessBuilder publicNet = new ProcessBuilder(script().toString(), "status").redirectErrorStream(true);
        publicNet.environment().put("PARALLAX_TESTBED_NET", "8.8.8");
        Process p = publicNet.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).contains("private /24");
        if (Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            Run notRoot = runCommand(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    script().toString(), "status"));
            assertThat(notRoot.code()).isEqualTo(2);
            assertThat(notRoot.output()).contains("must run as root");
        }
    }
}
