package dev.parallax.examples.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.spi.MembershipAdmin.MembershipChangeRefused;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The operator's routes on a replica's metrics endpoint, which {@code parallax admin} calls.
 * Read-only, open like {@code /metrics}: {@code GET /admin/status} ({@code key=value} lines:
 * {@code id}, {@code ordering}, {@code healthy}, {@code leader} (the replica it believes leads,
 * -1 if none or leaderless), {@code executed} (the last executed position, -1 before the first),
 * {@code membership} ({@link MembershipAdmin#members()}, or {@value #UNSUPPORTED}), {@code membership.parts}
 * (the names of {@link MembershipAdmin#parts()}, when the ordering has several: Multi-Ring's rings) and per ordered
 * stream {@code stream.<name>.role}, {@code .view} (view or round) and {@code .decided} (the last
 * instance decided with every one before it), see {@link ReplicaAdminTarget}) and
 * {@code GET /admin/members}. Mutating, {@code POST} with a body of {@code key=value} lines:
 * {@code /admin/snapshot}, {@code /admin/add} ({@code id}, {@code address} host:port),
 * {@code /admin/promote}, {@code /admin/remove}, {@code /admin/transfer-leader} ({@code id}) and
 * {@code /admin/replace} ({@code old}, {@code id}, {@code address}); the membership routes call the
 * ordering's {@link MembershipAdmin} (or, with {@code part=NAME}, that part of it) and wait up to the
 * change timeout for its decision.
 *
 * <p>Mutating requests are authenticated ({@link AdminAuth}) when the cluster has a secret; without
 * one they are taken from loopback addresses only. A refused request answers 401 and counts in
 * {@code parallax.admin.refused} (tag {@code reason}: {@code unsigned}, {@code bad-signature},
 * {@code stale}, {@code replayed}, {@code not-loopback}). Answers are one text line: 200 with the
 * result; 400 malformed arguments; 404 unknown route; 405 wrong method; 409 the ordering refused
 * ({@link MembershipChangeRefused}'s message) or no snapshot can be taken; 421 refused because this
 * replica is not the leader (the CLI then tries another); 501 the ordering does not support
 * membership changes; 504 no decision within the timeout; 500 another failure.
 *
 * <p>Threads: handlers run on the endpoint's HTTP threads; a membership request blocks its thread
 * until decided or timed out, so the endpoint gives them a pool of their own. Thread-safe.
 */
final class AdminRoutes {
    /** The status and members answer of an ordering without {@link MembershipAdmin}. */
    static final String UNSUPPORTED = "unsupported";

    private final AdminTarget target;
    private final AdminAuth auth;
    private final LongSupplier clockMillis;
    private final Duration changeTimeout;
    private final MeterRegistry registry;

    /**
     * @param auth          the authenticator under the cluster secret, or null if the cluster has none
     * @param clockMillis   the replica's clock (milliseconds since the epoch) to judge request times by
     * @param changeTimeout how long a membership request waits for its decision
     */
    AdminRoutes(AdminTarget target, AdminAuth auth, MeterRegistry registry, LongSupplier clockMillis, Duration changeTimeout) {
        this.target = target;
        this.auth = auth;
        this.registry = registry;
        this.clockMillis = clockMillis;
        this.changeTimeout = changeTimeout;
    }

    /** Serves the routes under {@code /admin/} on {@code server}. */
    void register(HttpServer server) {
        server.createContext("/admin/", this::handle);
    }

    /** An answer: status code and one line. */
    record Answer(int status, String text) {
    }

    private void handle(HttpExchange exchange) throws IOException {
        Answer a;
        try {
            a = answer(exchange);
        } catch (RuntimeException e) {
            a = new Answer(500, "admin request failed at replica " + target.id() + ": " + e);
        }
        byte[] body = (a.text().endsWith("\n") ? a.text() : a.text() + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(a.status(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private Answer answer(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        String body;
        try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
        }
        if (path.equals("/admin/status") || path.equals("/admin/members")) {
            if (!method.equals("GET")) {
                return new Answer(405, path + " takes GET");
            }
            return path.equals("/admin/status") ? new Answer(200, status()) : members();
        }
        if (!MUTATING.contains(path)) {
            return new Answer(404, "unknown admin route " + path);
        }
        if (!method.equals("POST")) {
            return new Answer(405, path + " takes POST");
        }
        String refused = authenticate(exchange, method, path, body);
        if (refused != null) {
            Counter.builder("parallax.admin.refused").description("mutating admin requests refused as unauthenticated")
                    .tag("reason", refused).register(registry).increment();
            return new Answer(401, "admin request refused (" + refused + "): " + switch (refused) {
                case "not-loopback" -> "without cluster.secret, mutating requests are taken from this machine only";
                case "stale" -> "its time is more than " + AdminAuth.MAX_AGE_MILLIS / 1000 + " s from the replica's clock";
                case "replayed" -> "this signed request was already taken";
                default -> "sign it with the cluster secret (parallax admin --config with cluster.secret)";
            });
        }
        if (path.equals("/admin/snapshot")) {
            return snapshot();
        }
        Function<MembershipAdmin, CompletableFuture<String>> call;
        String part;
        try {
            Map<String, String> args = parse(body);
            call = membershipCall(path, args); // arguments checked first: a 400 changes nothing
            part = args.get(PART);
        } catch (IllegalArgumentException e) {
            return new Answer(400, e.getMessage());
        }
        if (part != null) {
            MembershipAdmin admin = target.membership().orElse(null);
            if (admin != null && !admin.parts().containsKey(part)) {
                // Another partition's ring (S-SMR): a replica that runs it takes the request.
                return new Answer(421, "replica " + target.id() + " does not run " + part + " (its parts: "
                        + String.join(",", admin.parts().keySet()) + ")");
            }
        }
        return change(part == null ? call : admin -> call.apply(admin.parts().get(part)));
    }

    /**
     * The optional argument naming one part of the membership ({@link MembershipAdmin#parts()}:
     * Multi-Ring Paxos' rings) a request is for; without it the request is for the whole group. A
     * replica that does not run the part answers 421, as one that does not lead it.
     */
    static final String PART = "part";

    private static final java.util.Set<String> MUTATING = java.util.Set.of("/admin/snapshot", "/admin/add", "/admin/promote",
            "/admin/remove", "/admin/transfer-leader", "/admin/replace");

    /** The {@link MembershipAdmin} call of a membership route, its arguments checked. */
    private static Function<MembershipAdmin, CompletableFuture<String>> membershipCall(String path, Map<String, String> args) {
        return switch (path) {
            case "/admin/add" -> {
                int id = id(args, "id");
                String address = address(args);
                yield m -> m.addLearner(id, address);
            }
            case "/admin/promote" -> {
                int id = id(args, "id");
                yield m -> m.promote(id);
            }
            case "/admin/remove" -> {
                int id = id(args, "id");
                yield m -> m.remove(id);
            }
            case "/admin/transfer-leader" -> {
                int id = id(args, "id");
                yield m -> m.transferLeadership(id);
            }
            case "/admin/replace" -> {
                int old = id(args, "old");
                int id = id(args, "id");
                String address = address(args);
                yield m -> m.replace(old, id, address);
            }
            default -> throw new IllegalArgumentException("unknown admin route " + path);
        };
    }

    /** Null if the request may act; else the refusal reason. */
    private String authenticate(HttpExchange exchange, String method, String path, String body) {
        if (auth == null) {
            return exchange.getRemoteAddress().getAddress().isLoopbackAddress() ? null : "not-loopback";
        }
        return auth.verify(method, path, body, exchange.getRequestHeaders().getFirst(AdminAuth.TIME_HEADER),
                exchange.getRequestHeaders().getFirst(AdminAuth.SIGNATURE_HEADER), clockMillis.getAsLong());
    }

    private String status() {
        StringBuilder b = new StringBuilder();
        target.status().forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }

    private Answer members() {
        return target.membership().map(m -> new Answer(200, m.members()))
                .orElseGet(() -> new Answer(501, "membership changes not supported by ordering " + target.ordering()));
    }

    /** The message of an ordering without {@link MembershipAdmin}. */
    static String unsupported(String ordering) {
        return "ordering " + ordering + " does not support membership changes";
    }

    private Answer snapshot() {
        try {
            target.requestSnapshot();
            return new Answer(200, "replica " + target.id() + ": snapshot requested; it is taken after the next command "
                    + "it executes (parallax_snapshots_taken_total counts it)");
        } catch (IllegalStateException e) {
            return new Answer(409, e.getMessage());
        }
    }

    private Answer change(Function<MembershipAdmin, CompletableFuture<String>> request) {
        MembershipAdmin admin = target.membership().orElse(null);
        if (admin == null) {
            return new Answer(501, unsupported(target.ordering()));
        }
        try {
            CompletableFuture<String> result;
            try {
                result = request.apply(admin);
            } catch (IllegalArgumentException e) {
                return new Answer(400, e.getMessage());
            }
            return new Answer(200, result.get(changeTimeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException | MembershipChangeRefused e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            if (cause instanceof MembershipChangeRefused refused) {
                String why = String.valueOf(refused.getMessage());
                boolean notLeader = refused instanceof MembershipAdmin.NotTheLeader
                        || why.toLowerCase(Locale.ROOT).contains("not the leader");
                return new Answer(notLeader ? 421 : 409, why);
            }
            return new Answer(500, "membership change failed at replica " + target.id() + ": " + cause);
        } catch (TimeoutException e) {
            return new Answer(504, "not decided within " + changeTimeout.toSeconds() + " s at replica " + target.id()
                    + " (it may still take effect: check parallax admin members)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(500, "interrupted while waiting for the membership change");
        }
    }

    /** The {@code key=value} lines of a request body. */
    static Map<String, String> parse(String body) {
        Map<String, String> args = new LinkedHashMap<>();
        for (String line : body.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("malformed argument line '" + line.strip() + "': expected key=value");
            }
            args.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
        return args;
    }

    private static int id(Map<String, String> args, String key) {
        String v = args.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing argument " + key + " (a replica id)");
        }
        try {
            int id = Integer.parseInt(v);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(key + " must be a replica id (a number >= 0), got '" + v + "'");
    }

    private static String address(Map<String, String> args) {
        String v = args.get("address");
        if (v == null) {
            throw new IllegalArgumentException("missing argument address (host:port)");
        }
        return AdminArguments.hostPort(v);
    }
}
