package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterSecret;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin routes' authentication under a cluster secret ({@link AdminAuth}): a signed, fresh
 * request acts; an unsigned one, one signed under another secret, one whose body was changed, one
 * older than 60 s by the replica's clock and a replay are refused with 401, counted by reason in
 * {@code parallax.admin.refused}, and change nothing; the read-only routes stay open.
 */
class AdminRoutesAuthTest {
    private static final long NOW = 1_800_000_000_000L;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ClusterSecret secret = ClusterSecret.random();
    private final AtomicLong clock = new AtomicLong(NOW);
    private final AdminCommandTest.FakeMembership membership = new AdminCommandTest.FakeMembership();
    private final AdminCommandTest.FakeReplica replica = new AdminCommandTest.FakeReplica(0, membership);
    private PrometheusMeterRegistry registry;
    private MetricsEndpoint endpoint;

    @BeforeEach
    void start() throws Exception {
        registry = MetricsEndpoint.registry();
        endpoint = new MetricsEndpoint(registry, "127.0.0.1", 0, null, new AdminRoutes(replica,
                new AdminAuth(secret), registry, clock::get, Duration.ofSeconds(10)));
    }

    @AfterEach
    void stop() {
        endpoint.close();
    }

    private HttpResponse<String> post(String path, String body, String time, String signature) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + path))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (time != null) {
            b.header(AdminAuth.TIME_HEADER, time).header(AdminAuth.SIGNATURE_HEADER, signature);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> signed(AdminAuth auth, String path, String body, long at) throws Exception {
        return post(path, body, Long.toString(at), auth.sign("POST", path, body, at));
    }

    private double refused(String reason) {
        var c = registry.find("parallax.admin.refused").tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    @DisplayName("a signed, fresh request acts: 200 and the SPI is called")
    void aSignedRequestActs() throws Exception {
        HttpResponse<String> r = signed(new AdminAuth(secret), "/admin/remove", "id=2", NOW - 59_000);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(membership.calls).containsExactly("remove 2");
    }

    @Test
    @DisplayName("unsigned, signed under another secret, body changed after signing: 401, counted, nothing done")
    void unsignedAndForgedRequestsAreRefused() throws Exception {
        HttpResponse<String> unsigned = post("/admin/remove", "id=2", null, null);
        assertThat(unsigned.statusCode()).isEqualTo(401);
        assertThat(unsigned.body()).contains("admin request refused (unsigned)");
        assertThat(refused("unsigned")).isEqualTo(1.0);

        HttpResponse<String> other = signed(new AdminAuth(ClusterSecret.random()), "/admin/remove", "id=2", NOW);
        assertThat(other.statusCode()).isEqualTo(401);
        assertThat(other.body()).contains("bad-signature");

        String tag = new AdminAuth(secret).sign("POST", "/admin/remove", "id=2", NOW);
        HttpResponse<String> changed = post("/admin/remove", "id=1", Long.toString(NOW), tag);
        assertThat(changed.statusCode()).isEqualTo(401);
        HttpResponse<String> otherRoute = post("/admin/add", "id=2", Long.toString(NOW), tag);
        assertThat(otherRoute.statusCode()).as("the path is signed too").isEqualTo(401);
        assertThat(refused("bad-signature")).isEqualTo(3.0);
        HttpResponse<String> snapshot = post("/admin/snapshot", "", null, null);
        assertThat(snapshot.statusCode()).as("the snapshot route is mutating too").isEqualTo(401);
        assertThat(membership.calls).isEmpty();
        assertThat(replica.snapshots).isEmpty();
    }

    @Test
    @DisplayName("a request older (or newer) than 60 s by the replica's clock, and a replay: 401, counted")
    void staleAndReplayedRequestsAreRefused() throws Exception {
        AdminAuth auth = new AdminAuth(secret);
        HttpResponse<String> stale = signed(auth, "/admin/promote", "id=1", NOW - 61_000);
        assertThat(stale.statusCode()).isEqualTo(401);
        assertThat(stale.body()).contains("(stale)", "more than 60 s");
        assertThat(signed(auth, "/admin/promote", "id=1", NOW + 61_000).statusCode()).isEqualTo(401);
        assertThat(refused("stale")).isEqualTo(2.0);

        String tag = auth.sign("POST", "/admin/promote", "id=1", NOW);
        assertThat(post("/admin/promote", "id=1", Long.toString(NOW), tag).statusCode()).isEqualTo(200);
        clock.addAndGet(30_000);
        HttpResponse<String> replay = post("/admin/promote", "id=1", Long.toString(NOW), tag);
        assertThat(replay.statusCode()).isEqualTo(401);
        assertThat(replay.body()).contains("(replayed)");
        assertThat(refused("replayed")).isEqualTo(1.0);
        assertThat(membership.calls).containsExactly("promote 1");
        assertThat(registry.scrape()).contains("parallax_admin_refused_total{reason=\"stale\"} 2.0");
    }

    @Test
    @DisplayName("read-only routes need no signature; wrong methods and unknown routes are answered 405 and 404")
    void readOnlyRoutesStayOpen() throws Exception {
        HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port()
                + "/admin/status")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("id=0\n", "stream.fake.role=leader\n");
        HttpResponse<String> members = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port()
                + "/admin/members")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(members.body()).isEqualTo("voters=[0,1,2] learners=[5]\n");
        assertThat(post("/admin/status", "", null, null).statusCode()).isEqualTo(405);
        assertThat(post("/admin/reboot", "", null, null).statusCode()).isEqualTo(404);
        AdminAuth auth = new AdminAuth(secret);
        HttpResponse<String> bad = signed(auth, "/admin/replace", "old=1\nid=4\naddress=nowhere", NOW);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("malformed address");
        assertThat(refused("unsigned")).isZero();
    }
}
