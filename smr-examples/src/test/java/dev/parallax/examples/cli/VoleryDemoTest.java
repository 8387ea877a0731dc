package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax demo --service volery} ({@link VoleryDemo}, seed 004 (S-SMR) §V-B): bad input
 * exits 2 with the reason before anything starts; with {@code -Dparallax.volery.demo=true} (about a
 * minute on a loaded 2-core machine, so not in the default run) a short demo on one partition runs
 * to a passing verdict: a replica killed and restarted, the partition converged, no acknowledged
 * setData lost.
 */
class VoleryDemoTest {

    private record Run(int code, String out, String err) {
    }

    private static Run demo(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cl = new CommandLine(new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        int code = cl.execute(args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("demo --service volery refuses what it cannot run, exit 2 with the reason, nothing started")
    void refusesBadInput() {
        assertThat(demo("--service", "etcd")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--service must be kv or volery, not 'etcd'");
            assertThat(r.out()).isEmpty();
        });
        assertThat(demo("--service", "volery", "--partitions", "0").err()).contains("--partitions must be 1..21, not 0");
        assertThat(demo("--service", "volery", "--ordering", "multi-paxos")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--service volery runs ordering=multi-ring and execution=s-smr: drop --ordering");
        });
        assertThat(demo("--service", "volery", "--tls").err()).contains("--tls is for --service kv");
        assertThat(demo("--service", "volery", "--clients", "0").err()).contains("--clients must be at least 1, not 0");
        assertThat(demo("--service", "volery", "--partitions", "x").code()).isEqualTo(2);
    }

    @Test
    @EnabledIfSystemProperty(named = "parallax.volery.demo", matches = "true")
    @DisplayName("seed 004 §V-B: a short Volery demo on one partition: a replica killed and restarted, converged, nothing lost")
    void shortDemoPasses() {
        Run r = demo("--service", "volery", "--partitions", "1", "--seconds", "6", "--warmup", "0", "--clients", "2");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains(">> killed").contains(">> restarted")
                .contains("each partition's replicas hold equal digests")
                .contains("check            OK: every acknowledged setData is readable (64 znodes read)");
    }
}
