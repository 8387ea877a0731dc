package dev.parallax.dist;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The systemd unit of the tarball: what it must say, and systemd's own check where it runs. */
class SystemdUnitIT {
    private static final String UNIT = "systemd/parallax-replica@.service";

    @Test
    @DisplayName("the unit runs the tarball's bin/parallax replica with the instance as id, never --bootstrap")
    void structure() throws Exception {
        Path home = Dist.tarballHome();
        List<String> lines = Files.readAllLines(home.resolve(UNIT));
        String execStart = lines.stream().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow();
        assertThat(execStart).startsWith("ExecStart=/opt/parallax/bin/parallax replica ").contains("--id %i")
                .doesNotContain("--bootstrap");
        assertThat(home.resolve("bin/parallax")).as("ExecStart's /opt/parallax/bin/parallax, in the tarball").isExecutable();
        assertThat(lines).contains("KillSignal=SIGTERM", "User=parallax", "Restart=on-failure",
                "EnvironmentFile=/etc/parallax/replica.env");
        assertThat(lines).anyMatch(l -> l.startsWith("LimitNOFILE="));
        assertThat(Files.readString(home.resolve("systemd/replica.env.example"))).contains("PARALLAX_CONFIG=");
    }

    @Test
    @DisplayName("systemd-analyze verify accepts the unit (ExecStart pointed at the unpacked tarball)")
    void systemdVerifies() throws Exception {
        Assumptions.assumeTrue(Dist.onPath("systemd-analyze"), "skipped: systemd-analyze is not on the PATH");
        Path home = Dist.tarballHome();
        Path dir = Dist.workDir("systemd");
        Path unit = dir.resolve("parallax-replica@0.service");
        Files.writeString(unit, Files.readString(home.resolve(UNIT)).replace("/opt/parallax/", home + "/"));
        Dist.run(Duration.ofSeconds(60), dir, "systemd-analyze", "verify", unit.toString()).ok("systemd-analyze verify");
    }
}
