package dev.parallax.bench;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.CpuMeter;
import dev.parallax.bench.load.LoadGenerator;
import dev.parallax.bench.load.LoadSpec;
import dev.parallax.bench.load.ResultWriter;
import dev.parallax.bench.load.Sweep;
import dev.parallax.bench.load.SweepPlan;
import dev.parallax.bench.load.SweepPoint;
import dev.parallax.bench.load.SweepResult;
import dev.parallax.bench.report.Charts;
import dev.parallax.bench.report.SweepCurve;
import dev.parallax.bench.report.ComparisonMarkdown;
import dev.parallax.bench.report.ComparisonTable;
import dev.parallax.bench.report.SystemOutcome;
import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ParallaxSystem;
import dev.parallax.bench.systems.Systems;
import dev.parallax.bench.systems.zookeeper.ZkWorkload;
import dev.parallax.bench.systems.zookeeper.ZooKeeperApiSystem;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.testbed.Testbed;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code ./parallax bench}: a system (Parallax, a peer or a network limit; servers in separate JVMs
 * on 127.0.0.1) under a closed-loop load from this JVM. Three modes: one run (per-second progress,
 * summary, JSON/CSV and a timeline chart); {@code --sweep}, the same load at rising outstanding
 * counts on one started system until throughput stops growing (a summary line, files and a chart
 * per level, a latency-versus-throughput chart); and {@code --compare}, a sweep of every system at
 * each command size and a Markdown comparison table with ratios and one chart per size.
 * {@link ParallaxRuntimeOptions} choose the parallax systems' ordering protocol, executor and thread
 * placement (written into the cluster file they generate; the other systems ignore them in
 * {@code --compare} and reject them with {@code --system}); {@code --tls} runs them with TLS
 * (named {@code parallax-<sync>-tls}). {@code --zk-global} sets the share of global commands
 * (create/delete) of the ZooKeeper-API systems' workload ({@link ZkWorkload}: {@code zookeeper*} and
 * {@code volery-<P>}, seed 004 (S-SMR / Eyrie / Volery) §VI), the same for all of them.
 *
 * <p>Runs on the calling thread and blocks until done; not for concurrent use.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Closed-loop load on a local system (Parallax, a peer, echo, forwarder): a run, a sweep "
                + "(--sweep) or a comparison of systems (--compare); JSON/CSV/PNG results.")
public final class BenchMain implements Callable<Integer> {

    @Option(names = "--connections", defaultValue = "4", description = "Client connections (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--outstanding", defaultValue = "64", description = "Commands in flight per connection in a single run (default ${DEFAULT-VALUE}).")
    int outstanding;

    @Option(names = "--size", defaultValue = "32", description = "Command size in bytes of a run or sweep (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--reads", defaultValue = "0", description = "Percent of reads (default ${DEFAULT-VALUE}), sent as "
            + "queries (read-index where the system has it, else ordered).")
    int reads;

    @Option(names = "--ordered-reads", description = "Order every read as a command (the baseline of the query path).")
    boolean orderedReads;

    @Option(names = "--keys", defaultValue = "10000", description = "Keys per connection (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--seconds", description = "Measured seconds per run or sweep level (default 20 for a run, 5 for a level).")
    Integer seconds;

    @Option(names = "--warmup", description = "Warm-up seconds per run or sweep level (default 15 for a run, 2 for a level).")
    Integer warmup;

    @Option(names = "--prewarm", defaultValue = "15", description = "Unmeasured seconds of load before a sweep's first level, "
            + "for the JIT (default ${DEFAULT-VALUE}).")
    int prewarm;

    @Option(names = "--sync", defaultValue = "none", description = "Acceptor log sync when --system is not given: none, every-batch or memory (default ${DEFAULT-VALUE}).")
    String sync;

    @Option(names = "--system", description = "System to measure: ${COMPLETION-CANDIDATES}; default parallax-<sync>.",
            completionCandidates = SystemNames.class)
    String system;

    @Option(names = "--sweep", description = "Sweep outstanding per connection (1, 4, 16, ...) until throughput stops growing.")
    boolean sweep;

    @Option(names = "--sweep-factor", defaultValue = "4", description = "Ratio between sweep levels (default ${DEFAULT-VALUE}).")
    int sweepFactor;

    @Option(names = "--sweep-max", defaultValue = "4096", description = "Largest outstanding per connection of a sweep (default ${DEFAULT-VALUE}).")
    int sweepMax;

