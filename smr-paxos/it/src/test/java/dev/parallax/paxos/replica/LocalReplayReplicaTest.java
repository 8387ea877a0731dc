package dev.parallax.paxos.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.cluster.TextKv;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local replay at restart, on real replicas with data directories: a replica restarted while every peer is
 * down restores its snapshot and replays the decisions in its own log into the state machine,
 * executing exactly the logged prefix once; when the peers return, all converge.
 */
class LocalReplayReplicaTest {
    private static final int COMMANDS = 150;
    private static final long SNAPSHOT_EVERY = 40;

    /** {@link TextKv} behind a monitor, so the test thread can wait for a state without polling. */
    private static final class WatchedKv implements StateMachine {
        private final TextKv kv = new TextKv();
        private String restored = "";

        @Override
        public synchronized ByteBuffer execute(ByteBuffer command) {
            try {
                return kv.execute(command);
            } finally {
                notifyAll();
            }
        }

        @Override
        public synchronized void snapshot(WritableByteChannel out) throws IOException {
            kv.snapshot(out);
        }

        @Override
        public synchronized void restore(ReadableByteChannel in) throws IOException {
            kv.restore(in);
            restored = kv.data.getOrDefault("k", "");
            notifyAll();
        }

        /** The value of k right after the last snapshot restore ("" if none). */
        synchronized String restored() {
            return restored;
        }

        synchronized String get(String key) {
            return kv.data.get(key);
        }

        /** Waits until {@code key} holds {@code value}; @return whether it did within {@code timeout} */
        synchronized boolean awaitValue(String key, String value, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!value.equals(kv.data.get(key))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }

    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(3));
    private final ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(3));
    private final PaxosConfig paxos = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
            .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();

    /** Starts replica {@code id}; {@code bootstrap} on the first start of the cluster only. */
    private Replica start(int id, Path dir, StateMachine machine, boolean bootstrap) {
        Replica r = Replica.builder()
                .config(ReplicaConfig.builder().id(id).members(members).clientMembers(clients).clientIoThreads(1)
                        .dataDirectory(dir.resolve("replica-" + id)).build())
                .stateMachine(machine).ordering(MultiPaxos.protocol(paxos)).snapshotEvery(SNAPSHOT_EVERY).bootstrap(bootstrap).build();
        r.start();
        return r;
    }

    private SmrClient client() {
        return SmrClient.connect(ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(500))
                .invokeTimeout(Duration.ofSeconds(10)).build());
    }

    private static double firstUndecided(Replica r) {
        return r.meterRegistry().find("parallax.paxos.first.undecided").gauge().value();
    }

    private static double counter(Replica r, String name) {
        return r.meterRegistry().find(name).counter().count();
    }

    @Test
    void aReplicaRestartedAloneReplaysItsLoggedDecisionsThenConvergesWithItsPeers(@TempDir Path dir) throws Exception {
        StringBuilder expected = new StringBuilder();
        Replica[] replicas = new Replica[3];
        WatchedKv[] machines = new WatchedKv[3];
        for (int i = 0; i < 3; i++) {
            machines[i] = new WatchedKv();
            replicas[i] = start(i, dir, machines[i], true);
        }
        try (SmrClient client = client()) {
            for (int i = 0; i < COMMANDS; i++) {
                client.invoke(cmd("APPEND k " + i + ",")).get(10, TimeUnit.SECONDS);
                expected.append(i).append(',');
            }
        }
        for (int i = 0; i < 3; i++) {
            assertThat(machines[i].awaitValue("k", expected.toString(), Duration.ofSeconds(10))).as("replica " + i).isTrue();
        }
        for (Replica r : replicas) {
            r.close();
        }
        double logged = firstUndecided(replicas[2]);
        assertThat(counter(replicas[2], "parallax.snapshots.taken")).as("compaction ran before the stop").isPositive();

        // Replica 2 alone: no peer can supply anything, so whatever it executes comes from its own log.
        WatchedKv alone = new WatchedKv();
        Replica lone = start(2, dir, alone, false);
        try {
            assertThat(alone.awaitValue("k", expected.toString(), Duration.ofSeconds(10)))
                    .as("state before the stop, got %s", alone.get("k")).isTrue();
        } finally {
            lone.close();
        }
        String fromSnapshot = alone.restored();
        long inSnapshot = fromSnapshot.chars().filter(ch -> ch == ',').count();
        assertThat(counter(lone, "parallax.snapshots.installed")).isEqualTo(1);
        assertThat(expected.toString()).startsWith(fromSnapshot);
        assertThat(inSnapshot).as("the snapshot covers a prefix").isPositive().isLessThan(COMMANDS);
        assertThat(counter(lone, "parallax.commands.executed"))
                .as("exactly the commands after the snapshot were executed, once each")
                .isEqualTo(COMMANDS - inSnapshot);
        assertThat(firstUndecided(lone)).as("the decided prefix it had logged").isEqualTo(logged);

        // Everyone back: the cluster goes on from where it was, and all three agree.
        for (int i = 0; i < 3; i++) {
            machines[i] = new WatchedKv();
            replicas[i] = start(i, dir, machines[i], false);
        }
        try (SmrClient client = client()) {
            client.invoke(cmd("APPEND k " + COMMANDS + ",")).get(20, TimeUnit.SECONDS);
            expected.append(COMMANDS).append(',');
            for (int i = 0; i < 3; i++) {
                assertThat(machines[i].awaitValue("k", expected.toString(), Duration.ofSeconds(10)))
                        .as("replica %d converged, got %s", i, machines[i].get("k")).isTrue();
            }
        } finally {
            for (Replica r : replicas) {
                r.close();
            }
        }
    }
}
