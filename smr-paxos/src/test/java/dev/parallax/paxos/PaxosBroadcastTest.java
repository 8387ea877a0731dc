package dev.parallax.paxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.testkit.AtomicBroadcastContract;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;

import java.time.Duration;

/** The Multi-Paxos broadcast, with real stage threads, passes the shared broadcast contract. */
class PaxosBroadcastTest extends AtomicBroadcastContract {

    @Override
    protected LocalNetwork<?> network(int n) {
        return new LocalNetwork<PaxosMessage>(n);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected AtomicBroadcast create(int id, int n, LocalNetwork<?> network) {
        // No test here measures fail-over: a suspect timeout a loaded machine does not trip by accident
        // (a spurious view change can lose a proposal the contract waits for).
        PaxosConfig config = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(50)).suspect(Duration.ofSeconds(1))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        return PaxosBroadcast.builder().config(config).self(id)
                .transport(((LocalNetwork<PaxosMessage>) network).transport(id))
                .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build();
    }
}