    @Option(names = "--sweep-min-gain", defaultValue = "5", description = "Throughput gain in percent below which a level counts as no growth (default ${DEFAULT-VALUE}).")
    double sweepMinGain;

    @Option(names = "--sweep-max-p99-ms", defaultValue = "1000", description = "p99 in ms that stops a sweep (default ${DEFAULT-VALUE}).")
    double sweepMaxP99Ms;

    @Option(names = "--compare", description = "Sweep every system (or --systems) at every --sizes and write a comparison table.")
    boolean compare;

    @Option(names = "--systems", split = ",", description = "Systems to compare (default: all).")
    List<String> systems;

    @Option(names = "--sizes", split = ",", defaultValue = "32,128", description = "Command sizes to compare (default ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--p99-target-ms", defaultValue = "5", description = "p99 of the equal-latency comparison column (default ${DEFAULT-VALUE}).")
    double p99TargetMs;

    @Option(names = "--tls", description = "Run the parallax systems with mutual TLS between replicas and TLS for the "
            + "clients (throwaway certificates); they are then named parallax-<sync>-tls.")
    boolean tls;

    @Option(names = "--zk-global", defaultValue = "0", description = "ZooKeeper-API systems (zookeeper*, volery-*): percent "
            + "of global commands, create/delete alternately, the rest setData on the session's znodes; the setData and "
            + "create payload is the command (--size / --sizes bytes). Default ${DEFAULT-VALUE}; a nonzero value adds "
            + "-g<percent> to their names.")
    double zkGlobal;

    @Option(names = "--hosts", description = "Run the parallax systems' replicas one per host of the test bed (network "
            + "namespaces on a bridge: ./parallax testbed up --hosts N first, as root); the load stays in the root namespace. "
            + "Bytes sent per command are then what each host's link carried.")
    boolean hosts;

    @Option(names = "--cap", description = "With --hosts: cap every host's egress at this many Mbit/s (tc tbf) for the run.")
    Integer cap;

    @Option(names = "--cap-host", split = ",", description = "With --hosts: cap host I's egress at M Mbit/s, I=M (repeatable; "
            + "overrides --cap for that host): one slower host, as a heterogeneous cloud.")
    Map<Integer, Integer> capHost;

    @Option(names = "--keep", description = "Keep the servers' files (logs, data) after a successful run.")
    boolean keep;

    @Option(names = "--chart", description = "Redraw comparison charts from saved sweeps instead of measuring: NAME=FILE "
            + "(repeatable; FILE a sweep's .csv or .json from --sweep or --compare), written to --out as "
            + "<--chart-stem>-p50.png and -p99.png.")
    LinkedHashMap<String, Path> chart;

    @Option(names = "--chart-title", defaultValue = "latency vs throughput", description = "Title of --chart's charts (default ${DEFAULT-VALUE}).")
    String chartTitle;

    @Option(names = "--chart-stem", defaultValue = "compare", description = "File name stem of --chart's charts (default ${DEFAULT-VALUE}).")
    String chartStem;

    @Option(names = "--out", defaultValue = "bench-results", description = "Directory for JSON/CSV/PNG results (default ${DEFAULT-VALUE}).")
    Path out;

    /** {@code --ordering}, {@code --execution}, {@code --execution-threads}, {@code --threads}: the parallax systems' runtime. */
    @Mixin
    ParallaxRuntimeOptions runtime = new ParallaxRuntimeOptions();

    @Spec
    CommandSpec spec;

