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
 * HTTP server (one thread; with the admin routes, {@link AdminRoutes}, a pool of
 * {@value #ADMIN_THREADS}, since a membership request blocks its thread until decided).
 * Thread-safe; {@link #close} stops it.
 */
final class MetricsEndpoint implements AutoCloseable {
    /** HTTP threads when the admin routes are served. */
    static final int ADMIN_THREADS = 3;
    private final HttpServer server;
    private final java.util.concurrent.ExecutorService threads;

    MetricsEndpoint(PrometheusMeterRegistry registry, String host, int port) throws IOException {
        this(registry, host, port, null);
    }

    /**
     * With {@code faults} set, also serves the fault commands (used by {@code parallax chaos} to
     * partition replica processes; off unless {@code --fault-control} is given):
     * {@code /faults/block?peers=1,2} cuts the links to those peers both ways,
     * {@code /faults/block-in?peers=..} only what this replica hears from them,
     * {@code /faults/block-out?peers=..} only what it sends them (one-way cuts, for partial
     * partitions), and {@code /faults/heal} restores every link. An unknown command answers 404; a
     * peer list that is not comma-separated numbers answers 400 and changes nothing.
     */
    MetricsEndpoint(PrometheusMeterRegistry registry, String host, int port, dev.parallax.core.net.LinkFaults faults)
            throws IOException {
        this(registry, host, port, faults, null);
    }

    /** With {@code admin} set, also serves the admin routes under {@code /admin/} (see {@link AdminRoutes}). */
    MetricsEndpoint(PrometheusMeterRegistry registry, String host, int port, dev.parallax.core.net.LinkFaults faults,
                    AdminRoutes admin) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
        if (admin != null) {
            admin.register(server);
            threads = java.util.concurrent.Executors.newFixedThreadPool(ADMIN_THREADS, r -> {
                Thread t = new Thread(r, "metrics-endpoint-" + port);
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(threads);
        } else {
            threads = null;
        }
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
                java.util.function.IntConsumer block = switch (path) {
                    case "/faults/block" -> faults::block;
                    case "/faults/block-in" -> faults::blockInbound;
                    case "/faults/block-out" -> faults::blockOutbound;
                    default -> null;
                };
                if (path.equals("/faults/heal")) {
                    faults.heal();
                } else if (block != null && query != null && query.startsWith("peers=")) {
                    int[] peers = peers(query.substring(6));
                    if (peers == null) {
                        status = 400;
                    } else {
                        for (int p : peers) {
                            block.accept(p);
                        }
                    }
                } else {
                    status = 404;
                }
                byte[] body = (status == 200 ? "ok\n" : status == 400 ? "peers must be comma-separated member ids\n"
                        : "unknown fault command\n").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
        }
        server.start();
    }

    /** The ids in {@code list} ("1,2"; blanks ignored), or null if one is not a non-negative number. */
    static int[] peers(String list) {
        String[] parts = list.split(",");
        int[] ids = new int[parts.length];
        int n = 0;
        for (String p : parts) {
            if (p.isBlank()) {
                continue;
            }
            try {
                ids[n] = Integer.parseInt(p.trim());
            } catch (NumberFormatException e) {
                return null;
            }
            if (ids[n++] < 0) {
                return null;
            }
        }
        return java.util.Arrays.copyOf(ids, n);
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
        if (threads != null) {
            threads.shutdownNow();
        }
    }
}
