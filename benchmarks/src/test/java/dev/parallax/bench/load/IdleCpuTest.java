package dev.parallax.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.cli.ProcessCluster;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4 asks for wait strategies that do not burn a 2-core machine while idle. Three replica
 * processes with the default wait strategy, a leader elected and one command executed, then left
 * alone: each may use only a small share of one core (heartbeats every 50 ms, stage threads
 * parked). A spinning stage would use a whole core. The bound is loose on purpose: this is a
 * resource check, not a speed measurement.
 */
class IdleCpuTest {
    private static final double MAX_CORES_PER_IDLE_REPLICA = 0.15;

    @Test
    void anIdleClusterUsesLittleCpu(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, ProcessCluster.localDefaults(null, 0), false,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))) {
            cluster.startAll(Duration.ofSeconds(60));
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(cluster.clientEndpoints()).build())) {
                client.invoke(KvCommand.of(KvOp.SET, bytes("idle"), bytes("1")).encode()).get(30, TimeUnit.SECONDS);
            }
            Thread.sleep(2_000); // let start-up JIT compilation and connection set-up finish
            Map<String, Long> pids = new LinkedHashMap<>();
            for (int i = 0; i < 3; i++) {
                pids.put("replica-" + i, cluster.pid(i));
            }
            CpuMeter meter = new CpuMeter(pids);
            long start = System.nanoTime();
            meter.start();
            Thread.sleep(5_000);
            meter.stop();
            double seconds = (System.nanoTime() - start) / 1e9;
            meter.spent().forEach((name, cpu) -> {
                double cores = cpu / seconds;
                System.out.printf("%s idle: %.3f cores%n", name, cores);
                assertThat(cpu).as("%s CPU readable", name).isGreaterThanOrEqualTo(0);
                assertThat(cores).as("%s idle CPU in cores", name).isLessThan(MAX_CORES_PER_IDLE_REPLICA);
            });
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
