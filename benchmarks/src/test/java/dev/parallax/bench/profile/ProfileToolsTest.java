package dev.parallax.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "where the time goes" tools: JFR folding, flame graph, per-thread CPU, stage meter scraping. */
class ProfileToolsTest {

    private static long burn(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x += i * 31L ^ x >>> 3;
            }
        }
        return x;
    }

    @Test
    void aRecordingFoldsIntoStacksRootedAtTheThreadAndDrawsAFlameGraph(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("burn.jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
            r.start();
            Thread t = new Thread(() -> burn(1500), "burner-7");
            t.start();
            t.join();
            r.stop();
            r.dump(jfr);
        }
        StackProfile p = StackProfile.read(jfr);
        assertThat(p.samples()).isPositive();
        assertThat(p.byThread()).containsKey("burner-N");
        assertThat(p.folded().keySet()).anyMatch(s -> s.startsWith("burner-N;") && s.contains("ProfileToolsTest.burn"));
        assertThat(p.hottestTotal(50)).containsKey("ProfileToolsTest.burn");
        String svg = FlameGraphSvg.render(p.folded(), "burn");
        assertThat(svg).startsWith("<svg").contains("burner-N").contains("ProfileToolsTest.burn").endsWith("</svg>\n");
    }

    @Test
    void flameGraphWidthsFollowSampleShares() {
        Map<String, Long> folded = new LinkedHashMap<>();
        folded.put("t;a;b", 3L);
        folded.put("t;a;c", 1L);
        String svg = FlameGraphSvg.render(folded, "x <&> y");
        assertThat(svg).contains("x &lt;&amp;&gt; y (4 samples)");
        assertThat(svg).contains("<title>b (3 samples, 75.00%)</title>").contains("<title>c (1 samples, 25.00%)</title>");
    }

    @Test
    void threadCpuSeesAThreadThatBurnedCpu() throws Exception {
        long pid = ProcessHandle.current().pid();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch burned = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch exit = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                started.countDown();
                go.await();
                burn(300);
                burned.countDown();
                exit.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cpu-eater-3");
        t.start();
        started.await();
        ThreadCpu before = ThreadCpu.snapshot(pid);
        go.countDown();
        burned.await();
        ThreadCpu after = ThreadCpu.snapshot(pid);
        exit.countDown();
        t.join();
        List<ThreadCpu.Usage> usage = after.since(before);
        assertThat(usage).anyMatch(u -> u.threads().equals("cpu-eater-N") && u.cpuSeconds() > 0);
        assertThat(ThreadCpu.snapshot(-3).since(before)).isEmpty();
    }

    @Test
    void stageLoadsAndTotalsComeFromThePrometheusText() throws Exception {
        AtomicReference<String> body = new AtomicReference<>(metrics(0.0, 5));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/metrics", ex -> {
            byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        try {
            int port = server.getAddress().getPort();
            StageSampler s = new StageSampler(port);
            long from = System.nanoTime();
            s.sample();
            Thread.sleep(200); // sleep is the scenario: the sampler's interval between two samples
            body.set(metrics(0.1, 15));
            s.sample();
            double elapsed = (System.nanoTime() - from) / 1e9;
            List<StageSampler.StageLoad> loads = s.loads();
            assertThat(loads).hasSize(1);
            assertThat(loads.get(0).stage()).isEqualTo("paxos-protocol-0");
            // 0.1 s busy over the sampler's interval: at least the 200 ms slept, at most what this
            // test measured around both samples (long on a loaded machine).
            assertThat(loads.get(0).busyRatio()).isBetween(0.1 / elapsed * 0.999, 0.5 * 1.001);
            assertThat(loads.get(0).queueDepthMeanMax().get("1")).containsExactly(15.0, 15.0);
            Map<String, Double> totals = StageSampler.totals(port, List.of("parallax_paxos_view_changes_total", "missing_total"));
            assertThat(totals).containsEntry("parallax_paxos_view_changes_total", 3.0).containsEntry("missing_total", 0.0);
        } finally {
            server.stop(0);
        }
    }

    private static String metrics(double busySeconds, int depth) {
        return "# TYPE parallax_stage_busy_time_seconds_total counter\n"
                + "parallax_stage_busy_time_seconds_total{stage=\"paxos-protocol-0\",} " + busySeconds + "\n"
                + "parallax_stage_queue_depth{queue=\"1\",stage=\"paxos-protocol-0\",} " + depth + "\n"
                + "parallax_paxos_view_changes_total{protocol=\"multi-paxos\",replica=\"0\",} 1.0\n"
                + "parallax_paxos_view_changes_total{protocol=\"multi-paxos\",replica=\"1\",} 2.0\n";
    }

    @Test
    void profileMainWritesCollapsedStacksAndSvg(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("main.jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
            r.start();
            burn(500);
            r.stop();
            r.dump(jfr);
        }
        ProfileMain.main(new String[] {jfr.toString(), dir.resolve("out").toString()});
        assertThat(Files.readString(dir.resolve("out/main.collapsed"))).isNotBlank();
        assertThat(Files.readString(dir.resolve("out/main.svg"))).startsWith("<svg");
    }
}
