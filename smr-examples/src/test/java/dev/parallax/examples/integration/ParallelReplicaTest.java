package dev.parallax.examples.integration;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.replica.Replica;
import dev.parallax.examples.linkedlist.ListClassifier;
import dev.parallax.examples.linkedlist.ListCommands;
import dev.parallax.examples.linkedlist.ShardedLinkedList;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parallel executors inside real replicas: a 3-replica Multi-Paxos cluster whose replicas run the
 * sharded linked list with early scheduling (selected through {@code Replica.Builder.executor}),
 * snapshotting every 50 instances (at points where the executor is quiescent). Every reply must
 * equal sequential execution of the same commands in the same order.
 */
class ParallelReplicaTest {

    @ParameterizedTest
    @EnumSource(value = SyncMode.class, names = {"BUSY_WAIT", "WS_OPT", "BARRIER"})
    void earlySchedulingInsideReplicasMatchesSequentialExecution(SyncMode mode, @TempDir Path dir) throws Exception {
        ClusterMembers members = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        ClusterMembers clients = ClusterMembers.parse(dev.parallax.core.net.LocalPorts.endpoints(3));
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                ListClassifier classifier = new ListClassifier(2);
                Replica r = Replica.builder()
                        .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1)
                                .dataDirectory(dir.resolve("r" + i)).build())
                        .stateMachine(new ShardedLinkedList(2, 100))
                        .executor(Execution.earlyScheduling(classifier.classMap(2), classifier, mode))
                        .ordering(MultiPaxos.protocol(3))
                        .snapshotEvery(50)
                        .build();
                replicas.add(r);
            }
            replicas.forEach(Replica::start);
            ShardedLinkedList reference = new ShardedLinkedList(2, 100);
            Random rnd = new Random(7);
            List<byte[]> commands = new ArrayList<>();
            for (int k = 0; k < 3000; k++) {
                int kind = rnd.nextInt(10);
                byte op = kind < 6 ? ListCommands.LOCAL_READ : kind < 8 ? ListCommands.LOCAL_WRITE
                        : kind < 9 ? ListCommands.GLOBAL_READ : ListCommands.GLOBAL_WRITE;
                commands.add(ListCommands.encode(op, rnd.nextInt(2), rnd.nextInt(300)));
            }
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(clients).build())) {
                List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
                for (byte[] cmd : commands) {
                    replies.add(client.invoke(ByteBuffer.wrap(cmd)));
                }
                for (int k = 0; k < commands.size(); k++) {
                    ByteBuffer expected = reference.execute(ByteBuffer.wrap(commands.get(k)));
                    assertThat(replies.get(k).get(30, TimeUnit.SECONDS)).as("reply %d", k).isEqualTo(expected);
                }
            }
            double snapshots = 0;
            for (Replica r : replicas) {
                snapshots += r.meterRegistry().find("parallax.snapshots.taken").counter().count();
            }
            assertThat(snapshots).as("snapshots taken at quiescent points").isPositive();
        } finally {
            replicas.forEach(Replica::close);
        }
    }
}
