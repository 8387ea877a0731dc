package dev.parallax.examples.cli;

import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code /admin/status} reads from a running replica for each ordering whose gauges differ:
 * three key-value replicas in this JVM, then every replica reports its ordering, executed position
 * and per stream a role, a view or round and a decided instance, and exactly one replica leads
 * (coordinates) each stream. Multi-Ring under P-SMR reports one stream per ring and the global one. (M-Ring has
 * U-Ring's gauges; its IP multicast runs in {@code MRingProcessTest}.)
 */
class ReplicaAdminTargetTest {

    @ParameterizedTest(name = "ordering={0}")
    @ValueSource(strings = {"multi-paxos", "s-paxos", "u-ring", "multi-ring"})
    void everyReplicaReportsItsRoleViewAndDecidedPerStream(String ordering) throws Exception {
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(3));
        p.setProperty("clients", LocalPorts.endpoints(3));
        p.setProperty("client.io.threads", "1");
        p.setProperty("threads", "compact");
        p.setProperty("ordering", ordering);
        p.setProperty("paxos.heartbeat.ms", "40");
        p.setProperty("paxos.suspect.ms", "400");
        InProcessClusterFiles.putTestRingTimeouts(p);
        if (ordering.equals("multi-ring")) {
            p.setProperty("multiring.kind", "u-ring");
            p.setProperty("multiring.rings", "2");
            p.setProperty("execution", "p-smr"); // every group's ring and the global one (one total order runs ring 0 alone)
        }
        ClusterFile file = ClusterFile.of(p);
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int id = 0; id < 3; id++) {
                Replica r = ReplicaCommand.kvReplica(file, id, KvRouting.stateMachine(file))
                        .meterRegistry(new SimpleMeterRegistry()).bootstrap(true).build();
                replicas.add(r);
                r.start();
            }
            List<ReplicaAdminTarget> targets = replicas.stream().map(ReplicaAdminTarget::new).toList();
            int expected = ordering.equals("multi-ring") ? 3 : 1;
            Await.until(Duration.ofSeconds(30), () -> {
                List<Map<String, String>> all = targets.stream().map(ReplicaAdminTarget::status).toList();
                List<String> streams = AdminStatusReport.streams(all.get(0));
                return all.stream().allMatch(st -> AdminStatusReport.streams(st).size() == expected) && streams.stream().allMatch(s -> all.stream()
                        .filter(st -> List.of("leader", "coordinator").contains(st.get("stream." + s + ".role"))).count() == 1);
            }, () -> "every replica to report " + expected + " streams, each with exactly one leader or coordinator: "
                    + targets.stream().map(ReplicaAdminTarget::status).toList());
            for (ReplicaAdminTarget t : targets) {
                Map<String, String> st = t.status();
                assertThat(st).containsEntry("id", Integer.toString(t.id())).containsEntry("ordering", ordering)
                        .containsEntry("healthy", "yes")
                        .containsEntry("membership", ordering.equals("multi-ring") ? AdminRoutes.UNSUPPORTED : "voters=[0,1,2] learners=[]")
                        .containsKey("executed").containsKey("leader");
                List<String> streams = AdminStatusReport.streams(st);
                assertThat(streams).as(st.toString()).hasSize(expected);
                for (String s : streams) {
                    assertThat(st).as(st.toString()).containsKeys("stream." + s + ".view", "stream." + s + ".decided");
                    assertThat(st.get("stream." + s + ".role")).isIn("leader", "follower", "coordinator", "acceptor", "learner");
                }
                if (!ordering.contains("ring")) {
                    // One Paxos stream: executed positions are its instances, so an idle cluster shows no lag
                    // (a ring also decides the idle instances it skips, which deliver nothing).
                    String decided = "stream." + streams.get(0) + ".decided";
                    Await.until(Duration.ofSeconds(10), () -> t.status().get(decided).equals(t.status().get("executed")),
                            () -> "replica " + t.id() + " to have executed what it decided: " + t.status());
                }
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }
}
