package dev.parallax.examples.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads one value from a replica's Prometheus endpoint (for the demo's progress reports). */
final class ReplicaMetrics {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ReplicaMetrics() {
    }

    /** The first sample of {@code metric} at {@code 127.0.0.1:port/metrics}, or -1 if unreachable or absent. */
    static long gauge(int port, String metric) {
        return gauge(port, metric, "");
    }

    /**
     * The first sample of {@code metric} whose labels contain {@code label} (e.g.
     * {@code protocol="ring-1"}), or -1 if unreachable or absent.
     */
    static long gauge(int port, String metric, String label) {
        return gauge("127.0.0.1", port, metric, label);
    }

    /** As {@link #gauge(int, String, String)}, at {@code host:port/metrics} (a test-bed host's address). */
    static long gauge(String host, int port, String metric, String label) {
        if (port <= 0) {
            return -1;
        }
        try {
            String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
            for (String line : body.split("\n")) {
                if ((line.startsWith(metric + "{") || line.startsWith(metric + " ")) && line.contains(label)) {
                    return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }
}
