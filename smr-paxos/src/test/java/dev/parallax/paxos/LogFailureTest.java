package dev.parallax.paxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica whose log fails (disk full) stops voting, says so in a metric, and acknowledges
 * nothing it did not store; the other two go on.
 */
class LogFailureTest {

    @Test
    void aReplicaThatCannotWriteItsLogStopsVotingAndTheOthersGoOn() throws Exception {
        int n = 3;
        LocalNetwork<PaxosMessage> net = new LocalNetwork<>(n);
        // How fast a fail-over is found is not what this test is about: a suspect timeout a loaded
        // machine does not trip by accident (a spurious view change can lose a proposal).
        PaxosConfig config = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(50)).suspect(Duration.ofSeconds(1))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        List<InMemoryDurableLog> logs = new ArrayList<>();
        List<SimpleMeterRegistry> registries = new ArrayList<>();
        List<PaxosBroadcast> members = new ArrayList<>();
        List<List<Long>> delivered = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(2 * 100);
        for (int i = 0; i < n; i++) {
            InMemoryDurableLog log = InMemoryDurableLog.create();
            logs.add(log);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            registries.add(registry);
            PaxosBroadcast b = PaxosBroadcast.builder().config(config).self(i).transport(net.transport(i)).log(log)
                    .clock(SystemClock.INSTANCE)
                    .options(RuntimeOptions.builder().meterRegistry(registry).build()).build();
            members.add(b);
            List<Long> mine = Collections.synchronizedList(new ArrayList<>());
            delivered.add(mine);
            int id = i;
            b.start((seq, v) -> {
                mine.add(seq);
                if (id != 2) {
                    done.countDown();
                }
            });
        }
        try {
            logs.get(2).storage().failWrites(true); // replica 2's disk is full from now on
            int[] sent = {0};
            Await.until(Duration.ofSeconds(30), () -> {
                while (sent[0] < 100) {
                    int leader = Math.max(0, members.get(0).leaderHint());
                    if (!members.get(leader).propose(ByteBuffer.wrap(new byte[]{(byte) sent[0], 1}))) {
                        return false; // no leader, or it is busy: retry after a pause
                    }
                    sent[0]++;
                }
                return true;
            }, () -> "100 proposals taken (" + sent[0] + " so far)");
            assertThat(done.await(30, TimeUnit.SECONDS)).as("replicas 0 and 1 decide everything").isTrue();
            assertThat(registries.get(2).find("parallax.log.failed").gauge().value()).isEqualTo(1.0);
            assertThat(logs.get(2).durableIndex()).as("nothing new became durable at replica 2").isLessThanOrEqualTo(1);
            assertThat(delivered.get(2)).as("replica 2 decides nothing it could not store").hasSizeLessThan(100);
        } finally {
            members.forEach(PaxosBroadcast::close);
        }
    }
}
