package dev.parallax.examples.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax kv} against three replica JVMs ({@link ProcessCluster}), run in-process through
 * picocli as {@code ./parallax kv ...} runs it; and {@link ReplicaConvergence} on the same cluster,
 * converged and then with a replica down.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// Default placement only (see smr-examples/pom.xml): parallax kv is a client, and the Multi-Paxos replica
// JVMs it talks to serve clients, converge and lose a replica under compact placement in MultiProcessClusterTest$MultiPaxos.
@org.junit.jupiter.api.Tag("one-placement")
class KvCommandLineProcessTest {
    private ProcessCluster cluster;

    @BeforeAll
    void startCluster(@TempDir Path dir) throws Exception {
        Properties p = ProcessCluster.localDefaults(null, 0);
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        cluster = new ProcessCluster(dir, 3, p, false,
                List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        cluster.replicaArgs("--metrics-port", "0");
        cluster.startAll(Duration.ofSeconds(60));
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What one {@code parallax kv} invocation printed and returned. */
    private record Run(int code, String out, String err) {
    }

    private Run kv(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 2];
        all[0] = "--cluster";
        all[1] = cluster.clientEndpoints().toString();
        System.arraycopy(args, 0, all, 2, args.length);
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new KvCommandLine(o, e)).execute(all);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    @Order(1)
    void setGetDelRoundTripThroughTheCommandLine() {
        assertThat(kv("get", "greeting")).isEqualTo(new Run(0, "(nil)", ""));
        assertThat(kv("set", "greeting", "hello world")).isEqualTo(new Run(0, "OK", ""));
        assertThat(kv("get", "greeting")).isEqualTo(new Run(0, "\"hello world\"", ""));
        assertThat(kv("exists", "greeting", "absent")).isEqualTo(new Run(0, "(integer) 1", ""));
        assertThat(kv("incr", "visits")).isEqualTo(new Run(0, "(integer) 1", ""));
        assertThat(kv("mset", "a", "1", "b", "2")).isEqualTo(new Run(0, "OK", ""));
        assertThat(kv("mget", "a", "absent", "b")).isEqualTo(new Run(0, "1) \"1\"\n2) (nil)\n3) \"2\"", ""));
        assertThat(kv("del", "greeting", "absent")).isEqualTo(new Run(0, "(integer) 1", ""));
        assertThat(kv("get", "greeting")).isEqualTo(new Run(0, "(nil)", ""));
        assertThat(kv("dbsize")).as("visits, a, b").isEqualTo(new Run(0, "(integer) 3", ""));
    }

    @Test
    @Order(2)
    void rejectedCommandsAndUsageErrorsExitNonZeroWithAMessage() {
        Run rejected = kv("incr", "a-text", "extra");
        assertThat(rejected.code()).isEqualTo(2);
        assertThat(rejected.out()).isEmpty();
        assertThat(kv("set", "text", "abc").code()).isZero();
        Run notInteger = kv("incr", "text");
        assertThat(notInteger.code()).isEqualTo(1);
        assertThat(notInteger.err()).contains("(error)").contains("ERR value is not an integer or out of range");
        assertThat(kv("get", "text")).isEqualTo(new Run(0, "\"abc\"", ""));
        assertThat(kv("dbsize", "extra").code()).isEqualTo(2);
        Run unknown = kv("frobnicate", "k");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown operation 'frobnicate'");
    }

    @Test
    @Order(3)
    void theReplicasConvergeAndADownReplicaIsReportedAsNotConverged() throws Exception {
        ReplicaConvergence.Outcome ok = ReplicaConvergence.await(cluster, Duration.ofSeconds(30));
        assertThat(ok.converged()).as(ok.describe()).isTrue();
        assertThat(ok.frontiers()).containsOnly(ok.frontiers()[0]);
        assertThat(ok.digests()).containsOnly(ok.digests()[0]);
        assertThat(ok.digests()[0]).as("the store is not empty").isPositive();
        assertThat(ok.describe()).startsWith("every replica at instance");

        assertThat(kv("set", "after", "check").code()).isZero();
        ReplicaConvergence.Outcome changed = ReplicaConvergence.await(cluster, Duration.ofSeconds(30));
        assertThat(changed.converged()).as(changed.describe()).isTrue();
        assertThat(changed.digests()[0]).isNotEqualTo(ok.digests()[0]);
        assertThat(changed.frontiers()[0]).isGreaterThan(ok.frontiers()[0]);

        cluster.kill(2);
        ReplicaConvergence.Outcome down = ReplicaConvergence.await(cluster, Duration.ofSeconds(1));
        assertThat(down.converged()).isFalse();
        assertThat(down.frontiers()[2]).isEqualTo(-1);
        assertThat(down.describe()).contains("did not converge");
    }
}
