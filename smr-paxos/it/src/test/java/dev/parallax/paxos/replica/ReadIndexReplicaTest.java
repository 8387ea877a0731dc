package dev.parallax.paxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.cluster.LocalCluster;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.ReadChecks.everyReplicaSeesEveryCompletedWrite;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-index reads on real Multi-Paxos (and S-Paxos) replicas over loopback ({@code SmrClient.query}, the
 * replica's query path, {@code ReadRounds}): every replica answers queries, followers included, and
 * a query issued after a write completed sees it (the reference multicast too, over the merge of its
 * Multi-Paxos streams, {@code MergedReads}); a query the state machine does not answer outside
 * the order is ordered instead; reads go on after the leader stops.
 */
class ReadIndexReplicaTest {

    @Test
    @DisplayName("every replica answers queries, and each sees every write that completed before it was issued")
    void everyReplicaAnswersAndSeesCompletedWrites() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            everyReplicaSeesEveryCompletedWrite(cluster, 200);
        }
    }

    @Test
    @DisplayName("S-Paxos: every replica answers queries once its execution passed the confirmed ordering instance")
    void sPaxosReplicasAnswerQueries() throws Exception {
        try (LocalCluster cluster = new LocalCluster(3, PaxosClusters::sPaxos)) {
            everyReplicaSeesEveryCompletedWrite(cluster, 100);
        }
    }

    @Test
    @DisplayName("the reference multicast: a query waits until the merge passed every stream's confirmed point, at every replica")
    void multicastReplicasAnswerQueries() throws Exception {
        try (LocalCluster cluster = new LocalCluster(3,
                n -> dev.parallax.paxos.multicast.MulticastOrdering.protocol(PaxosClusters.paxosConfig(n), 2))) {
            everyReplicaSeesEveryCompletedWrite(cluster, 100);
        }
    }

    @Test
    @DisplayName("a query the state machine answers only through the order is ordered: it executes as a command")
    void aQueryTheStateMachineRefusesIsOrdered() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient client = cluster.readingClient(1);
            assertThat(text(client.query(cmd("APPEND k x")).get(20, TimeUnit.SECONDS))).isEqualTo("x");
            assertThat(text(client.query(cmd("GET k")).get(20, TimeUnit.SECONDS))).isEqualTo("x");
            assertThat(text(client.invoke(cmd("GET k")).get(20, TimeUnit.SECONDS))).isEqualTo("x");
        }
    }

    @Test
    @DisplayName("after the leader stops, queries to the others are answered once a new leader confirms, and see earlier writes")
    void readsGoOnAfterTheLeaderStops() throws Exception {
        try (LocalCluster cluster = PaxosClusters.of(3)) {
            SmrClient writer = cluster.client();
            writer.invoke(cmd("SET k before")).get(20, TimeUnit.SECONDS);
            int leader = writer.currentReplica();
            int other = (leader + 1) % 3;
            SmrClient reader = cluster.readingClient(other);
            cluster.stop(leader);
            assertThat(text(reader.query(cmd("GET k")).get(20, TimeUnit.SECONDS))).isEqualTo("before");
            writer.invoke(cmd("SET k after")).get(20, TimeUnit.SECONDS);
            assertThat(text(reader.query(cmd("GET k")).get(20, TimeUnit.SECONDS))).as("the write completed before the query")
                    .isEqualTo("after");
        }
    }
}
