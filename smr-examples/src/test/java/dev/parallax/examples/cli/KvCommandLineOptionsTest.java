package dev.parallax.examples.cli;

import dev.parallax.core.net.LocalPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax kv}'s choice of cluster, in process and without a cluster: exactly one of
 * {@code --cluster} and {@code --config}, and a cluster file it refuses, are usage errors (exit 2)
 * naming the problem before anything connects.
 */
class KvCommandLineOptionsTest {

    @Test
    void exactlyOneOfClusterAndConfigIsAcceptedAndABadFileIsNamed(@TempDir Path dir) throws IOException {
        Path good = dir.resolve("good.properties");
        Files.writeString(good, "members=" + LocalPorts.endpoints(3) + "\n");
        assertThat(run("dbsize")).startsWith("2:").contains("give either --cluster or --config");
        assertThat(run("--cluster", "0=127.0.0.1:1", "--config", good.toString(), "dbsize")).startsWith("2:")
                .contains("give either --cluster or --config");
        Path refused = dir.resolve("psmr.properties");
        Files.writeString(refused, "members=" + LocalPorts.endpoints(3) + "\nexecution=p-smr\n");
        assertThat(run("--config", refused.toString(), "dbsize")).startsWith("2:")
                .contains(refused + ": execution=p-smr needs an ordering with groups, ordering=multi-ring or multicast, got ordering=multi-paxos");
        assertThat(run("--config", dir.resolve("missing.properties").toString(), "dbsize")).startsWith("2:")
                .contains("cannot read " + dir.resolve("missing.properties"));
    }

    /** {@code parallax kv args}: its exit code, a colon and its standard error. */
    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new KvCommandLine(o, e)).execute(args);
        }
        return code + ":" + err.toString(StandardCharsets.UTF_8);
    }
}
