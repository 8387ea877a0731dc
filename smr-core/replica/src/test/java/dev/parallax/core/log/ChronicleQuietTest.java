package dev.parallax.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chronicle's analytics are off in code: a JVM started without the {@code -D} flags that opens a
 * log ends with both properties {@code true}, and an explicit setting is kept.
 */
class ChronicleQuietTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("a JVM without -Dchronicle.* flags that opens a log has analytics and the announcer switched off")
    void switchedOffWithoutFlags() throws Exception {
        assertThat(runProbe(List.of())).isEqualTo("before=null,null after=true,true appended=1");
    }

    @Test
    @DisplayName("an explicit -Dchronicle.analytics.disable=false is left as the embedder set it")
    void explicitSettingWins() throws Exception {
        assertThat(runProbe(List.of("-Dchronicle.analytics.disable=false")))
                .isEqualTo("before=false,null after=false,true appended=1");
    }

    private String runProbe(List<String> extra) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // Keep the JDK-internals flags Chronicle needs on Java 17, drop every -Dchronicle.* flag.
            if (arg.startsWith("--add-") && !arg.contains("chronicle")) {
                cmd.add(arg);
            }
        }
        cmd.addAll(extra);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ChronicleQuietProbe.class.getName());
        cmd.add(dir.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("probe exits").isTrue();
        assertThat(p.exitValue()).as("probe exit code; stderr:%n%s", err).isZero();
        String[] lines = out.split("\n");
        return lines[lines.length - 1].trim();
    }
}
