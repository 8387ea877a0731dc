package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kills a writer process with SIGKILL in the middle of its appends and reopens its log: every
 * record the writer saw reported durable is there, and the log is a gap-free prefix of what it
 * appended (a process crash leaves the page cache, so under every policy nothing synced is lost).
 */
class ChronicleDurableLogProcessCrashTest {
    private static final int PAYLOAD = 100;
    private static final long KILL_AFTER_DURABLE = 20_000;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(SyncPolicy.class)
    void aKilledWriterLeavesEveryRecordItSawDurable(SyncPolicy policy) throws Exception {
        Process child = startWriter(policy);
        long durable = 0;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (durable < KILL_AFTER_DURABLE && (line = out.readLine()) != null) {
                if (line.startsWith("durable ")) {
                    durable = Long.parseLong(line.substring(8));
                }
            }
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(durable).as("the writer reported progress before it was killed").isGreaterThanOrEqualTo(KILL_AFTER_DURABLE);
        try (ChronicleDurableLog log = ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy))) {
            assertThat(log.firstIndex()).isZero();
            assertThat(log.nextIndex()).isGreaterThanOrEqualTo(durable);
            long[] next = {0};
            log.read(0, Integer.MAX_VALUE, (i, r) -> {
                assertThat(i).isEqualTo(next[0]++);
                byte[] b = new byte[r.remaining()];
                r.get(b);
                assertThat(b).isEqualTo(LogFiles.payload(i, PAYLOAD));
            });
            assertThat(next[0]).isEqualTo(log.nextIndex());
        }
    }

    private Process startWriter(SyncPolicy policy) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-") || arg.startsWith("-Dchronicle")) {
                cmd.add(arg);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LogWriterProcess.class.getName());
        cmd.add(dir.toString());
        cmd.add(policy.name());
        cmd.add("10");
        cmd.add(Integer.toString(PAYLOAD));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
