package dev.parallax.core.testkit.cluster;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.net.ReplicaPort;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.HashMap;
import java.util.Map;

/**
 * An {@link OrderingContext} for one member of a local test cluster, without a whole replica: a
 * real {@link ReplicaPort} on loopback (named channels), named in-memory logs whose storage
 * survives a {@link #close} (so a test can restart the member over it), a private meter registry
 * and stage threads of the given placement. Lets a protocol module run several cores in one
 * process the way a replica does.
 *
 * <p>Thread-safe for what the context contract asks; {@link #close} once.
 */
public final class PortContext implements OrderingContext, AutoCloseable {
    private final ReplicaConfig config;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final StageThreads threads;
    private final ReplicaPort port;
    private final Map<String, InMemoryDurableLog.Storage> disks;

    /**
     * @param disks where named logs keep their records, by name; shared across restarts of the member
     */
    public PortContext(ClusterMembers members, int id, ThreadPlacement placement, Map<String, InMemoryDurableLog.Storage> disks) {
        this.config = ReplicaConfig.builder().id(id).members(members).build();
        this.threads = StageThreads.builder(placement).meterRegistry(registry).threadNamePrefix("member-" + id + "-").build();
        this.port = new ReplicaPort(config, registry, threads, SystemClock.INSTANCE);
        this.disks = disks;
    }

    /** A member with fresh storage. */
    public PortContext(ClusterMembers members, int id, ThreadPlacement placement) {
        this(members, id, placement, new HashMap<>());
    }

    @Override
    public ReplicaConfig config() {
        return config;
    }

    @Override
    public <M> Transport<M> transport(String channel, MessageCodec<M> codec) {
        return port.channel(channel, codec);
    }

    @Override
    public DurableLog durableLog(String name) {
        synchronized (disks) {
            return InMemoryDurableLog.open(disks.computeIfAbsent(name, n -> new InMemoryDurableLog.Storage()));
        }
    }

    @Override
    public Clock clock() {
        return SystemClock.INSTANCE;
    }

    @Override
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public SnapshotRequester snapshotRequester() {
        return SnapshotRequester.NONE;
    }


    @Override
    public StageThreads stageThreads() {
        return threads;
    }

    /** Closes the port and every stage thread (protocols built on the context are closed first by the test). */
    @Override
    public void close() {
        port.close();
        threads.close();
    }
}
