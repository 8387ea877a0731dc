package dev.parallax.paxos.replica;

import dev.parallax.core.client.SmrClient;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static dev.parallax.paxos.replica.TextKv.cmd;
import static dev.parallax.paxos.replica.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/** Each replica runs a failure detector thread over Netty's arrival stamps; it ends with the replica. */
class ReplicaFailureDetectorTest {

    @Test
    void everyReplicaRunsADetectorThreadThatStopsWithIt() throws Exception {
        try (LocalCluster cluster = new LocalCluster(3)) {
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
