package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvStateMachine;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics a running replica exports, scraped as Prometheus does: three key-value replicas in
 * this JVM with durable logs and TLS, one of them with the JVM meters and its metrics endpoint as
 * {@code parallax replica} runs them, under a few commands. Every metric family has a HELP text of
 * its own; the latency timers, the has-leader gauge and the JVM meters are there with values; and
 * every series the Grafana dashboard and the Prometheus alert rules of
 * {@code src/main/observability} use is in the scrape. The rules file is checked for its structure
 * (promtool is not at hand).
 */
class ObservabilityScrapeTest {
    static final Path DASHBOARD = Path.of("src/main/observability/grafana-dashboard.json");
    static final Path ALERTS = Path.of("src/main/observability/prometheus-alerts.yml");
    /** The series Prometheus adds itself, not a replica. */
    private static final Set<String> PROMETHEUS_SERIES = Set.of("up");
    private static final Pattern SERIES = Pattern.compile("\\b((?:parallax|jvm|process|system)_[a-z0-9_]+|up)\\b");
    private static final Pattern DURATION = Pattern.compile("[0-9]+(ms|s|m|h|d)");

    @Test
    void loadedReplicasExportDescribedMetersAndEverySeriesTheDashboardAndAlertsUse(@TempDir Path dir) throws Exception {
        ClusterCertificates certs = ClusterCertificates.generate(dir.resolve("tls"), 3);
        Properties paxos = settings("multi-paxos", dir.resolve("paxos"));
        paxos.putAll(ClusterFile.tlsSettings(certs, true));
        List<String> scrapes = new ArrayList<>(load(paxos, true));
        scrapes.addAll(load(settings("u-ring", dir.resolve("ring")), false));
        List<String> bad = new ArrayList<>();
        Set<String> series = new TreeSet<>();
        for (String text : scrapes) {
            bad.addAll(helpProblems(text));
            series.addAll(seriesNames(text));
        }
        assertThat(bad).as("metric families without a HELP text of their own").isEmpty();
        Map<String, Set<String>> missing = new TreeMap<>();
        for (Map.Entry<String, List<String>> e : queries().entrySet()) {
            for (String name : referenced(e.getValue())) {
                if (!series.contains(name) && !PROMETHEUS_SERIES.contains(name)) {
                    missing.computeIfAbsent(name, k -> new TreeSet<>()).add(e.getKey());
                }
            }
        }
        assertThat(missing).as("series the dashboard or the alerts use and no replica exports").isEmpty();
    }

    @Test
    void everyOrderingTimesCommitsAndKnowsItsLeader(@TempDir Path dir) throws Exception {
        for (String ordering : new String[] {"s-paxos", "m-ring", "multi-ring", "multicast"}) {
            load(settings(ordering, dir.resolve(ordering)), false);
        }
    }

