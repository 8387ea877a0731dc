package dev.parallax.core.runtime;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a replica gives an {@link OrderingProtocol} to build its broadcast from: named channels on
 * the one replica port, named durable logs, the clock, the meter registry and the snapshot
 * service. A protocol may run several cores, each on its own channel and log (S-Paxos:
 * dissemination and ordering; Multi-Ring Paxos: one ring per group).
 *
 * <p>Threads: used on the thread that starts the replica, during
 * {@link OrderingProtocol#create}. What it returns follows its own contract.
 */
public interface OrderingContext {

    /** The name of a protocol's main log: the {@code log} directory under the data directory. */
    String MAIN_LOG = "log";

    ReplicaConfig config();

    /**
     * A replica-to-replica channel named {@code channel} on the replica port, carrying messages
     * encoded by {@code codec}. Channels are matched by name between replicas; each has its own
     * bounded send queues and metrics tag ({@code channel=<name>}).
     *
     * @param channel 1..64 characters of {@code [a-z0-9.-]}
     * @throws IllegalArgumentException if the name is malformed or already taken in this process
     */
    <M> Transport<M> transport(String channel, MessageCodec<M> codec);

    /**
     * The durable log named {@code name}: the directory {@code <data dir>/<name>} (a log kept in
     * memory when the replica has no data directory). {@link #MAIN_LOG} is where a single-log
     * protocol keeps its records.
     *
     * @param name 1..64 characters of {@code [a-z0-9.-]}
     * @throws IllegalArgumentException if the name is malformed or already opened in this process
     */
    DurableLog durableLog(String name);

    Clock clock();

    MeterRegistry meterRegistry();

    /** Where the protocol reports that this replica needs a peer's snapshot. Non-blocking. */
    SnapshotRequester snapshotRequester();

    /**
     * The replica's stage placement: protocols run their stages here ({@code StageThreads.run}),
     * so that one {@code threads=} setting places every pipeline stage of the process.
     */
    StageThreads stageThreads();
}
