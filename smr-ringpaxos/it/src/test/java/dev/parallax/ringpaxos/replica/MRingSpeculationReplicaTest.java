package dev.parallax.ringpaxos.replica;

import dev.parallax.core.SpeculativeStateMachine;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.core.testkit.cluster.TextKv;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingPaxos;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.AppendLoad.awaitConverged;
import static dev.parallax.core.testkit.cluster.AppendLoad.expectedOwn;
import static dev.parallax.core.testkit.cluster.AppendLoad.load;
import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three M-Ring replicas over loopback sockets and a loopback multicast group with
 * {@code mring.speculation=on} and a state machine that opts in (seed 003 (Marandi thesis) §4.2.1):
 * commands execute on their Phase 2A, every client is answered, every append is applied once, the
 * replicas converge, and the coordinator's replacement mid-load leaves them so.
 */
class MRingSpeculationReplicaTest {

    /** {@link TextKv} with an undo per command: the key's previous value. */
    static final class SpeculativeKv implements SpeculativeStateMachine {
        private final TextKv kv;

        SpeculativeKv(TextKv kv) {
            this.kv = kv;
        }

        @Override
        public Execution executeSpeculatively(ByteBuffer command) {
            String[] p = text(command).split(" ", 3);
            String key = p.length > 1 ? p[1] : null;
            String before = key == null ? null : kv.data.get(key);
            ByteBuffer reply = kv.execute(command);
            return new Execution(reply, key == null ? Execution.NOTHING : () -> {
                if (before == null) {
                    kv.data.remove(key);
                } else {
                    kv.data.put(key, before);
                }
            });
        }

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return kv.execute(command);
        }

        @Override
        public ByteBuffer query(ByteBuffer query) {
            return kv.query(query);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            kv.snapshot(out);
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            kv.restore(in);
        }
    }

    private static double counter(LocalCluster c, int replica, String name) {
        io.micrometer.core.instrument.FunctionCounter f = c.replicas.get(replica).meterRegistry().find(name).functionCounter();
        return f == null ? 0 : f.count();
    }

    private static void awaitAll(List<CompletableFuture<ByteBuffer>> replies) throws Exception {
        for (CompletableFuture<ByteBuffer> r : replies) {
            r.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("seed 003 §4.2.1: M-Ring with speculation on: executed on the 2A, answered once decided, snapshots of decided state, every append once, converged across a coordinator change")
    void speculatingReplicasConverge(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String group = RingReplicaClusterTest.randomGroup();
        int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        try (LocalCluster c = new LocalCluster(3, n -> RingPaxos.mRing(RingReplicaClusterTest.testConfig(n, Ring.Kind.M_RING)
                .mringGroup(group).mringPort(port).speculation(true).build()),
                kv -> new SpeculativeKv((TextKv) kv), 16 << 20, dir, 50)) {   // snapshots while speculating
            List<SmrClient> clients = List.of(c.clientOf(0), c.clientOf(1), c.clientOf(2));
            awaitAll(load(clients, "a", 100));
            for (int k = 0; k < 3; k++) {
                assertThat(text(clients.get(k).invoke(cmd("GET own" + k)).get(20, TimeUnit.SECONDS)))
                        .isEqualTo(expectedOwn("a", 100));
            }
            Await.until("the coordinator to be published", Duration.ofSeconds(30),
                    () -> c.leader("parallax.ring.coordinator") >= 0);
            int coordinator = c.leader("parallax.ring.coordinator");
            double speculated = 0;
            for (int r = 0; r < 3; r++) {
                speculated += counter(c, r, "parallax.speculation.executed");
                assertThat(counter(c, r, "parallax.speculation.confirmed")).as("replica %d confirmed", r)
                        .isLessThanOrEqualTo(counter(c, r, "parallax.speculation.executed"));
            }
            assertThat(speculated).as("commands executed speculatively").isPositive();

            // The coordinator goes: the others elect a new one and go on; it comes back and catches up.
            c.stop(coordinator);
            List<SmrClient> others = new java.util.ArrayList<>();
            for (int r = 0; r < 3; r++) {
                if (r != coordinator) {
                    others.add(clients.get(r));
                }
            }
            awaitAll(load(others, "b", 50));
            c.restart(coordinator);
            awaitConverged(c);
            String shared = c.machines.get(0).data.get("shared");
            assertThat(shared.split(",")).as("every append once").hasSize(400).doesNotHaveDuplicates();
        }
    }
}