    /** The known system names, for the help text. */
    static final class SystemNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Systems.all().stream().map(Systems.Entry::name).iterator();
        }
    }

    /** What to do with one started system, its connections and its processes (the load JVM included). */
    @FunctionalInterface
    private interface SystemTask<T> {
        T run(BenchSystem sut, List<CommandInvoker> clients, Map<String, Long> pids) throws Exception;
    }

    /** Runs the command line; exits with its status. */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new BenchMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (chart != null) {
            List<SweepCurve> curves = new ArrayList<>();
            for (Map.Entry<String, Path> e : chart.entrySet()) {
                curves.add(SweepCurve.read(e.getKey(), e.getValue()));
            }
            Charts.comparisonCurves(chartTitle, curves, out, chartStem);
            System.out.println("charts " + out.resolve(chartStem + "-p50.png") + ", " + out.resolve(chartStem + "-p99.png"));
            return 0;
        }
        if (!(zkGlobal >= 0 && zkGlobal <= 100)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--zk-global must be a percentage, 0..100, not " + zkGlobal);
        }
        if (!hosts && (cap != null || capHost != null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cap and --cap-host need --hosts");
        }
        if (hosts) {
            for (String n : compare ? (systems != null ? systems : Systems.all().stream().map(Systems.Entry::name).toList())
                    : List.of(system != null ? system : "parallax-" + sync)) {
                if (!(Systems.create(n) instanceof ParallaxSystem)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--hosts runs the parallax systems only, not " + n);
                }
            }
            try {
                bed = Testbed.attach();
            } catch (IllegalStateException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return withCaps(this::run);
        }
        return run();
    }

    /** The test bed of {@code --hosts}, or null. */
    private Testbed bed;

    /** Applies {@code --cap} and {@code --cap-host} to the test bed's hosts for {@code body}, and removes them after. */
    private int withCaps(Callable<Integer> body) throws Exception {
        try {
            for (int h = 0; h < bed.hosts(); h++) {
                Integer rate = capHost != null && capHost.containsKey(h) ? capHost.get(h) : cap;
                if (rate != null) {
                    bed.cap(h, rate);
                    System.out.printf("host %d (%s): egress capped at %d Mbit/s%n", h, bed.address(h), rate);
                }
            }
            return body.call();
        } finally {
            for (int h = 0; h < bed.hosts(); h++) {
                bed.uncap(h);
            }
        }
    }

    private int run() throws Exception {
        if (compare) {
            if (system != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--compare takes --systems, not --system");
            }
            return compare();
        }
        String name = system != null ? system : "parallax-" + sync;
        if (!runtime.clusterSettings().isEmpty() && !(Systems.create(name) instanceof ParallaxSystem)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ordering, --execution, --execution-threads "
                    + "and --threads apply to the parallax systems only, not " + name);
        }
        if (tls && !(Systems.create(name) instanceof ParallaxSystem)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--tls applies to the parallax systems only, not " + name);
        }
        if (zkGlobal != 0 && !(Systems.create(name) instanceof ZooKeeperApiSystem)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--zk-global applies to the ZooKeeper-API systems "
                    + "(zookeeper, zookeeper-nosync, volery-<P>) only, not " + name);
        }
        if (sweep) {
            withSystem(name, sweepPlan().max(), (sut, clients, pids) -> sweep(sut.name(), size, sut, clients, pids));
            return 0;
        }
        return withSystem(name, outstanding, this::single);
    }

    private int single(BenchSystem sut, List<CommandInvoker> clients, Map<String, Long> pids) throws Exception {
        LoadSpec spec = spec(size, outstanding);
        String name = sut.name();
        System.out.printf("bench %s: servers in separate JVMs + this load JVM, %d connections x %d in flight, %d B commands, "
                        + "%d%% reads, %d s (+%d s warm-up)%n", name, connections, outstanding, size, reads,
                spec.duration().toSeconds(), spec.warmup().toSeconds());
        CpuMeter cpu = new CpuMeter(pids);
        StringBuilder where = new StringBuilder();
        BenchResult result = new LoadGenerator(clients, spec)
                .run(name, s -> System.out.printf(Locale.ROOT, "  %3d s  %,10d ops/s  p99 %,8d us%n", s.second(),
                        s.completed(), s.p99Us()), () -> {
                            cpu.start();
                            sut.measurementStarted();
                        }, () -> {
                            cpu.stop();
                            where.append(sut.measurementEnded());
                        })
                .withCpuSeconds(cpu.spent());
        System.out.printf(Locale.ROOT, "%nthroughput   %,.0f ops/s (%,d answered, %,d failed)%n", result.throughput(),
                result.completed(), result.failed());
        System.out.printf("latency (us) %s%n", result.percentilesUs());
        System.out.printf(Locale.ROOT, "cpu (s)      %s; %.1f us of CPU per command%n", result.cpuSeconds(),
                result.cpuUsPerCommand());
        System.out.print(where);
        String file = runFile(name, outstanding, size);
        writeRun(result, sut.settings(), file);
        System.out.println("results      " + out.resolve(file + ".json") + ", " + out.resolve(file + ".csv") + ", "
                + out.resolve(file + "-timeline.png"));
        return result.failed() == 0 ? 0 : 1;
    }

    private SweepResult sweep(String name, int bytes, BenchSystem sut, List<CommandInvoker> clients, Map<String, Long> pids)
            throws Exception {
        LoadSpec base = spec(bytes, 1);
        SweepPlan plan = sweepPlan();
        System.out.printf(Locale.ROOT, "sweep %s: %d connections, %d B commands, %d%% reads, levels %s, %d s (+%d s warm-up) each, "
                        + "after %d s unmeasured at %d in flight%n", name, connections, bytes, reads, plan.levels(),
                base.duration().toSeconds(), base.warmup().toSeconds(), prewarm,
                Math.min(Sweep.PRE_WARM_OUTSTANDING, plan.max()));
        Map<String, String> settings = sut.settings();
        List<SweepPoint> done = new ArrayList<>();
        Sweep.Probe probe = new Sweep.Probe() {
            @Override
            public void started() {
                sut.measurementStarted();
            }

            @Override
            public String ended() {
                return sut.measurementEnded();
            }

            @Override
            public Map<String, Double> bytesSent() {
                return sut.bytesSent();
            }

            @Override
            public BenchResult.Traffic traffic() {
                return new BenchResult.Traffic(sut.peerBytesSent(), sut.deliveredBytes());
            }
        };
        SweepResult result = new Sweep(clients, pids, probe, Duration.ofSeconds(prewarm)).run(name, base, plan, new Sweep.Listener() {
            @Override
            public void second(int level, BenchResult.Second s) {
                System.out.printf(Locale.ROOT, "    w=%-5d %3d s  %,10d ops/s  p99 %,8d us%n", level, s.second(),
                        s.completed(), s.p99Us());
            }

            @Override
            public void point(SweepPoint p) {
                double bestBefore = done.stream().mapToDouble(SweepPoint::throughput).max().orElse(0);
                done.add(p);
                System.out.printf(Locale.ROOT, "  %s w=%-5d %,10.0f ops/s  p50 %8.3f ms  p99 %8.3f ms  %6.1f us CPU/cmd  %s%s%n",
                        name, p.outstanding(), p.throughput(), p.p50Us() / 1e3, p.p99Us() / 1e3,
                        p.result().cpuUsPerCommand(), bestBefore == 0 ? "" : String.format(Locale.ROOT, "%+.0f %% vs best before",
                                (p.throughput() / bestBefore - 1) * 100),
                        p.result().failed() == 0 ? "" : String.format(Locale.ROOT, "  %,d FAILED", p.result().failed()));
                try {
                    writeRun(p.result(), settings, runFile(name, p.outstanding(), bytes));
                } catch (IOException e) {
                    System.err.println("cannot write the results of level " + p.outstanding() + ": " + e);
                }
            }
        });
        String file = String.format(Locale.ROOT, "%s-sweep-c%d-%dB", name, connections, bytes);
        ResultWriter.write(result, settings, out, file);
        Charts.latencyCurve(result, out.resolve(file + "-latency.png"));
        SweepPoint best = result.best();
        System.out.printf(Locale.ROOT, "  %s best %,.0f ops/s at w=%d (p50 %.3f ms, p99 %.3f ms); stopped: %s%n", name,
                best.throughput(), best.outstanding(), best.p50Us() / 1e3, best.p99Us() / 1e3, result.stopReason());
        System.out.print(best.where());
        System.out.println("  results " + out.resolve(file + ".json") + ", " + out.resolve(file + "-latency.png"));
        return result;
    }

    private int compare() throws Exception {
        List<String> names = systems != null ? systems : Systems.all().stream().map(Systems.Entry::name).toList();
        names.forEach(Systems::create); // unknown names fail here, before any system is started
        long targetUs = Math.round(p99TargetMs * 1000);
        List<ComparisonTable> tables = new ArrayList<>();
        boolean anyFailed = false;
        for (int bytes : sizes) {
            List<SystemOutcome> outcomes = new ArrayList<>();
            for (String name : names) {
                try {
                    outcomes.add(SystemOutcome.of(withSystem(name, sweepPlan().max(),
                            (sut, clients, pids) -> sweep(sut.name(), bytes, sut, clients, pids))));
                } catch (Exception e) {
                    anyFailed = true;
                    System.out.println("  " + name + " FAILED: " + e);
                    outcomes.add(SystemOutcome.failed(name, String.valueOf(e)));
                }
            }
            tables.add(ComparisonTable.of(bytes, outcomes, targetUs));
            List<SweepResult> swept = outcomes.stream().flatMap(o -> o.result().stream()).toList();
            if (!swept.isEmpty()) {
                Charts.comparison(String.format(Locale.ROOT, "latency vs throughput, %d connections, %d B commands",
                        connections, bytes), swept, out, String.format(Locale.ROOT, "compare-c%d-%dB", connections, bytes));
            }
        }
        LoadSpec base = spec(sizes.get(0), 1);
        String md = ComparisonMarkdown.document("Parallax and peers: throughput and latency", List.of(
                String.format(Locale.ROOT, "Closed loop from one load JVM, servers in separate JVMs " + where() + "; %d connections, "
                        + "%d%% reads; each system swept over outstanding per connection %s (stop: < %.0f %% gain for 2 levels, "
                        + "p99 > %.0f ms, failures), %d s measured (+%d s warm-up) per level, after the same warm-up at "
                        + Math.min(Sweep.PRE_WARM_OUTSTANDING, sweepPlan().max()) + " in flight.", connections, reads,
                        sweepPlan().levels(), sweepMinGain, sweepMaxP99Ms, base.duration().toSeconds(), base.warmup().toSeconds()),
                "Best = the level with the highest throughput; CPU = all processes (servers and load JVM) per command "
                        + "at that level; ratios = Parallax's throughput over the system's; per server process: CPU and "
                        + "bytes sent (replica and client ports) per command at that level, and their max/min."), tables);
        Path file = out.resolve(String.format(Locale.ROOT, "compare-c%d.md", connections));
        Files.createDirectories(out);
        Files.writeString(file, md, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(md);
        System.out.println("comparison " + file);
        return anyFailed ? 1 : 0;
    }

    /** Starts {@code name}, opens the connections, runs {@code task}, stops the system; deletes its files if all went well. */
    private <T> T withSystem(String name, int maxOutstanding, SystemTask<T> task) throws Exception {
        BenchSystem created = Systems.create(name);
        if (created instanceof ParallaxSystem parallax) {
            parallax.runtime(runtime.clusterSettings()).tls(tls).hosts(bed);
        }
        if (created instanceof ZooKeeperApiSystem zk) {
            zk.workload(zkWorkload());
        }
        Path work = Files.createTempDirectory("parallax-bench-");
        T result;
        try (BenchSystem sut = created) {
            sut.start(work, Duration.ofSeconds(60));
            List<CommandInvoker> clients = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                CommandInvoker client = sut.connect(maxOutstanding);
                clients.add(orderedReads ? client::invoke : client); // a lambda orders its queries (the default)
            }
            Map<String, Long> pids = new LinkedHashMap<>(sut.serverPids());
            pids.put(BenchResult.LOAD_PROCESS, ProcessHandle.current().pid());
            result = task.run(sut, clients, pids);
        } catch (Exception e) {
            System.err.println("server files of " + name + " kept in " + work);
            throw e;
        }
        if (keep) {
            System.out.println("server files (logs) kept in " + work);
        } else {
            deleteTree(work);
        }
        return result;
    }

    /** Where the servers ran, and the caps, for the comparison's header. */
    private String where() {
        if (bed == null) {
            return "on 127.0.0.1";
        }
        StringBuilder w = new StringBuilder("one per host of " + bed);
        for (int h = 0; h < bed.hosts(); h++) {
            Integer rate = capHost != null && capHost.containsKey(h) ? capHost.get(h) : cap;
            if (rate != null) {
                w.append(h == 0 ? ", egress capped: " : ", ").append("host ").append(h).append(' ').append(rate).append(" Mbit/s");
            }
        }
        return w.append(" (bytes per command: what each host's link carried)").toString();
    }

    /** The workload of the ZooKeeper-API systems: {@code --zk-global} percent global commands. */
    ZkWorkload zkWorkload() {
        return ZkWorkload.globalPercent(zkGlobal);
    }

    private void writeRun(BenchResult r, Map<String, String> settings, String file) throws IOException {
        ResultWriter.write(r, settings, out, file);
        Charts.timeline(r, out.resolve(file + "-timeline.png"));
    }

    private String runFile(String name, int level, int bytes) {
        return String.format(Locale.ROOT, "%s-c%d-w%d-%dB", name, connections, level, bytes);
    }

    /** The load at {@code bytes} and {@code level}; seconds default to 20 (+15) for a run and 5 (+2) per sweep level. */
    private LoadSpec spec(int bytes, int level) {
        boolean levels = sweep || compare;
        int s = seconds != null ? seconds : levels ? 5 : 20;
        int w = warmup != null ? warmup : levels ? 2 : 15;
        return new LoadSpec(connections, level, bytes, reads, keys, Duration.ofSeconds(w), Duration.ofSeconds(s));
    }

    private SweepPlan sweepPlan() {
        return new SweepPlan(1, sweepFactor, sweepMax, sweepMinGain / 100, 2, Math.round(sweepMaxP99Ms * 1000));
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
