package dev.parallax.paxos.spaxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.testkit.AtomicBroadcastContract;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import dev.parallax.paxos.PaxosConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The S-Paxos broadcast, with real stage threads over one {@link LocalNetwork} carrying both
 * layers' messages, passes the shared broadcast contract (seed 002 (S-Paxos) §IV).
 *
 * <p>The contract proposes arbitrary strings and expects each back as one delivery. S-Paxos
 * delivers the bodies an instance names joined into one command batch; so that a delivery is one
 * proposal here, the ordering leader puts one id in a value ({@code idsPerValue = 1}): the body
 * is then delivered as it is. Everything else is the default path.
 */
class SPaxosBroadcastTest extends AtomicBroadcastContract {

    @Override
    protected LocalNetwork<?> network(int n) {
        return new LocalNetwork<SPaxosWire>(n);
    }

    static SPaxosConfig config(int n) {
        // No test here measures fail-over: a suspect timeout a loaded machine does not trip by accident
        // (a spurious view change can lose a proposal the contract waits for).
        PaxosConfig paxos = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(50)).suspect(Duration.ofSeconds(1))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        return SPaxosConfig.builder(n).paxos(paxos).idsPerValue(1).build();
    }

    @Override
    @SuppressWarnings("unchecked")
    protected AtomicBroadcast create(int id, int n, LocalNetwork<?> network) {
        return SPaxosBroadcast.builder().config(config(n)).self(id)
                .transport(((LocalNetwork<SPaxosWire>) network).transport(id))
                .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build();
    }

    @Test
    @DisplayName("seed 002 (S-Paxos) §IV-A: every replica takes clients, so the redirect hint is always ANY_REPLICA")
    void neverRedirects() throws InterruptedException {
        LocalNetwork<SPaxosWire> net = new LocalNetwork<>(3);
        AtomicBroadcast[] members = new AtomicBroadcast[3];
        try {
            for (int i = 0; i < 3; i++) {
                members[i] = create(i, 3, net);
                assertThat(members[i].redirectHint()).isEqualTo(AtomicBroadcast.ANY_REPLICA);
                members[i].start((s, v) -> { });
            }
            Await.until(Duration.ofSeconds(30),
                    () -> members[0].leaderHint() >= 0 && members[1].propose(ByteBuffer.wrap(new byte[] {1})),
                    () -> "a proposal taken at a follower");
            for (AtomicBroadcast m : members) {
                assertThat(m.redirectHint()).isEqualTo(AtomicBroadcast.ANY_REPLICA);
            }
            // Each replica learns the leader from its own traffic: wait for it, never assume it yet.
            for (AtomicBroadcast m : members) {
                Await.until(Duration.ofSeconds(30), () -> m.leaderHint() >= 0,
                        () -> "every replica to learn the ordering leader");
                assertThat(m.leaderHint()).isBetween(0, 2);
                assertThat(m.redirectHint()).isEqualTo(AtomicBroadcast.ANY_REPLICA);
            }
        } finally {
            for (AtomicBroadcast m : members) {
                if (m != null) {
                    m.close();
                }
            }
        }
    }
}
