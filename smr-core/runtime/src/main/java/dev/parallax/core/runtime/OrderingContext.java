package dev.parallax.core.runtime;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.protocol.SafetyAlarm;
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
     * A datagram group named {@code channel}: every member joins the IPv4 multicast group of
     * {@code config} and a {@link Transport#sendDatagram sendDatagram(0, m)} sends {@code m}, encoded by
     * {@code codec}, as one unreliable datagram to every other member (lost, duplicated or
     * reordered; never back to the sender). {@link Transport#send} is not supported (use a
     * {@link #transport} channel for point-to-point messages). Datagrams of another cluster sharing
     * the group and port are ignored (they carry a tag of the cluster's membership); arrivals are
     * stamped like a channel's. Seed 003 (Ring Paxos) §3.3.2: M-Ring's Phase 2A and decisions travel
     * by ip-multicast.
     *
     * <p>The default has no datagram groups.
     *
     * @param channel 1..64 characters of {@code [a-z0-9.-]}, the {@code channel} tag of its meters
     * @throws IllegalArgumentException      if the name is malformed or already taken in this process
     * @throws IllegalStateException         if the group cannot be joined (no such interface, socket error)
     * @throws UnsupportedOperationException if this context has no datagram groups
     */
    default <M> Transport<M> datagramGroup(String channel, MessageCodec<M> codec, DatagramGroupConfig config) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no datagram groups");
    }

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

    /**
     * The replica's hook for a safety alarm ({@link dev.parallax.core.protocol.SafetyViolation}):
     * it stops the replica serving clients and executing. A protocol hands it to every runtime it
     * builds ({@link RuntimeOptions#forReplica} does). Default: {@link SafetyAlarm#NONE} (the
     * protocol stage still stops its core, counts and logs).
     */
    default SafetyAlarm safetyAlarm() {
        return SafetyAlarm.NONE;
    }
}
