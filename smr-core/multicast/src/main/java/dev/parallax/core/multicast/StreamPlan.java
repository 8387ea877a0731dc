package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;

/**
 * What one stream-based atomic multicast protocol (seed 003 (Ring Paxos / Multi-Ring / P-SMR)
 * ch. 5, Alg. 1: one consensus instance per stream, merged deterministically) tells
 * {@link StreamOrdering}, which wires every such protocol into a replica the same way. A plan
 * names
 * <ul>
 *   <li>the streams: the groups offered, the stream ordering each group ({@link #streamOf}) and the
 *       processes running each stream ({@link #streamMembers}); the global stream is added when
 *       there are several;</li>
 *   <li>the strategies of the merge ({@link #routing}, {@link #skips}, {@link #numbering},
 *       {@link #roundLength});</li>
 *   <li>the replica-port channel and log of each stream ({@link #streamName}) and the forward
 *       channel ({@link #forwardChannel});</li>
 *   <li>how one stream's transport is opened ({@link #openTransport}) and its broadcast built
 *       ({@link #broadcast}).</li>
 * </ul>
 * Multi-Paxos per group is smr-paxos' {@code PaxosStreamPlan}; Multi-Ring Paxos is smr-ringpaxos'
 * {@code MultiRingPlan}.
 *
 * <p>Threads and blocking: implementations are immutable and thread-safe, and no method blocks.
 * {@link #check} and {@link #openTransport} are called on the thread that creates the replica's
 * ordering (while its {@link OrderingContext} is valid); {@link #broadcast} on the thread that
 * starts it; {@link #snapshotPeer} on a stream's protocol thread.
 *
 * @param <M> the message type of one stream's transport
 */
public interface StreamPlan<M> {

    /** The protocol name (cluster files' {@code ordering=}), for logs and errors. */
    String name();

    /** BSZ, bytes, the replica's batcher closes a lane's batch at; see {@code OrderingProtocol.batchBytes}. */
    int batchBytes();

    /** The batch time-out in nanoseconds; see {@code OrderingProtocol.batchTimeoutNanos}. */
    long batchTimeoutNanos();

    /** How many processes the plan is configured for: the cluster must have as many replicas. */
    int processes();

    /** The groups offered. */
    GroupSet groups();

    /**
     * The stream id (0..{@link GroupSet#MAX_GROUP}) ordering offered group {@code group}; several
     * groups may share one.
     */
    int streamOf(int group);

    /**
     * The processes running stream {@code stream} (a stream id, or
     * {@link dev.parallax.core.spi.MulticastPosition#GLOBAL_STREAM}), or null for every process.
     */
    default int[] streamMembers(int stream) {
        return null;
    }

    /** The groups a replica {@code self} delivers: every offered group unless it runs fewer streams. */
    default GroupSet subscribed(int self) {
        return groups();
    }

    /** Where a message is handed for ordering. */
    Routing routing();

    /** Who keeps idle streams level. */
    SkipPolicy skips();

    /** How the merge numbers a stream's values. */
    Numbering numbering();

    /** M: indices the merge takes from each stream in turn; default 1. */
    default int roundLength() {
        return 1;
    }

    /** The replica-port channel and the log of stream {@code stream}. */
    String streamName(int stream);

    /** The replica-port channel forwards (and decided notices) travel on. */
    String forwardChannel();

    /**
     * Checks (or warns about) the replica's configuration before anything is opened; default none.
     *
     * @throws IllegalArgumentException if the plan cannot run in this replica
     */
    default void check(OrderingContext context) {
    }

    /**
     * Opens the channels of stream {@code stream}, which this process runs (the channel
     * {@link #streamName}, and any datagram group of it).
     */
    Transport<M> openTransport(OrderingContext context, int stream);

    /**
     * The runtime options every stream starts from (name, threads and snapshot requester are set
     * by {@link StreamOrdering}); default {@link RuntimeOptions#forReplica}.
     */
    default RuntimeOptions.Builder runtimeOptions(OrderingContext context) {
        return RuntimeOptions.forReplica(context);
    }

    /** The clock the streams run on, given the replica's; default the replica's. */
    default Clock streamClock(Clock clock) {
        return clock;
    }

    /**
     * The replica to ask for a snapshot when {@code peer} (a member id of stream {@code stream})
     * compacted what replica {@code self} lacks; default {@code peer}.
     */
    default int snapshotPeer(int self, int stream, int peer) {
        return peer;
    }

    /** Builds stream {@code parts.id()}'s broadcast, not started; the multicast owns it. */
    AtomicBroadcast broadcast(StreamParts<M> parts);

    /**
     * The process ids that may take part, {@code 0..origins()-1}: the origins of messages and the
     * members of streams. Default {@link #processes()}; more where replicas join at run time
     * ({@link #changesMembers()}).
     */
    default int origins() {
        return processes();
    }

    /** Whether the streams change their members at run time ({@link #streamMembership}); default false. */
    default boolean changesMembers() {
        return false;
    }

    /**
     * The member set of stream {@code stream} whose broadcast is {@code broadcast}, in replica ids,
     * for the operator ({@link StreamsMembership}); called once per stream this replica runs, when
     * the streams are built, only if {@link #changesMembers()}.
     *
     * @throws UnsupportedOperationException by default
     */
    default StreamMembership streamMembership(int stream, AtomicBroadcast broadcast) {
        throw new UnsupportedOperationException(name() + " keeps its streams' members fixed");
    }

    /**
     * What {@link StreamOrdering} opened for one stream this process runs.
     *
     * @param id        the stream id
     * @param self      this replica's id
     * @param transport the stream's transport ({@link #openTransport})
     * @param log       the stream's log, named {@link #streamName}
     * @param clock     the streams' clock ({@link #streamClock})
     * @param options   the stream's runtime options
     * @param <M>       the transport's message type
     */
    record StreamParts<M>(int id, int self, Transport<M> transport, DurableLog log, Clock clock, RuntimeOptions options) {
    }
}
