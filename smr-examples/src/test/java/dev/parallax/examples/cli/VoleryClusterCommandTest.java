package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code parallax volery} and {@code parallax zkcli} without processes: the options, exit code 2
 * with a clear message on bad input (nothing started), and the cluster file they write loads as a
 * Volery cluster of P partitions × 3 replicas ({@link VoleryClusterFile}, seed 004 (S-SMR) §VI).
 */
class VoleryClusterCommandTest {

    private static CliRun volery(String... args) {
        return CliRun.of(VoleryClusterCommand::new, args);
    }

    /** The temporary work directories of {@code parallax volery} now on this machine. */
    private static long temporaryDirectories() throws java.io.IOException {
        try (var list = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return list.filter(p -> p.getFileName().toString().startsWith("parallax-volery-")).count();
        }
    }

    @Test
    @DisplayName("bad input exits 2 with a message naming the option, before anything starts")
    void badInputExitsTwo(@TempDir Path dir) throws Exception {
        long before = temporaryDirectories();
        assertThat(volery("--partitions", "0")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--partitions must be 1..21, not 0");
        });
        assertThat(volery("--partitions", "22").err()).contains("--partitions must be 1..21, not 22");
        assertThat(volery("--partitions", "two")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--partitions");
        });
        assertThat(volery("--ordering-kind", "x-ring")).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--ordering-kind: the ring kind must be u-ring or m-ring, not 'x-ring'");
        });
        assertThat(volery("--heap-mib", "8").err()).contains("--heap-mib must be at least 64, not 8");
        Path used = Files.createDirectories(dir.resolve("used"));
        Files.writeString(used.resolve("cluster.properties"), "members=0=127.0.0.1:1\n");
        assertThat(volery("--dir", used.toString())).satisfies(r -> {
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("--dir " + used + " is not empty");
            assertThat(r.out()).isEmpty();
        });
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        assertThat(volery("--dir", file.toString()).err()).contains("is not a directory");
        // Nothing was written next to the refused directory, and no temporary directory was left behind.
        assertThat(used.resolve("replica-0.log")).doesNotExist();
        assertThat(temporaryDirectories()).isLessThanOrEqualTo(before);
    }

    @Test
    @DisplayName("seed 004 §VI: the cluster file of P partitions: 3P members, service=volery, s-smr over multi-ring with P rings, "
            + "a ZooKeeper front end per replica")
    void clusterFileLoads(@TempDir Path dir) throws Exception {
        VoleryClusterCommand cmd = new VoleryClusterCommand();
        new CommandLine(cmd).parseArgs("--partitions", "2");
        try (ProcessCluster cluster = cmd.cluster(dir)) {
            ClusterFile file = ClusterFile.load(cluster.configFile());
            assertThat(file.service()).isEqualTo(ClusterFile.VOLERY);
            assertThat(file.execution()).isEqualTo(Executions.S_SMR);
            assertThat(file.ordering()).isEqualTo(Orderings.MULTI_RING);
            assertThat(file.members().size()).isEqualTo(6);
            assertThat(file.partitions()).isEqualTo(2);
            assertThat(file.partitionMembers()).containsExactly(new int[] {0, 1, 2}, new int[] {3, 4, 5});
            assertThat(file.zookeeper()).get().satisfies(zk -> assertThat(zk.size()).isEqualTo(6));
            Properties raw = new Properties();
            try (var in = Files.newBufferedReader(cluster.configFile())) {
                raw.load(in);
            }
            assertThat(raw.getProperty("multiring.rings")).isEqualTo("2");
            assertThat(raw.getProperty("multiring.kind")).isEqualTo("u-ring");
            assertThat(raw.getProperty("data.dir")).isEqualTo(dir.resolve("data").toString());
            assertThat(raw.getProperty("threads")).isEqualTo("compact");
            assertThat(raw.getProperty("ring.suspect.ms")).isEqualTo("1000");

            String text = VoleryClusterCommand.describe(file);
            String all = VoleryClusterFile.connectString(file);
            assertThat(all.split(",")).hasSize(6).allMatch(s -> s.matches("127\\.0\\.0\\.1:\\d+"));
            assertThat(text).contains("ZooKeeper connect string: " + all)
                    .contains("./parallax zkcli -server " + VoleryClusterFile.connectString(file, 0))
                    .contains("partition 1: replicas [3, 4, 5], ZooKeeper front ends " + VoleryClusterFile.connectString(file, 3, 4, 5));
        }
    }

    @Test
    @DisplayName("an even cluster with M-Ring rings gets its own UDP port run and multicast group (even rings are legal)")
    void evenClusterGetsMRingPorts(@TempDir Path dir) throws Exception {
        VoleryClusterCommand cmd = new VoleryClusterCommand();
        new CommandLine(cmd).parseArgs("--partitions", "2", "--ordering-kind", "m-ring");
        try (ProcessCluster cluster = cmd.cluster(dir)) {
            Properties raw = new Properties();
            try (var in = Files.newBufferedReader(cluster.configFile())) {
                raw.load(in);
            }
            assertThat(raw.getProperty("multiring.kind")).isEqualTo("m-ring");
            assertThat(raw.getProperty("mring.port")).matches("\\d+");
            assertThat(raw.getProperty("mring.group")).startsWith("239.255.");
            assertThat(ClusterFile.load(cluster.configFile()).multiRing().rings()).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("the shared builder refuses what no Volery cluster can be, naming the range or the values")
    void builderRefusesBadInput() {
        assertThatThrownBy(() -> VoleryClusterFile.settings(0, "u-ring")).hasMessage("partitions must be 1..21, not 0");
        assertThatThrownBy(() -> VoleryClusterFile.replicas(22)).hasMessage("partitions must be 1..21, not 22");
        assertThatThrownBy(() -> VoleryClusterFile.settings(1, "ring")).hasMessageContaining("u-ring or m-ring, not 'ring'");
        assertThat(VoleryClusterFile.settings(3, "m-ring")).containsExactly(
                java.util.Map.entry("service", "volery"), java.util.Map.entry("execution", "s-smr"),
                java.util.Map.entry("ordering", "multi-ring"), java.util.Map.entry("multiring.rings", "3"),
                java.util.Map.entry("multiring.kind", "m-ring"));
    }

    @Test
    @DisplayName("zkcli needs -server HOST:PORT: without it, exit 2 with the reason and no connection attempt")
    void zkCliNeedsAServer() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ZkCliCommand cmd = new ZkCliCommand(new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(new CommandLine(cmd).execute("ls", "/")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("zkcli needs -server HOST:PORT");
        assertThat(ZkCliCommand.refusal(List.of("-server"))).contains("got nothing");
        assertThat(ZkCliCommand.refusal(List.of("-server", "-timeout", "10"))).contains("got '-timeout'");
        assertThat(ZkCliCommand.refusal(List.of("-server", "localhost"))).contains("got 'localhost'");
        assertThat(ZkCliCommand.refusal(List.of("-server", "127.0.0.1:2181,127.0.0.1:2182", "ls", "/"))).isNull();
        // picocli hands every zkCli argument over unchanged, options included.
        ZkCliCommand parsed = new ZkCliCommand();
        new CommandLine(parsed).parseArgs("-server", "127.0.0.1:1", "-timeout", "5000", "create", "-s", "/a", "b");
        assertThat(parsed.args).containsExactly("-server", "127.0.0.1:1", "-timeout", "5000", "create", "-s", "/a", "b");
    }
}