    /** Cluster-file settings of three replicas in this JVM ordering with {@code ordering}, logs under {@code data}. */
    private static Properties settings(String ordering, Path data) {
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(3));
        p.setProperty("clients", LocalPorts.endpoints(3));
        p.setProperty("client.io.threads", "1");
        p.setProperty("ordering", ordering);
        p.setProperty("paxos.heartbeat.ms", "30");
        p.setProperty("paxos.suspect.ms", "300");
        InProcessClusterFiles.putTestRingTimeouts(p);
        p.setProperty("mring.auth", "none"); // no cluster secret in this test
        p.setProperty("data.dir", data.toString());
        return p;
    }

    /**
     * Runs the cluster {@code p} describes (TLS on the client port if {@code tls}) under 20
     * commands and a query, the first replica with the JVM meters and a metrics endpoint; checks that every
     * replica knows the leader and executed them, that command, commit and fsync latencies were
     * recorded; returns each replica's scrape (the first over HTTP).
     */
    private static List<String> load(Properties p, boolean tls) throws Exception {
        ClusterFile file = ClusterFile.of(p);
        String ordering = p.getProperty("ordering");
        List<Replica> replicas = new ArrayList<>();
        List<PrometheusMeterRegistry> registries = new ArrayList<>();
        try (ProcessMeters jvm = ProcessMeters.bind(registry(registries))) {
            for (int i = 0; i < 3; i++) {
                PrometheusMeterRegistry r = i == 0 ? registries.get(0) : registry(registries);
                replicas.add(ReplicaCommand.kvReplica(file, i, new KvStateMachine()).meterRegistry(r).bootstrap(true).build());
            }
            replicas.forEach(Replica::start);
            ClientConfig.Builder config = ClientConfig.builder(file.replica(0).clientMembers()).invokeTimeout(Duration.ofSeconds(60));
            if (tls) {
                config.tlsTrust(file.clientTrust().orElseThrow());
            }
            try (MetricsEndpoint endpoint = new MetricsEndpoint(registries.get(0), "127.0.0.1", 0);
                 SmrClient client = SmrClient.connect(config.build())) {
                for (int i = 0; i < 20; i++) {
                    client.invoke(KvCommand.of(KvOp.INCR, ("k" + i % 5).getBytes(StandardCharsets.UTF_8)).encode())
                            .get(60, TimeUnit.SECONDS);
                }
                client.query(KvCommand.of(KvOp.GET, "k0".getBytes(StandardCharsets.UTF_8)).encode()).get(60, TimeUnit.SECONDS);
                Await.until(Duration.ofSeconds(60), () -> registries.stream().allMatch(r ->
                                value(r, "parallax.replica.has.leader") == 1 && value(r, "parallax.replica.executed") >= 0),
                        () -> ordering + ": every replica to know the leader and to have executed commands");
                assertThat(registries.stream().mapToLong(r -> r.get("parallax.client.command.latency").tag("kind", "command").timer().count()).sum())
                        .as(ordering + ": command latency sampled (one in 8 by sequence) at the replica that answered").isPositive();
                assertThat(registries.stream().mapToLong(r -> r.get("parallax.client.command.latency").tag("kind", "query")
                        .timer().count()).sum()).as(ordering + ": the query timed").isEqualTo(1);
                assertThat(registries.stream().mapToLong(r -> count(r, "parallax.replica.commit.latency")).sum())
                        .as(ordering + ": commit latency sampled where batches were proposed").isPositive();
                // A decision needs the durable accepts of a majority; the other replica may only learn
                // decisions and need not force anything for 20 commands.
                Await.until(Duration.ofSeconds(60), () -> registries.stream().filter(r -> count(r, "parallax.log.fsync") > 0).count() >= 2,
                        () -> ordering + ": a majority of the replicas to force their logs");
                // jvm.gc.pause exists only once the JVM reported a collection: ask for one until it has.
                Await.until(Duration.ofSeconds(60), () -> {
                    System.gc();
                    return !registries.get(0).find("jvm.gc.pause").timers().isEmpty();
                }, () -> "the JVM to report a garbage collection (jvm.gc.pause)");
                String scraped = http(endpoint.port());
                assertThat(scraped).contains("jvm_memory_used_bytes", "jvm_gc_", "process_uptime_seconds",
                        "process_files_open_files", "jvm_classes_loaded_classes", "parallax_client_command_latency_seconds_bucket");
                List<String> scrapes = new ArrayList<>(List.of(scraped));
                for (int i = 1; i < 3; i++) {
                    scrapes.add(registries.get(i).scrape());
                }
                return scrapes;
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    @Test
    void theHelpCheckCatchesAMeterWithoutADescription() {
        PrometheusMeterRegistry r = MetricsEndpoint.registry();
        io.micrometer.core.instrument.Counter.builder("parallax.test.described").description("a test counter").register(r);
        io.micrometer.core.instrument.Counter.builder("parallax.test.bare").register(r);
        io.micrometer.core.instrument.Gauge.builder("parallax.test.echo", () -> 1).description("parallax.test.echo").register(r);
        assertThat(helpProblems(r.scrape())).hasSize(2).anySatisfy(p -> assertThat(p).startsWith("parallax_test_bare"))
                .anySatisfy(p -> assertThat(p).startsWith("parallax_test_echo"));
    }

    @Test
    void theAlertRulesFileIsOneGroupOfTheExpectedRules() throws Exception {
        Object doc = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readValue(ALERTS.toFile(), Object.class);
        assertThat(doc).isInstanceOf(Map.class);
        List<?> groups = (List<?>) ((Map<?, ?>) doc).get("groups");
        assertThat(groups).hasSize(1);
        Map<?, ?> group = (Map<?, ?>) groups.get(0);
        assertThat(group.get("name")).isEqualTo("parallax");
        Set<String> alerts = new TreeSet<>();
        for (Object o : (List<?>) group.get("rules")) {
            Map<?, ?> rule = (Map<?, ?>) o;
            String name = (String) rule.get("alert");
            assertThat(new java.util.HashSet<Object>(rule.keySet())).as(name).isSubsetOf(Set.<Object>of("alert", "expr", "for", "labels", "annotations"));
            assertThat((String) rule.get("expr")).as(name).isNotBlank();
            if (rule.containsKey("for")) {
                assertThat((String) rule.get("for")).as(name).matches(DURATION);
            }
            assertThat(((Map<?, ?>) rule.get("labels")).get("severity")).as(name).isIn("warning", "critical");
            Map<?, ?> annotations = (Map<?, ?>) rule.get("annotations");
            assertThat((String) annotations.get("summary")).as(name).isNotBlank();
            assertThat((String) annotations.get("description")).as(name).isNotBlank();
            assertThat(alerts.add(name)).as("alert %s once", name).isTrue();
        }
        assertThat(alerts).containsExactlyInAnyOrder("ParallaxReplicaDown", "ParallaxNoLeader", "ParallaxReplicaLagging",
                "ParallaxFsyncSlow", "ParallaxSafetyAlarm", "ParallaxTlsRefusals");
    }

    @Test
    void theDashboardIsJsonWhosePanelsEachQuerySomething() throws Exception {
        Map<String, List<String>> queries = queries();
        assertThat(queries).containsKeys("Throughput (commands executed/s)", "Command latency p50 / p99",
                "Commit latency p50 / p99", "Log fsync p99", "Has leader", "View and leader changes", "Executed position and lag",
                "Snapshots", "Heap used", "GC pauses", "TLS refusals", "Safety alarms");
        queries.forEach((panel, exprs) -> assertThat(exprs).as(panel).isNotEmpty().allSatisfy(e -> assertThat(e).isNotBlank()));
    }

    /** The PromQL of every dashboard panel (by title) and every alert (by name). */
    @SuppressWarnings("unchecked")
    static Map<String, List<String>> queries() throws Exception {
        Map<String, List<String>> q = new TreeMap<>();
        Map<String, Object> dashboard = (Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper().readValue(DASHBOARD.toFile(), Map.class);
        for (Object o : (List<Object>) dashboard.get("panels")) {
            Map<String, Object> panel = (Map<String, Object>) o;
            if (!"row".equals(panel.get("type"))) {
                List<String> exprs = new ArrayList<>();
                for (Object t : (List<Object>) panel.get("targets")) {
                    exprs.add((String) ((Map<String, Object>) t).get("expr"));
                }
                q.put((String) panel.get("title"), exprs);
            }
        }
        Map<String, Object> rules = (Map<String, Object>) new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readValue(ALERTS.toFile(), Map.class);
        for (Object g : (List<Object>) rules.get("groups")) {
            for (Object r : (List<Object>) ((Map<String, Object>) g).get("rules")) {
                Map<String, Object> rule = (Map<String, Object>) r;
                q.put("alert " + rule.get("alert"), List.of((String) rule.get("expr")));
            }
        }
        return q;
    }

    /** The series names in PromQL expressions (label names and values excluded). */
    static Set<String> referenced(List<String> exprs) {
        Set<String> names = new TreeSet<>();
        for (String e : exprs) {
            Matcher m = SERIES.matcher(e.replaceAll("\\{[^}]*}", "{}").replaceAll("\\b(by|without|on|ignoring) \\([^)]*\\)", ""));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** The metric families of a scrape whose HELP is missing, empty or only repeats the name. */
    static List<String> helpProblems(String scrape) {
        Map<String, String> help = new TreeMap<>();
        Set<String> families = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.startsWith("# HELP ")) {
                String rest = line.substring(7);
                int space = rest.indexOf(' ');
                help.put(space < 0 ? rest : rest.substring(0, space), space < 0 ? "" : rest.substring(space + 1).strip());
            } else if (line.startsWith("# TYPE ")) {
                families.add(line.substring(7, line.indexOf(' ', 7)));
            }
        }
        List<String> bad = new ArrayList<>();
        for (String f : families) {
            String h = help.get(f);
            String dotted = f.replace('_', '.');
            if (h == null || h.isBlank() || h.equals(f) || dotted.startsWith(h.replace('_', '.')) || h.equals("-")) {
                bad.add(f + ": " + h);
            }
        }
        return bad;
    }

    /** The names of the samples of a scrape. */
    static Set<String> seriesNames(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                int end = 0;
                while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                    end++;
                }
                names.add(line.substring(0, end));
            }
        }
        return names;
    }

    private static PrometheusMeterRegistry registry(List<PrometheusMeterRegistry> registries) {
        PrometheusMeterRegistry r = MetricsEndpoint.registry();
        registries.add(r);
        return r;
    }

    private static double value(PrometheusMeterRegistry r, String gauge) {
        var g = r.find(gauge).gauge();
        return g == null ? Double.NaN : g.value();
    }

    private static long count(PrometheusMeterRegistry r, String timer) {
        return r.find(timer).timers().stream().mapToLong(io.micrometer.core.instrument.Timer::count).sum();
    }

    private static String http(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
