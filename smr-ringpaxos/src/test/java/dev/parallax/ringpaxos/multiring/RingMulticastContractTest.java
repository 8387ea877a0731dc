package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.AtomicMulticastContract;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.ringpaxos.RingWire;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Multi-Ring Paxos (a ring per group and a global ring, skips at rate λ, the merge on logical
 * sequences) passes the shared multicast contract, with U-Ring rings and with M-Ring rings (the
 * in-JVM {@link LocalNetwork} also multicasts, as M-Ring's datagram group), n processes in one JVM,
 * every one a member of every ring, in-memory logs.
 */
class RingMulticastContractTest {
    /** λ of the test rings: well above the contract's rates (a ring is capped at λ client values per second). */
    static final long LAMBDA = 5_000;

    /** Short timeouts: heartbeat 20 ms, suspect 200 ms, retransmit 50 ms, catch-up 30 ms, restart hold 200 ms. */
    static RingConfig.Builder ring(int n, Ring.Kind kind) {
        return RingConfig.builder(n, kind).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(200))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).restartHold(Duration.ofMillis(200));
    }

    /** n processes, one {@link LocalNetwork} per ring, each process's meters given, the rest of the builder given. */
    static List<AtomicMulticast> cluster(int n, GroupSet groups, Ring.Kind kind, List<MeterRegistry> registries,
                                         UnaryOperator<RingMulticast.Builder> options) {
        Map<Integer, LocalNetwork<RingWire>> networks = new HashMap<>();
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            networks.put(g, new LocalNetwork<>(n));
        }
        networks.put(MulticastPosition.GLOBAL_STREAM, new LocalNetwork<>(n));
        List<AtomicMulticast> processes = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            MeterRegistry meters = registries.get(p);
            processes.add(options.apply(RingMulticast.builder().self(p).members(n).groups(groups)
                    .rings(stream -> ring(n, kind)).lambda(LAMBDA)
                    .transports((stream, member) -> networks.get(stream).transport(member))
                    .logs(stream -> InMemoryDurableLog.create())
                    .options(stream -> RuntimeOptions.builder().name("ring-" + stream).meterRegistry(meters)
                            .waitStrategy(WaitStrategies.park()).build())
                    .meterRegistry(meters)).build());
        }
        return processes;
    }

    static List<AtomicMulticast> cluster(int n, GroupSet groups, Ring.Kind kind) {
        List<MeterRegistry> registries = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            registries.add(new SimpleMeterRegistry());
        }
        return cluster(n, groups, kind, registries, UnaryOperator.identity());
    }

    /** Every ring a U-Ring (seed 003 §3.3.3, Alg. 3). */
    @Nested
    class URing extends AtomicMulticastContract {
        @Override
        protected List<AtomicMulticast> createCluster(int processes, GroupSet groups) {
            return cluster(processes, groups, Ring.Kind.U_RING);
        }
    }

    /** Every ring an M-Ring (seed 003 §3.3.2, Alg. 2). */
    @Nested
    class MRing extends AtomicMulticastContract {
        @Override
        protected List<AtomicMulticast> createCluster(int processes, GroupSet groups) {
            return cluster(processes, groups, Ring.Kind.M_RING);
        }
    }
}
