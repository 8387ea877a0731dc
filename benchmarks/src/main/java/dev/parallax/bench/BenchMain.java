package dev.parallax.bench;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.CpuSampler;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.bench.load.ResultWriter;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.examples.cli.ProcessCluster;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./parallax bench}: a 3-replica Parallax cluster (separate JVMs on 127.0.0.1) under a
 * closed-loop load from this JVM; prints a per-second progress line and a summary (throughput,
 * latency percentiles, CPU per process and per command) and writes JSON and CSV results.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Closed-loop load on a local 3-replica Parallax cluster; JSON/CSV results.")
public final class BenchMain implements Callable<Integer> {

    @Option(names = "--connections", defaultValue = "4", description = "Client connections (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--outstanding", defaultValue = "64", description = "Commands in flight per connection (default ${DEFAULT-VALUE}).")
    int outstanding;

    @Option(names = "--size", defaultValue = "32", description = "Command size in bytes (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--reads", defaultValue = "0", description = "Percent of reads (default ${DEFAULT-VALUE}).")
    int reads;

    @Option(names = "--keys", defaultValue = "10000", description = "Keys per connection (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--seconds", defaultValue = "20", description = "Measured seconds (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup", defaultValue = "5", description = "Warm-up seconds (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--sync", defaultValue = "none", description = "Acceptor log sync: none, every-batch or memory (no log) (default ${DEFAULT-VALUE}).")
    String sync;

    @Option(names = "--out", defaultValue = "bench-results", description = "Directory for JSON/CSV results (default ${DEFAULT-VALUE}).")
    Path out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        LoadSpec spec = new LoadSpec(connections, outstanding, size, reads, keys, Duration.ofSeconds(warmup),
                Duration.ofSeconds(seconds));
        String system = "parallax-multipaxos/" + sync;
        Path dir = Files.createTempDirectory("parallax-bench-");
        boolean durable = !sync.equals("memory");
        Properties props = ProcessCluster.localDefaults(durable ? dir.resolve("data") : null, 100_000);
        if (durable) {
            props.setProperty("log.sync", sync);
        }
        System.out.printf("bench %s: 3 replica JVMs + this load JVM, %d connections x %d in flight, %d B commands, %d%% reads, "
                + "%d s (+%d s warm-up)%n", system, connections, outstanding, size, reads, seconds, warmup);
        NioEventLoopGroup group = new NioEventLoopGroup(2, new DefaultThreadFactory("bench-client", true));
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, props, false,
                List.of("-Xmx2g", "-XX:+UseParallelGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"))) {
            cluster.startAll(Duration.ofSeconds(60));
            List<SmrClient> clients = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                clients.add(SmrClient.connect(ClientConfig.builder(cluster.clientEndpoints()).eventLoopGroup(group)
                        .maxOutstanding(Math.max(1, outstanding)).invokeTimeout(Duration.ofSeconds(30)).build()));
            }
            Map<String, Long> pids = new LinkedHashMap<>();
            for (int i = 0; i < 3; i++) {
                pids.put("replica-" + i, cluster.pid(i));
            }
            pids.put("load", ProcessHandle.current().pid());
            Map<String, Double> before = new LinkedHashMap<>();
            Map<String, Double> cpu = new LinkedHashMap<>();
            BenchResult r = new LoadGenerator(clients, spec).run(system,
                    s -> System.out.printf("  %3d s  %,10d ops/s  p99 %,8d us%n", s.second(), s.completed(), s.p99Us()),
                    () -> pids.forEach((k, pid) -> before.put(k, CpuSampler.cpuSeconds(pid))),
                    () -> pids.forEach((k, pid) -> cpu.put(k, CpuSampler.cpuSeconds(pid) - before.get(k))));
            clients.forEach(SmrClient::close);
            BenchResult result = new BenchResult(r.system(), r.spec(), r.completed(), r.failed(), r.seconds(),
                    r.percentilesUs(), r.timeline(), cpu);
            System.out.printf(Locale.ROOT, "%nthroughput   %,.0f ops/s (%,d answered, %,d failed)%n", result.throughput(),
                    result.completed(), result.failed());
            System.out.printf("latency (us) %s%n", result.percentilesUs());
            System.out.printf(Locale.ROOT, "cpu (s)      %s; %.1f us of CPU per command%n", cpu, result.cpuUsPerCommand());
            String name = String.format(Locale.ROOT, "%s-c%d-w%d-%dB", system.replace('/', '-'), connections, outstanding, size);
            ResultWriter.write(result, out, name);
            System.out.println("results      " + out.resolve(name + ".json") + ", " + out.resolve(name + ".csv"));
            return result.failed() == 0 ? 0 : 1;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
