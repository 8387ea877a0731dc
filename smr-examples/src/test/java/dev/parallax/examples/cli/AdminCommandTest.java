package dev.parallax.examples.cli;

import dev.parallax.examples.process.ClusterSecretFile;
import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.spi.MembershipAdmin.MembershipChangeRefused;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code parallax admin} against the admin routes of three metrics endpoints in this JVM, each
 * over a fake replica ({@link AdminTarget}) with a fake {@link MembershipAdmin}: success, a change
 * the ordering refuses, an ordering without membership changes, unreachable replicas and a replica
 * that is not the leader (the CLI moves on), and bad arguments; every request signed with the
 * cluster secret of the file. The refusal of unsigned, forged, stale and replayed requests is
 * {@link AdminRoutesAuthTest}'s.
 */
class AdminCommandTest {
    /** A fake replica: fixed status, an optional membership, snapshots on request or refused. */
    static final class FakeReplica implements AdminTarget {
        final int id;
        final FakeMembership membership;
        final List<String> snapshots = new CopyOnWriteArrayList<>();
        String snapshotRefusal;

        FakeReplica(int id, FakeMembership membership) {
            this.id = id;
            this.membership = membership;
        }

        @Override
        public int id() {
            return id;
        }

        @Override
        public String ordering() {
            return "fake-paxos";
        }

        @Override
        public Map<String, String> status() {
            Map<String, String> s = new LinkedHashMap<>();
            s.put("id", Integer.toString(id));
            s.put("ordering", ordering());
            s.put("leader", "0");
            s.put("executed", Integer.toString(100 - id));
            s.put("membership", membership == null ? AdminRoutes.UNSUPPORTED : membership.members());
            s.put("stream.fake.role", id == 0 ? "leader" : "follower");
            s.put("stream.fake.view", "4");
            s.put("stream.fake.decided", Integer.toString(id == 0 ? 105 : 100 - id));
            return s;
        }

        @Override
        public Optional<MembershipAdmin> membership() {
            return Optional.ofNullable(membership);
        }

        @Override
        public void requestSnapshot() {
            if (snapshotRefusal != null) {
                throw new IllegalStateException(snapshotRefusal);
            }
            snapshots.add("requested");
        }
    }

    /** Records each call; answers with {@code refusal} (a {@link MembershipChangeRefused}) if set. */
    static final class FakeMembership implements MembershipAdmin {
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile String refusal;

        private CompletableFuture<String> answer(String call) {
            calls.add(call);
            return refusal == null ? CompletableFuture.completedFuture(members() + " after " + call)
                    : CompletableFuture.failedFuture(new MembershipChangeRefused(refusal));
        }

        @Override
        public CompletableFuture<String> addLearner(int id, String hostPort) {
            return answer("add " + id + " " + hostPort);
        }

        @Override
        public CompletableFuture<String> promote(int id) {
            return answer("promote " + id);
        }

        @Override
        public CompletableFuture<String> remove(int id) {
            return answer("remove " + id);
        }

        @Override
        public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
            return answer("replace " + oldId + " " + newId + " " + hostPort);
        }

        @Override
        public CompletableFuture<String> transferLeadership(int id) {
            return answer("transfer " + id);
        }

