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
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
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
