package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.AtomicMulticastContract;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import dev.parallax.paxos.PaxosBroadcast;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/** The reference multicast (one Multi-Paxos per group and a global one) passes the shared multicast contract. */
class PaxosMulticastContractTest extends AtomicMulticastContract {

    /** n processes, one LocalNetwork per stream and one for forwards, in-memory logs. */
    static List<AtomicMulticast> cluster(int n, GroupSet groups) {
        List<MeterRegistry> registries = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            registries.add(new SimpleMeterRegistry());
        }
        return cluster(n, groups, registries, new LocalNetwork<>(n));
    }

    /** As {@link #cluster(int, GroupSet)}, with each process's meters and the forward network given. */
    static List<AtomicMulticast> cluster(int n, GroupSet groups, List<MeterRegistry> registries,
                                         LocalNetwork<MulticastForward> forwards) {
        return cluster(n, groups, registries, forwards::transport, UnaryOperator.identity());
    }

    /**
     * As {@link #cluster(int, GroupSet)}, with each process's meters, forward transport and the
     * rest of its builder given.
     */
    static List<AtomicMulticast> cluster(int n, GroupSet groups, List<MeterRegistry> registries,
                                         IntFunction<Transport<MulticastForward>> forwards,
                                         UnaryOperator<PaxosMulticast.Builder> options) {
        Map<Integer, LocalNetwork<PaxosMessage>> networks = new HashMap<>();
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            networks.put(g, new LocalNetwork<>(n));
        }
        networks.put(MulticastPosition.GLOBAL_STREAM, new LocalNetwork<>(n));
        PaxosConfig config = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(400))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        List<AtomicMulticast> processes = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            int self = p;
            processes.add(options.apply(PaxosMulticast.builder().self(self).members(n).groups(groups)
                    .streams(stream -> PaxosBroadcast.builder().config(config).self(self)
                            .transport(networks.get(stream).transport(self)).log(InMemoryDurableLog.create())
                            .clock(SystemClock.INSTANCE)
                            .options(RuntimeOptions.builder().waitStrategy(WaitStrategies.park()).build()).build())
                    .forwardTransport(forwards.apply(self)).meterRegistry(registries.get(p))).build());
        }
        return processes;
    }

    @Override
    protected List<AtomicMulticast> createCluster(int processes, GroupSet groups) {
        return cluster(processes, groups);
    }
}
