package dev.parallax.examples.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Serves a Prometheus scrape endpoint ({@code GET /metrics}) for a registry, on the JDK's built-in
 * HTTP server (one thread). Thread-safe; {@link #close} stops it.
 */
final class MetricsEndpoint implements AutoCloseable {
    private final HttpServer server;

    MetricsEndpoint(PrometheusMeterRegistry registry, String host, int port) throws IOException {
        this(registry, host, port, null);
    }

    /**
     * With {@code faults} set, also serves {@code /faults/block?peers=1,2} and {@code /faults/heal}
     * (used by {@code parallax chaos} to partition replica processes; off unless
     * {@code --fault-control} is given).
     */
    MetricsEndpoint(PrometheusMeterRegistry registry, String host, int port, dev.parallax.core.net.LinkFaults faults)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        if (faults != null) {
            server.createContext("/faults/", exchange -> {
                String path = exchange.getRequestURI().getPath();
                String query = exchange.getRequestURI().getQuery();
                int status = 200;
                if (path.equals("/faults/heal")) {
                    faults.heal();
                } else if (path.equals("/faults/block") && query != null && query.startsWith("peers=")) {
                    for (String p : query.substring(6).split(",")) {
                        if (!p.isBlank()) {
                            faults.block(Integer.parseInt(p.trim()));
                        }
                    }
                } else {
                    status = 404;
                }
                byte[] body = (status == 200 ? "ok\n" : "unknown fault command\n").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
        }
        server.start();
    }

    static PrometheusMeterRegistry registry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
