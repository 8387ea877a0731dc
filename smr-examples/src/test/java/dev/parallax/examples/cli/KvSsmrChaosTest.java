package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax chaos --execution s-smr --partitions 2} (seed 004 (S-SMR) §IV): 2 partitions x 3
 * replica processes of the key-value store, replicas killed with SIGKILL and restarted at random
 * (one down at a time) under a load with MSET, MGET and DBSIZE across partitions, history clients
 * (SET and GET per key) through one client per partition; the run passes: the history is
 * linearizable, no acknowledged write is lost, each partition's replicas converge. Six JVMs for
 * about a minute on a loaded machine, so under {@code -Pstress} only; the demo under s-smr runs in
 * the default run ({@link DemoCommandTest}).
 */
class KvSsmrChaosTest {

    @Test
    @dev.parallax.core.testkit.StressOnly
    @org.junit.jupiter.api.Tag("one-placement") // the thread placements are covered in-process (KvSsmrClusterTest); see smr-examples/pom.xml
    @DisplayName("seed 004 §IV: chaos --execution s-smr over 2 partitions: linearizable, nothing lost (MSETs across "
            + "partitions included), each partition converged")
    void aShortChaosRunUnderSsmrPasses() {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            code = new CommandLine(new ChaosCommand()).execute("--execution", "s-smr", "--partitions", "2", "--duration", "15s",
                    "--seed", "7");
        } finally {
            System.setOut(saved);
        }
        String report = out.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(code).as(report).isZero();
        assertThat(report).contains("Parallax chaos: 6 replica processes with durable state")
                .containsPattern("killed replica \\d \\(partition [01]\\) with SIGKILL")
                .containsPattern("faults +[1-9]\\d* kills, [1-9]\\d* restarts \\(one replica down at a time, no network partitions\\)")
                .containsPattern("load +[\\d,]+ acknowledged commands, [1-9]\\d* of them MSET, MGET or DBSIZE across partitions")
                .containsPattern("history +[\\d,]+ operations by 4 clients, LINEARIZABLE")
                .contains("lost writes      0 acknowledged writes missing")
                .contains("each partition's replicas hold equal digests")
                .contains("runtime          ordering multi-ring, execution s-smr, threads compact, 2 partitions x 3 replicas")
                .contains("verdict          OK: linearizable, no acknowledged write lost, partitions converged");
    }
}
