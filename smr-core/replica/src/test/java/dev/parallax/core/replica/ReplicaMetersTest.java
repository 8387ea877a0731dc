package dev.parallax.core.replica;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The replica's own gauges read their suppliers at each scrape; the fsync observer feeds its timer. */
class ReplicaMetersTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void theGaugesFollowTheirSuppliers() {
        AtomicBoolean known = new AtomicBoolean();
        AtomicLong executedBelow = new AtomicLong();
        ReplicaMeters.hasLeader(registry, 2, known::get);
        ReplicaMeters.executed(registry, 2, executedBelow::get);
        assertThat(registry.get("parallax.replica.has.leader").tag("replica", "2").gauge().value()).isZero();
        assertThat(registry.get("parallax.replica.executed").gauge().value()).as("nothing executed yet").isEqualTo(-1);
        known.set(true);
        executedBelow.set(42);
        assertThat(registry.get("parallax.replica.has.leader").gauge().value()).isEqualTo(1);
        assertThat(registry.get("parallax.replica.executed").gauge().value()).isEqualTo(41);
    }

    @Test
    void theFsyncObserverRecordsEachForceUnderItsLog() {
        ReplicaMeters.fsync(registry, 0, "paxos").forced(3_000_000);
        assertThat(registry.get("parallax.log.fsync").tag("log", "paxos").timer().count()).isEqualTo(1);
        assertThat(registry.get("parallax.log.fsync").timer().max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(3.0);
    }
}
