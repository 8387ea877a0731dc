package dev.parallax.examples.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The admin routes ({@link AdminRoutes}) of a {@link ProcessCluster}'s replicas by id, joined ones
 * included (whose metrics endpoints the cluster file does not list, so {@code parallax admin}'s
 * {@link AdminClient} cannot name them): membership requests signed under the cluster secret
 * ({@link AdminAuth}) and the membership each replica reports. Thread-safe; every call blocks for
 * one HTTP request.
 */
final class MembershipRequests {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** A change waits up to the replica's own time-out for its decision ({@link ReplicaCommand#CHANGE_TIMEOUT_SECONDS}). */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(ReplicaCommand.CHANGE_TIMEOUT_SECONDS + 5);
    private static final Pattern VOTERS = Pattern.compile("voters=\\[([^\\]]*)\\]");
    private static final Pattern LEARNERS = Pattern.compile("learners=\\[([^\\]]*)\\]");

    /** A replica's membership line, parsed. */
    record Members(Set<Integer> voters, Set<Integer> learners) {
    }

    private final ProcessCluster cluster;
    private final AdminAuth auth;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

    MembershipRequests(ProcessCluster cluster) {
        this.cluster = cluster;
        this.auth = cluster.clusterFile().replica(0).clusterSecret().map(AdminAuth::new).orElse(null);
    }

    /**
     * {@code POST path} with {@code body} at replica {@code id}; an unreachable replica or a lost
     * answer is a reply with status 0 and the error.
     */
    AdminClient.Reply post(int id, String path, String body) {
        if (cluster.metricsPort(id) <= 0) {
            return new AdminClient.Reply(0, "replica " + id + " has no metrics endpoint");
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(id, path)).timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (auth != null) {
            long now = System.currentTimeMillis();
            b.header(AdminAuth.TIME_HEADER, Long.toString(now)).header(AdminAuth.SIGNATURE_HEADER, auth.sign("POST", path, body, now));
        }
        return send(b);
    }

    /** The membership replica {@code id} reports, or null if it does not answer with one. */
    Members members(int id) {
        String line = membersLine(id);
        return line == null ? null : parse(line);
    }

    /** The membership of part {@code part} replica {@code id} reports, or null if it does not answer with one. */
    Members members(int id, String part) {
        String line = membersLine(id);
        if (line == null) {
            return null;
        }
        int at = line.indexOf(part + ": ");
        return at < 0 ? null : parse(line.substring(at + part.length() + 2));
    }

    /** The membership line replica {@code id} reports ({@code /admin/members}), or null if it does not answer. */
    String membersLine(int id) {
        if (cluster.metricsPort(id) <= 0) {
            return null;
        }
        AdminClient.Reply r = send(HttpRequest.newBuilder(uri(id, "/admin/members")).timeout(CONNECT_TIMEOUT).GET());
        return r.ok() ? r.body() : null;
    }

    /**
     * The parts of the membership replica {@code id} reports ({@code membership.parts}: Multi-Ring's
     * rings, each changing its members on its own), empty for a membership of one order or no answer.
     */
    List<String> parts(int id) {
        String parts = status(id).get(ReplicaAdminTarget.MEMBERSHIP_PARTS);
        return parts == null || parts.isBlank() ? List.of() : List.of(parts.split(","));
    }

    /**
     * The last executed position replica {@code id} reports in its admin status (an instance of the
     * one Paxos stream of Multi-Paxos and S-Paxos), or -1 if it does not answer.
     */
    long executed(int id) {
        return AdminStatusReport.number(status(id), "executed");
    }

    /** The highest {@code stream.<name>.decided} replica {@code id} reports, or -1 if none. */
    long streamDecided(int id) {
        long decided = -1;
        for (java.util.Map.Entry<String, String> e : status(id).entrySet()) {
            if (e.getKey().startsWith("stream.") && e.getKey().endsWith(".decided")) {
                decided = Math.max(decided, AdminStatusReport.number(java.util.Map.of(e.getKey(), e.getValue()), e.getKey()));
            }
        }
        return decided;
    }

    /** Replica {@code id}'s admin status lines; empty if it does not answer. */
    java.util.Map<String, String> status(int id) {
        if (cluster.metricsPort(id) <= 0) {
            return java.util.Map.of();
        }
        AdminClient.Reply r = send(HttpRequest.newBuilder(uri(id, "/admin/status")).timeout(CONNECT_TIMEOUT).GET());
        return r.ok() ? AdminStatusReport.parse(r.body()) : java.util.Map.of();
    }

    /** {@code voters=[0,1,3] learners=[4] ...} as sets; null if it names no voters. */
    static Members parse(String line) {
        Matcher v = VOTERS.matcher(line);
        Matcher l = LEARNERS.matcher(line);
        if (!v.find()) {
            return null;
        }
        return new Members(ids(v.group(1)), l.find() ? ids(l.group(1)) : Set.of());
    }

    private static Set<Integer> ids(String list) {
        Set<Integer> ids = new TreeSet<>();
        for (String part : list.split(",")) {
            if (!part.isBlank()) {
                ids.add(Integer.parseInt(part.strip()));
            }
        }
        return ids;
    }

    private URI uri(int id, String path) {
        return cluster.metricsUri(id, path);
    }

    private AdminClient.Reply send(HttpRequest.Builder b) {
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new AdminClient.Reply(r.statusCode(), r.body().strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new AdminClient.Reply(0, "interrupted");
        } catch (IOException | IllegalArgumentException e) {
            return new AdminClient.Reply(0, String.valueOf(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
    }
}
