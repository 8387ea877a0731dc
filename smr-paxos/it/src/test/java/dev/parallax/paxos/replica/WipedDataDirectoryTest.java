package dev.parallax.paxos.replica;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.LinkFaults;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.TextKv;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica whose data directory was wiped (or is missing) does not vote with
 * empty state. The hazard: writes are acknowledged by the quorum {0, 1} while replica 2 is cut off;
 * replica 1 loses its directory and restarts; replica 0 is then cut off. If replica 1 voted with
 * empty state, {1, 2} would be a quorum that knows none of the acknowledged writes, and would decide
 * other values in their instances. It must instead recover from its peers first (it needs both of
 * them, n=3), so nothing is decided until replica 0 is back, and nothing acknowledged is lost.
 */
class WipedDataDirectoryTest {
    private static final int WRITES = 30;

    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
    private final ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(3));
    private final PaxosConfig paxos = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
            .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
    private final Replica[] replicas = new Replica[3];
    private final TextKv[] machines = new TextKv[3];
    private final LinkFaults[] faults = {new LinkFaults(), new LinkFaults(), new LinkFaults()};

    @TempDir
    Path dir;

    private void start(int id, boolean bootstrap) {
        machines[id] = new TextKv();
        Replica r = Replica.builder()
                .config(ReplicaConfig.builder().id(id).members(members).clientMembers(clients).clientIoThreads(1)
                        .dataDirectory(dir.resolve("replica-" + id)).build())
                .stateMachine(machines[id]).ordering(MultiPaxos.protocol(paxos)).linkFaults(faults[id])
                .snapshotEvery(1_000_000).bootstrap(bootstrap).build();
        r.start();
        replicas[id] = r;
    }

    private SmrClient client(Duration invokeTimeout) {
        return SmrClient.connect(ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(500))
                .invokeTimeout(invokeTimeout).build());
    }

    private void isolate(int id) {
        for (int j = 0; j < 3; j++) {
            if (j != id) {
                faults[id].block(j);
                faults[j].block(id);
            }
        }
    }

    private void heal() {
        for (LinkFaults f : faults) {
            f.heal();
        }
    }

    private double recovering(int id) {
        return replicas[id].meterRegistry().find("parallax.protocol.recovering").gauge().value();
    }

    private String value(int id) {
        synchronized (machines[id]) {
            return machines[id].data.getOrDefault("k", "");
        }
    }

    private static void wipe(Path path) throws IOException {
        try (Stream<Path> files = Files.walk(path)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        assertThat(path).doesNotExist();
    }

    @AfterEach
    void closeAll() {
        for (Replica r : replicas) {
            if (r != null) {
                r.close();
            }
        }
    }

    @Test
    void aWipedReplicaDoesNotVoteBeforeRecoveringAndNoAcknowledgedWriteIsLost() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i, true);
        }
        StringBuilder expected = new StringBuilder();
        isolate(2);
        try (SmrClient c = client(Duration.ofSeconds(10))) {
            for (int i = 0; i < WRITES; i++) {
                c.invoke(cmd("APPEND k a" + i + ",")).get(10, TimeUnit.SECONDS);
                expected.append('a').append(i).append(',');
            }
        }
        for (int i = 0; i < 3; i++) {
            assertThat(recovering(i)).as("a bootstrapped replica %d votes at once", i).isZero();
        }

        // Replica 1 loses its whole data directory and restarts (no bootstrap: not the first start);
        // replica 0, the only other holder of the acknowledged writes, is then cut off.
        replicas[1].close();
        wipe(dir.resolve("replica-1"));
        heal();
        isolate(0);
        start(1, false);
        assertThat(recovering(1)).as("an empty directory where the cluster has history: recovering").isEqualTo(1);

        try (SmrClient c = client(Duration.ofSeconds(60))) {
            CompletableFuture<?> during = c.invoke(cmd("APPEND k b,"));
            // {1, 2} must not form a quorum while replica 1 recovers: it cannot, without replica 0.
            // sleep is the scenario: time passes (10 suspect timeouts) to show nothing is decided meanwhile
            Thread.sleep(10 * 300);
            assertThat(recovering(1)).as("still recovering without replica 0's answer").isEqualTo(1);
            assertThat(during).as("no quorum decided anything without replica 0").isNotDone();
            assertThat(value(2)).as("replica 2 learned nothing new").isEmpty();

            heal();
            during.get(30, TimeUnit.SECONDS);
            expected.append("b,");
        }
        Await.until("replica 1 recovered", Duration.ofSeconds(20), () -> recovering(1) == 0);
        for (int i = 0; i < 3; i++) {
            int id = i;
            Await.until("replica " + id + " holds every acknowledged write", Duration.ofSeconds(20),
                    () -> value(id).equals(expected.toString()));
        }
    }

    @Test
    void aBrandNewClusterStartsWithTheBootstrapFlagAndARestartWithItsDirectoryDoesNotRecover() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i, true);
        }
        try (SmrClient c = client(Duration.ofSeconds(10))) {
            c.invoke(cmd("APPEND k x,")).get(10, TimeUnit.SECONDS);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(recovering(i)).as("replica %d", i).isZero();
        }
        replicas[2].close();
        start(2, false);
        assertThat(recovering(2)).as("its log is intact: no recovery").isZero();
        try (SmrClient c = client(Duration.ofSeconds(10))) {
            c.invoke(cmd("APPEND k y,")).get(10, TimeUnit.SECONDS);
        }
        Await.until("replica 2 converged", Duration.ofSeconds(20), () -> value(2).equals("x,y,"));
    }
}
