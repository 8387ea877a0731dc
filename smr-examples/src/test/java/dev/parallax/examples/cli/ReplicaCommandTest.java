package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvStateMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code parallax replica}'s assembly from the cluster file, in process: three replicas of the
 * key-value store built as the command builds them, with a parallel executor and a placement
 * chosen by the file, answer like a sequential store and converge; {@code --join} configures a
 * replica outside the file's members at its own address; and a bad value on the command line stops
 * the command before anything starts.
 */
class ReplicaCommandTest {

    @Test
    void replicasAssembledFromTheClusterFileRunTheChosenExecutorAndConverge() throws Exception {
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(3));
        p.setProperty("clients", LocalPorts.endpoints(3));
        p.setProperty("client.io.threads", "1");
        p.setProperty("execution", "early-ws-opt");
        p.setProperty("execution.threads", "2");
        p.setProperty("threads", "compact");
        ClusterFile file = ClusterFile.of(p);
        List<KvStateMachine> stores = new ArrayList<>();
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                KvStateMachine store = new KvStateMachine();
                stores.add(store);
                Replica r = ReplicaCommand.kvReplica(file, i, store).build();
                assertThat(r.config().threads()).isEqualTo(ThreadPlacement.COMPACT);
                replicas.add(r);
            }
            replicas.forEach(Replica::start);
            KvStateMachine reference = new KvStateMachine();
            try (SmrClient client = SmrClient.connect(ClientConfig.builder(file.replica(0).clientMembers())
                    .invokeTimeout(Duration.ofSeconds(60)).build())) {
                for (int i = 0; i < 300; i++) {
                    byte[] key = ("k" + i % 17).getBytes(StandardCharsets.UTF_8);
                    KvCommand c = switch (i % 3) {
                        case 0 -> KvCommand.of(KvOp.INCR, key);
                        case 1 -> KvCommand.of(KvOp.GET, key);
                        default -> KvCommand.of(KvOp.MGET, key, "k0".getBytes(StandardCharsets.UTF_8));
                    };
                    ByteBuffer expected = reference.execute(c.encode());
                    assertThat(client.invoke(c.encode()).get(60, TimeUnit.SECONDS)).as("reply %d", i).isEqualTo(expected);
                }
            }
            Await.until(Duration.ofSeconds(60), () -> stores.stream().allMatch(s -> s.digest() == reference.digest()),
                    () -> "every replica's store to match the reference");
            for (int i = 0; i < 3; i++) {
                assertThat(stores.get(i).digest()).as("replica %d's store", i).isEqualTo(reference.digest());
                assertThat(replicas.get(i).failure()).isEmpty();
            }
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    @Test
    void joinNamesTheAddressOfAReplicaOutsideTheFileWhoseMembersStayTheFiles() throws Exception {
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(3));
        p.setProperty("client.io.threads", "1");
        ClusterFile file = ClusterFile.of(p);
        int port = LocalPorts.next();
        ReplicaCommand command = new ReplicaCommand();
        new CommandLine(command).parseArgs("--config", "cluster.properties", "--id", "3", "--join", "127.0.0.1:" + port);
        assertThat(command.id).isEqualTo(3);
        assertThat(command.join).isEqualTo("127.0.0.1:" + port);
        assertThat(new ReplicaCommand().join).as("a member by default").isNull();

        Replica joiner = ReplicaCommand.kvReplica(file, command.id, command.join, new KvStateMachine()).build();
        try {
            assertThat(joiner.config().isMember()).isFalse();
            assertThat(joiner.config().self()).isEqualTo(new dev.parallax.core.config.Member(3, "127.0.0.1", port));
            assertThat(joiner.config().clientAddress().port()).isEqualTo(port + 1000);
            assertThat(joiner.config().members()).as("the initial membership is the file's").isEqualTo(file.members());
        } finally {
            joiner.close();
        }
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(file, 3, null, new KvStateMachine()))
                .hasMessageContaining("--id 3 is not a member").hasMessageContaining("give --join host:port");
        p.setProperty("ordering", "u-ring");
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(ClusterFile.of(p), 3, "127.0.0.1:" + port, new KvStateMachine()))
                .as("a ring with fixed members (ring.member.ids unset)")
                .hasMessageContaining("--join: ordering=u-ring changes its members at run time only with ring.member.ids set");
        p.setProperty("ring.member.ids", "4");
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(ClusterFile.of(p), 4, "127.0.0.1:" + port, new KvStateMachine()))
                .hasMessageContaining("--join: replica 4 is outside the rings' ids 0..3 (ring.member.ids=4)");
        for (String ring : new String[]{"u-ring", "m-ring", "multi-ring"}) {
            p.setProperty("ordering", ring);
            Replica ringJoiner = ReplicaCommand.kvReplica(ClusterFile.of(p), 3, "127.0.0.1:" + port, new KvStateMachine()).build();
            try {
                assertThat(ringJoiner.config().isMember()).as(ring + " with ring.member.ids joins").isFalse();
            } finally {
                ringJoiner.close();
            }
        }
        p.remove("ring.member.ids");
        p.setProperty("ordering", "multi-ring");
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(ClusterFile.of(p), 3, "127.0.0.1:" + port, new KvStateMachine()))
                .as("multi-ring with fixed members")
                .hasMessageContaining("--join: ordering=multi-ring changes its members at run time only with ring.member.ids set");
        p.setProperty("ordering", "multicast");
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(ClusterFile.of(p), 3, "127.0.0.1:" + port, new KvStateMachine()))
                .as("an ordering without membership changes")
                .hasMessageContaining("--join: ordering=multicast keeps its members fixed");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("S-SMR: a partition's declared joiner builds as a replica of that partition; "
            + "another id, or a file without ring.member.ids, is refused naming the keys")
    void aPartitionsJoinerJoinsItsPartition() throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("members", dev.parallax.core.net.LocalPorts.endpoints(6));
        p.putAll(VoleryClusterFile.ssmrSettings(2, "u-ring"));
        p.setProperty("ring.member.ids", "8");
        p.setProperty("multiring.ring.1.joiners", "6");
        ClusterFile file = ClusterFile.of(p);
        assertThat(file.partitionOf(6)).isEqualTo(1);
        assertThat(file.partitionReplicas().get(1)).containsExactly(3, 4, 5, 6);
        assertThat(file.partitionMembers().get(1)).containsExactly(3, 4, 5);
        int port = dev.parallax.core.net.LocalPorts.next();
        Replica joiner = PartitionedReplicas.replica(file, 6, "127.0.0.1:" + port, KvRouting.partition(file)).build();
        try {
            assertThat(joiner.config().isMember()).isFalse();
        } finally {
            joiner.close();
        }
        assertThatThrownBy(() -> PartitionedReplicas.replica(file, 7, "127.0.0.1:" + port, KvRouting.partition(file)))
                .hasMessageContaining("--join: replica 7 is no partition's joiner: name it in multiring.ring.<p>.joiners");
        p.remove("ring.member.ids");
        assertThatThrownBy(() -> ClusterFile.of(p).joinRefusal(6)).hasMessageContaining("multiring.ring.1.joiners names replicas "
                + "that may join, but the rings keep their members fixed");
    }

    @Test
    void joinWithAMembersIdOrAMembersAddressIsPrintedAndExitsWithTwo(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("cluster.properties");
        String members = LocalPorts.endpoints(3);
        Files.writeString(config, "members=" + members + "\n");
        String memberTwo = members.split(",")[2].substring(2);
        assertThat(runFailing(config, "--id", "1", "--join", "127.0.0.1:" + LocalPorts.next()))
                .contains("replica 1 is a member of").contains("a join address is only for a replica joining the group");
        assertThat(runFailing(config, "--id", "3", "--join", memberTwo))
                .contains("join address " + memberTwo + " of replica 3 is member 2's address");
        assertThat(runFailing(config, "--id", "32", "--join", "127.0.0.1:" + LocalPorts.next()))
                .contains("replica id must be 0..31, got 32");
    }

    /** Runs {@code parallax replica --config config args...}, expecting exit code 2; what it printed on stderr. */
    private static String runFailing(Path config, String... args) {
        List<String> all = new ArrayList<>(List.of("--config", config.toString()));
        all.addAll(List.of(args));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int code;
        try (PrintStream capture = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(capture);
            code = new CommandLine(new ReplicaCommand()).execute(all.toArray(String[]::new));
        } finally {
            System.setErr(saved);
        }
        assertThat(code).as("exit code of %s", all).isEqualTo(2);
        assertThat(ReplicaCommand.RUNNING).isFalse();
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aConfigurationErrorIsPrintedAndExitsWithTwoBeforeAnythingStarts(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("cluster.properties");
        Files.writeString(config, "members=0=127.0.0.1:" + LocalPorts.next() + "\nexecution=fastest\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int code;
        try (PrintStream capture = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(capture);
            code = new CommandLine(new ReplicaCommand()).execute("--config", config.toString(), "--id", "0");
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(config + ": execution must be one of sequential, "
                + "late-scheduling, early-barrier");
        assertThat(ReplicaCommand.RUNNING).isFalse();
    }
}
