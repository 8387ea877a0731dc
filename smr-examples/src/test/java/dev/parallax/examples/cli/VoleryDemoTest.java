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
 * {@code parallax demo --service volery} ({@link VoleryDemo}) and {@code parallax chaos --service
 * volery} ({@link VoleryChaos}), seed 004 (S-SMR) §V-B: bad input exits 2 with the reason before
 * anything starts; with {@code -Dparallax.volery.demo=true} (20 to 60 s each on a loaded 2-core
 * machine, so not in the default run) a short demo on one partition and a short chaos run on two
 * run to a passing verdict.
 */
class VoleryDemoTest {

    private static CliRun demo(String... args) {
        return CliRun.of(DemoCommand::new, args);
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
    @DisplayName("chaos --service volery refuses what it cannot run, exit 2 with the reason, nothing started")
    void chaosRefusesBadInput() {
        java.io.PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int[] codes = new int[4];
        try (PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(e);
            codes[0] = new CommandLine(new ChaosCommand()).execute("--service", "volery", "--partitions", "22");
            codes[1] = new CommandLine(new ChaosCommand()).execute("--service", "volery", "--execution", "sequential");
            codes[2] = new CommandLine(new ChaosCommand()).execute("--service", "volery", "--history-clients", "0");
            codes[3] = new CommandLine(new ChaosCommand()).execute("--service", "zk");
        } finally {
            System.setErr(saved);
        }
        assertThat(codes).containsOnly(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--partitions must be 1..21, not 22")
                .contains("drop --execution").contains("--history-clients must be at least 1, not 0")
                .contains("--service must be kv or volery, not 'zk'");
    }

    @Test
    @EnabledIfSystemProperty(named = "parallax.volery.demo", matches = "true")
    @DisplayName("seed 004 §V-B: a short Volery chaos run on two partitions: linearizable registers, nothing lost, converged")
    void shortChaosPasses() {
        java.io.PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            code = new CommandLine(new ChaosCommand()).execute("--service", "volery", "--partitions", "2", "--duration", "8s");
        } finally {
            System.setOut(saved);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isZero();
        assertThat(text).contains("killed replica").contains("LINEARIZABLE").contains("0 acknowledged setData values missing")
                .contains("verdict          OK");
    }

    @Test
    @EnabledIfSystemProperty(named = "parallax.volery.demo", matches = "true")
    @DisplayName("seed 004 §V-B: a short Volery demo on one partition: a replica killed and restarted, converged, nothing lost")
    void shortDemoPasses() {
        CliRun r = demo("--service", "volery", "--partitions", "1", "--seconds", "6", "--warmup", "0", "--clients", "2");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains(">> killed").contains(">> restarted")
                .contains("each partition's replicas hold equal digests")
                .contains("check            OK: every acknowledged setData is readable (64 znodes read)");
    }
}
