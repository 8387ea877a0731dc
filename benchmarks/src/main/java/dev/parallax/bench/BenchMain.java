package dev.parallax.bench;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.CpuSampler;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.bench.load.ResultWriter;
import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.Systems;
import dev.parallax.core.client.CommandInvoker;
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
import java.util.concurrent.Callable;

/**
 * {@code ./parallax bench}: a system (Parallax or a peer; servers in separate JVMs on 127.0.0.1) under
 * a closed-loop load from this JVM; prints a per-second progress line and a summary (throughput,
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

    @Option(names = "--system", description = "System to measure: ${COMPLETION-CANDIDATES}; default parallax-<sync>.",
            completionCandidates = SystemNames.class)
    String system;

    @Option(names = "--out", defaultValue = "bench-results", description = "Directory for JSON/CSV results (default ${DEFAULT-VALUE}).")
    Path out;

    /** The known system names, for the help text. */
    static final class SystemNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Systems.all().stream().map(Systems.Entry::name).iterator();
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        LoadSpec spec = new LoadSpec(connections, outstanding, size, reads, keys, Duration.ofSeconds(warmup),
                Duration.ofSeconds(seconds));
        String name = system != null ? system : "parallax-" + sync;
        try (BenchSystem sut = Systems.create(name)) {
            System.out.printf("bench %s: servers in separate JVMs + this load JVM, %d connections x %d in flight, %d B commands, "
                    + "%d%% reads, %d s (+%d s warm-up)%n", name, connections, outstanding, size, reads, seconds, warmup);
            sut.start(Files.createTempDirectory("parallax-bench-"), Duration.ofSeconds(60));
            List<CommandInvoker> clients = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                clients.add(sut.connect(outstanding));
            }
            Map<String, Long> pids = new LinkedHashMap<>(sut.serverPids());
            pids.put("load", ProcessHandle.current().pid());
            Map<String, Double> before = new LinkedHashMap<>();
            Map<String, Double> cpu = new LinkedHashMap<>();
            StringBuilder where = new StringBuilder();
            BenchResult r = new LoadGenerator(clients, spec).run(name,
                    s -> System.out.printf("  %3d s  %,10d ops/s  p99 %,8d us%n", s.second(), s.completed(), s.p99Us()),
                    () -> {
                        pids.forEach((k, pid) -> before.put(k, CpuSampler.cpuSeconds(pid)));
                        sut.measurementStarted();
                    },
                    () -> {
                        pids.forEach((k, pid) -> cpu.put(k, CpuSampler.cpuSeconds(pid) - before.get(k)));
                        where.append(sut.measurementEnded());
                    });
            BenchResult result = new BenchResult(r.system(), r.spec(), r.completed(), r.failed(), r.seconds(),
                    r.percentilesUs(), r.timeline(), cpu);
            System.out.printf(Locale.ROOT, "%nthroughput   %,.0f ops/s (%,d answered, %,d failed)%n", result.throughput(),
                    result.completed(), result.failed());
            System.out.printf("latency (us) %s%n", result.percentilesUs());
            System.out.printf(Locale.ROOT, "cpu (s)      %s; %.1f us of CPU per command%n", cpu, result.cpuUsPerCommand());
            System.out.print(where);
            String file = String.format(Locale.ROOT, "%s-c%d-w%d-%dB", name, connections, outstanding, size);
            ResultWriter.write(result, out, file);
            System.out.println("results      " + out.resolve(file + ".json") + ", " + out.resolve(file + ".csv"));
            return result.failed() == 0 ? 0 : 1;
        }
    }
}
