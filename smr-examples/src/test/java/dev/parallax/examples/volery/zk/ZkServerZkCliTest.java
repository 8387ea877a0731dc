package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * zkCli ({@code org.apache.zookeeper.ZooKeeperMain}, as {@code bin/zkCli.sh} runs it) in its own JVM,
 * reading commands from stdin (without JLine on the class path it reads plain lines), against ZkServer.
 */
class ZkServerZkCliTest {
    private ZkServer server;
    private LocalVoleryBackend backend;

    @BeforeEach
    void start() throws IOException {
        backend = new LocalVoleryBackend();
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1), backend);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void createListReadUpdateDeleteDeleteallAndEphemerals() throws Exception {
        String script = String.join("\n", "create /a x", "create /a/b", "ls /", "ls /a", "get /a", "set /a y", "get /a",
                "stat /a", "delete /a/b", "delete /a", "ls /", "create /d", "create /d/x", "create /d/x/y", "create /d/z",
                "deleteall /d", "create -e /eph", "create -e -s /eph-", "ls /", "quit", "");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx64m", "-XX:TieredStopAtLevel=1",
                "org.apache.zookeeper.ZooKeeperMain", "-server", "127.0.0.1:" + server.port()))
                .redirectErrorStream(true).start();
        p.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        List<String> lines = output.lines().filter(l -> !l.contains(" INFO ") && !l.contains(" WARN ")).toList();
        assertThat(lines).as(output).containsSubsequence("Created /a", "Created /a/b", "[a]", "[b]", "x", "y",
                "dataVersion = 1", "numChildren = 1", "[]", "Created /d/z", "Created /eph", "Created /eph-0000000003",
                "[eph, eph-0000000003]");
        assertThat(output).doesNotContain("Exception");
        assertThat(server.sessionCount()).isZero();
        // quit closed the session: its ephemeral nodes went with it
        assertThat(backend.submit(new dev.parallax.examples.volery.GetChildren("/")).get().children())
                .isEmpty();
    }
}
