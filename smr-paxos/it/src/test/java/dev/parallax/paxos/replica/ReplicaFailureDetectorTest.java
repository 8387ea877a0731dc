package dev.parallax.paxos.replica;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.core.testkit.cluster.TextKv;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each replica runs a failure detector thread over Netty's arrival stamps; it ends with the replica,
 * and in a healthy cluster under load it suspects nobody.
 */
class ReplicaFailureDetectorTest {

    /**
     * A healthy cluster under load from several clients suspects nobody: no suspicion, no view
     * change, no step-down, no pre-vote granted. The suspect timeout is 2 s (heartbeats every 30 ms), so a loaded CI machine's pauses
     * stay far below it; a suspicion here is the detector's fault (a clock that starts wrong, a
     * leader that stops heartbeating while busy), not timing. The run is bounded by events
     * (every client's commands answered), not by a duration.
     */
    @Test
    void aHealthyLoadedClusterSuspectsNobody() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
        ClusterMembers clientPorts = ClusterMembers.parse(LocalPorts.endpoints(3));
        PaxosConfig paxos = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofSeconds(2))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
        List<Replica> replicas = new ArrayList<>();
        List<SmrClient> clients = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            for (int i = 0; i < 3; i++) {
                Replica r = Replica.builder()
                        .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clientPorts)
                                .clientIoThreads(1).build())
                        .stateMachine(new TextKv()).ordering(MultiPaxos.protocol(paxos)).build();
                replicas.add(r);
                r.start();
            }
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                SmrClient c = SmrClient.connect(ClientConfig.builder(clientPorts).retryTimeout(Duration.ofMillis(500))
                        .invokeTimeout(Duration.ofSeconds(30)).build());
                clients.add(c);
                int id = w;
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 1_500; i++) {
                        c.invoke(cmd("SET w" + id + " " + i)).join();
                    }
                }, pool));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);
            for (int id = 0; id < 3; id++) {
                Replica r = replicas.get(id);
                assertThat(r.meterRegistry().find("parallax.protocol.suspicions").functionCounter().count())
                        .as("suspicions at replica %d", id).isZero();
                assertThat(r.meterRegistry().find("parallax.paxos.view").gauge().value())
                        .as("view at replica %d", id).isZero();
                // Check-quorum: the leader heard its followers' Accepts and acks throughout.
                assertThat(r.meterRegistry().find("parallax.protocol.stepdowns").functionCounter().count())
                        .as("step-downs at replica %d", id).isZero();
                assertThat(r.meterRegistry().find("parallax.protocol.prevotes").tag("result", "granted")
                        .functionCounter().count()).as("pre-votes granted at replica %d", id).isZero();
            }
            assertThat(replicas.get(0).meterRegistry().find("parallax.paxos.leader").gauge().value()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
            clients.forEach(SmrClient::close);
            replicas.forEach(Replica::close);
        }
    }

    @Test
    void everyReplicaRunsADetectorThreadThatStopsWithIt() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.client();
            for (int i = 0; i < 50; i++) {
                client.invoke(cmd("SET k " + i)).get(10, TimeUnit.SECONDS);
            }
            assertThat(text(client.invoke(cmd("GET k")).get(10, TimeUnit.SECONDS))).isEqualTo("49");
            for (int id = 0; id < 3; id++) {
                String name = "paxos-fd-" + id;
                assertThat(Thread.getAllStackTraces().keySet()).as(name)
                        .anyMatch(t -> t.getName().equals(name) && t.isAlive());
                // Whether a loaded test machine caused a suspicion is timing; that the meter exists is not.
                assertThat(cluster.replicas.get(id).meterRegistry().find("parallax.protocol.suspicions")
                        .functionCounter()).isNotNull();
            }
            cluster.replicas.get(1).close();
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("paxos-fd-1") && t.isAlive());
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("paxos-fd-") && t.isAlive());
    }
}
