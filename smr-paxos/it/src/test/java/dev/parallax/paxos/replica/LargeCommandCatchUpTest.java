package dev.parallax.paxos.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.LocalCluster;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Catch-up of large commands, over real replicas on loopback (16 MiB frames): a follower cut off while 40
 * commands of 512 KiB (20 MiB) were decided catches up from its peers' logs, without a snapshot.
 * A catch-up reply bounded only by its count (256 values) would be one 20 MiB frame, refused by the
 * receiver every time it was asked again, and the follower would never catch up.
 */
class LargeCommandCatchUpTest {
    private static final int COMMAND_BYTES = 512 << 10;
    private static final int COMMANDS = 40;

    /** Counts the commands and bytes it executed; keeps nothing else. Read from the test thread. */
    static final class Counting implements StateMachine {
        final AtomicLong commands = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            commands.incrementAndGet();
            bytes.addAndGet(command.remaining());
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
            d.writeLong(commands.get());
            d.writeLong(bytes.get());
            d.flush();
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            DataInputStream d = new DataInputStream(Channels.newInputStream(in));
            commands.set(d.readLong());
            bytes.set(d.readLong());
        }
    }

    @Test
    void aFollowerThatMissed512KiBCommandsCatchesUpWithoutASnapshot() throws Exception {
        List<Counting> machines = new ArrayList<>();
        try (LocalCluster cluster = PaxosClusters.of(3, kv -> {
            Counting m = new Counting();
            machines.add(m);
            return m;
        }, 16 << 20)) {
            SmrClient client = cluster.client(Duration.ofSeconds(30));
            client.invoke(ByteBuffer.wrap(new byte[]{1})).get(10, TimeUnit.SECONDS);
            int leader = client.currentReplica();
            int follower = (leader + 1) % 3;
            cluster.isolate(follower);
            List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
            for (int i = 0; i < COMMANDS; i++) {
                byte[] command = new byte[COMMAND_BYTES];
                command[0] = (byte) i;
                replies.add(client.invoke(ByteBuffer.wrap(command)));
            }
            for (CompletableFuture<ByteBuffer> r : replies) {
                r.get(30, TimeUnit.SECONDS);
            }
            assertThat(machines.get(follower).commands.get()).as("the follower missed them").isLessThan(COMMANDS + 1);
            cluster.heal();
            Await.until("the follower executed all " + (COMMANDS + 1) + " commands", Duration.ofSeconds(30),
                    () -> machines.get(follower).commands.get() == COMMANDS + 1);
            assertThat(machines.get(follower).bytes.get()).isEqualTo(1 + (long) COMMANDS * COMMAND_BYTES);
            assertThat(cluster.replicas.get(follower).meterRegistry().get("parallax.snapshots.installed").counter().count())
                    .as("caught up from the peers' decided values, not from a snapshot").isZero();
        }
    }
}