        @Override
        public String members() {
            return "voters=[0,1,2] learners=[5]";
        }
    }

    /** One CLI run: exit code and what it printed. */
    record Run(int code, String out, String err) {
    }

    @TempDir
    Path dir;
    Path file;
    final List<MetricsEndpoint> endpoints = new ArrayList<>();
    final List<FakeReplica> replicas = new ArrayList<>();
    final FakeMembership membership = new FakeMembership();
    String metrics;

    @BeforeEach
    void cluster() throws Exception {
        Properties p = new Properties();
        p.setProperty("members", "0=127.0.0.1:7100,1=127.0.0.1:7101,2=127.0.0.1:7102");
        p.putAll(ClusterSecretFile.write(dir.resolve("cluster.secret")));
        file = dir.resolve("cluster.properties");
        ClusterFile.of(p).write(file);
        ClusterSecret secret = ClusterFile.load(file).replica(0).clusterSecret().orElseThrow();
        List<String> m = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            FakeReplica r = new FakeReplica(id, membership);
            PrometheusMeterRegistry registry = MetricsEndpoint.registry();
            MetricsEndpoint e = new MetricsEndpoint(registry, "127.0.0.1", 0, null,
                    new AdminRoutes(r, new AdminAuth(secret), registry, System::currentTimeMillis, Duration.ofSeconds(10)));
            endpoints.add(e);
            replicas.add(r);
            m.add(id + "=127.0.0.1:" + e.port());
        }
        metrics = String.join(",", m);
    }

    @AfterEach
    void stop() {
        endpoints.forEach(MetricsEndpoint::close);
    }

    Run admin(String... args) {
        List<String> all = new ArrayList<>(List.of("admin", "--config", file.toString(), "--metrics", metrics));
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new ParallaxCli()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    /** A port nothing listens on (bound, then closed). */
    static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    @DisplayName("status: one row per replica with role, view, leader, decided, executed, lag against the leader, membership")
    void statusShowsEveryReplica() {
        Run r = admin("status");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("replica", "role", "lag", "membership");
        List<String> rows = r.out().lines().toList();
        assertThat(rows.get(1)).matches("0\\s+yes\\s+fake\\s+leader\\s+4\\s+0\\s+105\\s+100\\s+5\\s+voters=\\[0,1,2\\] learners=\\[5\\]");
        assertThat(rows.get(3)).matches("2\\s+yes\\s+fake\\s+follower\\s+4\\s+0\\s+98\\s+98\\s+7\\s+.*");
    }

    @Test
    @DisplayName("status with an unreachable replica: its row says so, the others are shown, exit 1")
    void statusWithAnUnreachableReplica() throws Exception {
        metrics = metrics.replaceFirst("2=127.0.0.1:\\d+", "2=127.0.0.1:" + deadPort());
        Run r = admin("status");
        assertThat(r.code()).isEqualTo(AdminCommand.REFUSED);
        assertThat(r.out()).contains("leader").containsPattern("(?m)^2\\s+no(\\s+-)+$")
                .containsPattern("(?m)^replica 2 unreachable at 127.0.0.1:\\d+");
    }

    @Test
    @DisplayName("add: sent to the first replica, signed; the new membership is printed, exit 0")
    void addSucceeds() {
        Run r = admin("add", "3=127.0.0.1:7103");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("voters=[0,1,2] learners=[5] after add 3 127.0.0.1:7103");
        assertThat(membership.calls).containsExactly("add 3 127.0.0.1:7103");
    }

    @Test
    @DisplayName("promote, remove, replace and transfer-leader reach the SPI with their arguments")
    void everyChangeReachesTheSpi() {
        assertThat(admin("promote", "5").code()).as("5 is a learner of the reported membership").isZero();
        assertThat(admin("remove", "2").code()).isZero();
        assertThat(admin("replace", "1", "4=127.0.0.1:7104").code()).isZero();
        assertThat(admin("--replica", "2", "transfer-leader", "1").code()).isZero();
        assertThat(membership.calls).containsExactly("promote 5", "remove 2", "replace 1 4 127.0.0.1:7104", "transfer 1");
    }

    @Test
    @DisplayName("a change the ordering refuses: its message reaches the operator, exit 1")
    void aRefusedChange() {
        membership.refusal = "a change is in flight: voters=[0,1,2] -> voters=[0,1,2,3]";
        Run r = admin("remove", "1");
        assertThat(r.code()).isEqualTo(AdminCommand.REFUSED);
        assertThat(r.err()).contains("replica 0: a change is in flight: voters=[0,1,2] -> voters=[0,1,2,3]");
        assertThat(membership.calls).as("a refusal is final, not retried elsewhere").hasSize(1);
    }

    @Test
    @DisplayName("'not the leader' and unreachable replicas are passed over for the next one")
    void notTheLeaderAndUnreachableArePassedOver() throws Exception {
        metrics = metrics.replaceFirst("0=127.0.0.1:\\d+", "0=127.0.0.1:" + deadPort());
        membership.refusal = "replica 1 is not the leader (replica 2 is)";
        Run r = admin("transfer-leader", "2");
        assertThat(r.code()).isEqualTo(AdminCommand.REFUSED);
        assertThat(r.err()).contains("replica 0 unreachable", "replica 1: replica 1 is not the leader",
                "replica 2: replica 1 is not the leader", "no replica took the request");
        assertThat(membership.calls).as("replicas 1 and 2 were asked").hasSize(2);
    }

    @Test
    @DisplayName("an ordering without MembershipAdmin: 'does not support membership changes', exit 1; members says so too")
    void unsupportedOrdering() throws Exception {
        stop();
        endpoints.clear();
        List<String> m = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            PrometheusMeterRegistry registry = MetricsEndpoint.registry();
            MetricsEndpoint e = new MetricsEndpoint(registry, "127.0.0.1", 0, null,
                    new AdminRoutes(new FakeReplica(id, null), null, registry, System::currentTimeMillis, Duration.ofSeconds(10)));
            endpoints.add(e);
            m.add(id + "=127.0.0.1:" + e.port());
        }
        metrics = String.join(",", m);
        Run add = admin("add", "3=127.0.0.1:7103");
        assertThat(add.code()).isEqualTo(AdminCommand.REFUSED);
        assertThat(add.err()).contains("ordering fake-paxos does not support membership changes");
        Run members = admin("members");
        assertThat(members.code()).isZero();
        assertThat(members.out()).contains("replica 2: membership changes not supported by ordering fake-paxos");
        assertThat(admin("status").out()).contains("membership changes not supported by ordering fake-paxos");
    }

    @Test
    @DisplayName("bad arguments: unknown id, malformed ID=HOST:PORT, missing arguments: a clear message, exit 2, nothing sent")
    void badArguments() {
        Run unknown = admin("remove", "7");
        assertThat(unknown.code()).isEqualTo(AdminCommand.USAGE);
        assertThat(unknown.err()).contains("replica 7 is unknown: not in the cluster file's members (0..2) nor in the membership [0, 1, 2, 5]");
        assertThat(admin("promote", "9").err()).contains("replica 9 is unknown");
        assertThat(admin("transfer-leader", "x").err()).contains("'x' is not a replica id");
        Run malformed = admin("add", "3=127.0.0.1");
        assertThat(malformed.code()).isEqualTo(AdminCommand.USAGE);
        assertThat(malformed.err()).contains("malformed address in '3=127.0.0.1': expected HOST:PORT");
        assertThat(admin("add", "127.0.0.1:7103").err()).contains("expected ID=HOST:PORT");
        assertThat(admin("add", "3=127.0.0.1:70000").code()).isEqualTo(AdminCommand.USAGE);
        Run missing = admin("replace", "1");
        assertThat(missing.code()).isEqualTo(AdminCommand.USAGE);
        assertThat(missing.err()).contains("Missing required parameter", "NEW=HOST:PORT");
        assertThat(admin("add").err()).contains("Missing required parameter", "ID=HOST:PORT");
        assertThat(admin("--replica", "3", "status").err()).contains("--replica 3 is not in the cluster file's members");
        assertThat(membership.calls).as("nothing reached the ordering").isEmpty();
    }

    @Test
    @DisplayName("snapshot: every replica is asked (or --replica); a replica that cannot take one says why, exit 1")
    void snapshot() {
        Run all = admin("snapshot");
        assertThat(all.code()).as(all.err()).isZero();
        assertThat(all.out()).contains("replica 0: snapshot requested", "replica 2: snapshot requested");
        assertThat(replicas).allSatisfy(r -> assertThat(r.snapshots).hasSize(1));
        replicas.get(1).snapshotRefusal = "replica 1 keeps no snapshots: it has no data directory (data.dir)";
        Run one = admin("--replica", "1", "snapshot");
        assertThat(one.code()).isEqualTo(AdminCommand.REFUSED);
        assertThat(one.err()).contains("replica 1: replica 1 keeps no snapshots");
        assertThat(replicas.get(0).snapshots).as("--replica asks that one only").hasSize(1);
    }

    @Test
    @DisplayName("parallax --help lists admin; admin --help lists its subcommands")
    void helpListsAdmin() {
        StringWriter out = new StringWriter();
        assertThat(new CommandLine(new ParallaxCli()).setOut(new PrintWriter(out, true)).execute("--help")).isZero();
        assertThat(out.toString()).containsPattern("\\n\\s+admin\\s+Operate a running cluster");
        StringWriter sub = new StringWriter();
        assertThat(new CommandLine(new ParallaxCli()).setOut(new PrintWriter(sub, true)).execute("admin", "--help")).isZero();
        assertThat(sub.toString()).contains("status", "members", "snapshot", "add", "promote", "remove", "replace",
                "transfer-leader", "--config", "--metrics", "--replica");
    }

    @Test
    @DisplayName("no metrics endpoints in the file nor --metrics: the fix is named, exit 2")
    void noEndpoints() throws Exception {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new ParallaxCli()).setErr(new PrintWriter(err, true))
                .execute("admin", "--config", file.toString(), "status");
        assertThat(code).isEqualTo(AdminCommand.USAGE);
        assertThat(err.toString()).contains("no metrics endpoints: add metrics=0=host:port");
        assertThat(Files.exists(file)).isTrue();
    }
}
