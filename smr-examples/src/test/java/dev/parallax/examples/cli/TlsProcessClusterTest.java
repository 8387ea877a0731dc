package dev.parallax.examples.cli;

import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A TLS {@link ProcessCluster}, as {@code parallax chaos --tls}, {@code demo --tls}
 * and {@code bench --tls} start it: three replica JVMs with generated certificates, mutual TLS
 * between them, TLS on their client and Redis ports. Its own client, {@code parallax kv --cacert}
 * and the real {@code redis-cli --tls --cacert} are served on every replica; redis-cli without TLS
 * is not.
 */
class TlsProcessClusterTest {

    @Test
    void aTlsClusterServesItsClientsKvAndRedisCliOverTls(@TempDir Path dir) throws Exception {
        Properties p = ProcessCluster.localDefaults(null, 1000);
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, p, true,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                true)) {
            assertThat(cluster.clusterFile().describeRuntime(2)).contains("tls mutual between replicas, on client ports");
            cluster.startAll(Duration.ofSeconds(60));
            try (SmrClient c = SmrClient.connect(cluster.clientConfig().invokeTimeout(Duration.ofSeconds(30)).build())) {
                KvReply r = KvReply.decode(c.invoke(KvCommand.of(KvOp.SET, "k".getBytes(StandardCharsets.UTF_8),
                        "from the client".getBytes(StandardCharsets.UTF_8)).encode()).get(30, TimeUnit.SECONDS));
                assertThat(r).isInstanceOf(KvReply.Ok.class);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int code = new CommandLine(new KvCommandLine(new PrintStream(out, true, StandardCharsets.UTF_8), System.err))
                    .execute("--cluster", cluster.clientEndpoints().toString(), "--cacert",
                            cluster.certificates().orElseThrow().ca().toString(), "get", "k");
            assertThat(code).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo("\"from the client\"");

            RedisTools.require("redis-cli");
            String ca = cluster.certificates().orElseThrow().ca().toString();
            for (int replica = 0; replica < 3; replica++) {
                assertThat(cli(cluster, replica, ca, "PING").output().strip()).isEqualTo("PONG");
                assertThat(cli(cluster, replica, ca, "SET", "cli:" + replica, "tls " + replica).output().strip()).isEqualTo("OK");
                assertThat(cli(cluster, (replica + 1) % 3, ca, "GET", "cli:" + replica).output().strip()).isEqualTo("tls " + replica);
            }
            RedisTools.Result plain = cli(cluster, 0, null, "PING");
            assertThat(plain.output()).as("redis-cli without TLS").doesNotContain("PONG");
        }
    }

    /** redis-cli against replica {@code replica}'s RESP port, over TLS trusting {@code ca} unless it is null. */
    private static RedisTools.Result cli(ProcessCluster cluster, int replica, String ca, String... args) throws Exception {
        var ep = cluster.redisEndpoints().member(replica);
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", ep.host(), "-p", Integer.toString(ep.port())));
        if (ca != null) {
            command.addAll(List.of("--tls", "--cacert", ca));
        }
        command.addAll(List.of(args));
        return RedisTools.run(Duration.ofSeconds(60), null, command.toArray(String[]::new));
    }
}
