package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The CLI's side of the admin routes ({@link AdminRoutes}): one HTTP request to a replica's
 * metrics endpoint, signed with {@link AdminAuth} when the cluster has a secret and the request
 * mutates. Thread-safe; every call blocks until the answer or its time-out.
 */
final class AdminClient {
    /** A replica's answer: HTTP status and body (one line, or the status lines). */
    record Reply(int status, String body) {
        boolean ok() {
            return status == 200;
        }
    }

    private final ClusterMembers endpoints;
    private final AdminAuth auth;
    private final LongSupplier clockMillis;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param endpoints   each replica's metrics endpoint
     * @param auth        signs mutating requests; null if the cluster has no secret
     * @param clockMillis the request times it signs
     * @param timeout     how long one request may take (a membership change waits for its decision)
     */
    AdminClient(ClusterMembers endpoints, AdminAuth auth, LongSupplier clockMillis, Duration timeout) {
        this.endpoints = endpoints;
        this.auth = auth;
        this.clockMillis = clockMillis;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    }

    /** The metrics endpoint of replica {@code id}. */
    Member endpoint(int id) {
        return endpoints.member(id);
    }

    /**
     * {@code GET path} at replica {@code id}.
     *
     * @throws IOException if it cannot be reached or does not answer in time
     */
    Reply get(int id, String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(id, path)).GET(), id);
    }

    /**
     * {@code POST path} with {@code body} at replica {@code id}, signed if there is a secret.
     *
     * @throws IOException if it cannot be reached or does not answer in time
     */
    Reply post(int id, String path, String body) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(id, path))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (auth != null) {
            long now = clockMillis.getAsLong();
            b.header(AdminAuth.TIME_HEADER, Long.toString(now))
                    .header(AdminAuth.SIGNATURE_HEADER, auth.sign("POST", path, body, now));
        }
        return send(b, id);
    }

    private URI uri(int id, String path) {
        Member m = endpoint(id);
        String host = m.host().contains(":") ? "[" + m.host() + "]" : m.host();
        return URI.create("http://" + host + ":" + m.port() + path);
    }

    private Reply send(HttpRequest.Builder b, int id) throws IOException {
        try {
            HttpResponse<String> r = http.send(b.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(r.statusCode(), r.body().strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (IOException e) {
            throw new IOException("replica " + id + " unreachable at " + endpoint(id).host() + ":" + endpoint(id).port()
                    + " (" + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")", e);
        }
    }
}
