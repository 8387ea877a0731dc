package dev.parallax.bench.profile;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a replica's stage meters from its Prometheus endpoint: busy time per stage
 * ({@code parallax_stage_busy_time_seconds_total}) and input queue depth per stage and queue
 * ({@code parallax_stage_queue_depth}). Busy ratios come from two scrapes (busy seconds over wall
 * seconds between them); queue depths from the scrapes in between (mean and max). Used by one
 * thread; each scrape blocks for one HTTP request.
 */
public final class StageSampler {
    private static final Pattern BUSY = Pattern.compile("(?m)^parallax_stage_busy_time_seconds_total\\{([^}]*)\\}\\s+(\\S+)");
    private static final Pattern DEPTH = Pattern.compile("(?m)^parallax_stage_queue_depth\\{([^}]*)\\}\\s+(\\S+)");
    private static final Pattern STAGE = Pattern.compile("stage=\"([^\"]*)\"");
    private static final Pattern QUEUE = Pattern.compile("queue=\"([^\"]*)\"");

    /** One stage over the sampled interval. */
    public record StageLoad(String stage, double busyRatio, Map<String, double[]> queueDepthMeanMax) {
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI uri;
    private Map<String, Double> firstBusy;
    private long firstNanos;
    private Map<String, Double> lastBusy;
    private long lastNanos;
    private final Map<String, List<Double>> depths = new LinkedHashMap<>();

    /** Samples {@code http://127.0.0.1:<port>/metrics}. */
    public StageSampler(int metricsPort) {
        this("127.0.0.1", metricsPort);
    }

    /** Samples {@code http://<host>:<port>/metrics} (a test-bed host's address). */
    public StageSampler(String host, int metricsPort) {
        this.uri = URI.create("http://" + host + ":" + metricsPort + "/metrics");
    }

    /**
     * Takes one sample: the first one starts the interval, every later one extends it.
     *
     * @throws IOException if the endpoint cannot be read
     */
    public void sample() throws IOException, InterruptedException {
        String text = scrape(uri);
        long now = System.nanoTime();
        Map<String, Double> busy = new LinkedHashMap<>();
        Matcher m = BUSY.matcher(text);
        while (m.find()) {
            busy.put(label(STAGE, m.group(1)), Double.parseDouble(m.group(2)));
        }
        if (firstBusy == null) {
            firstBusy = busy;
            firstNanos = now;
        } else {
            Matcher d = DEPTH.matcher(text);
            while (d.find()) {
                depths.computeIfAbsent(label(STAGE, d.group(1)) + "#" + label(QUEUE, d.group(1)), k -> new ArrayList<>())
                        .add(Double.parseDouble(d.group(2)));
            }
        }
        lastBusy = busy;
        lastNanos = now;
    }

    private static String label(Pattern p, String labels) {
        Matcher m = p.matcher(labels);
        return m.find() ? m.group(1) : "?";
    }

    /** Busy ratio and queue depths per stage between the first and last sample. */
    public List<StageLoad> loads() {
        List<StageLoad> out = new ArrayList<>();
        if (firstBusy == null || lastNanos == firstNanos) {
            return out;
        }
        double wall = (lastNanos - firstNanos) / 1e9;
        lastBusy.forEach((stage, busy) -> {
            Map<String, double[]> queues = new LinkedHashMap<>();
            depths.forEach((key, values) -> {
                if (key.startsWith(stage + "#")) {
                    double mean = values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
                    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
                    queues.put(key.substring(stage.length() + 1), new double[] {mean, max});
                }
            });
            out.add(new StageLoad(stage, (busy - firstBusy.getOrDefault(stage, 0.0)) / wall, queues));
        });
        return out;
    }

    /**
     * The current value of each of {@code meters} (Prometheus names, summed over their label sets)
     * on the replica serving metrics at {@code metricsPort}; a meter not exported reads 0.
     *
     * @throws IOException if the endpoint cannot be read
     */
    public static Map<String, Double> totals(int metricsPort, List<String> meters) throws IOException, InterruptedException {
        return totals("127.0.0.1", metricsPort, meters);
    }

    /** As {@link #totals(int, List)}, on {@code host} (a test-bed host's address). */
    public static Map<String, Double> totals(String host, int metricsPort, List<String> meters)
            throws IOException, InterruptedException {
        String text = scrape(URI.create("http://" + host + ":" + metricsPort + "/metrics"));
        Map<String, Double> out = new LinkedHashMap<>();
        for (String meter : meters) {
            Matcher m = Pattern.compile("(?m)^" + Pattern.quote(meter) + "(?:\\{[^}]*\\})?\\s+(\\S+)").matcher(text);
            double sum = 0;
            while (m.find()) {
                sum += Double.parseDouble(m.group(1));
            }
            out.put(meter, sum);
        }
        return out;
    }

    private static String scrape(URI uri) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
