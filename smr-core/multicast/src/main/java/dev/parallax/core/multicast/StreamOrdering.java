package dev.parallax.core.multicast;

import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;

import java.util.List;
import java.util.Objects;

/**
 * Any stream-based atomic multicast (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1) as a
 * replica's ordering protocol: a {@link MulticastBroadcast} (one lane per group stream, the
 * global stream's lane last) over the {@link StreamMulticast} its {@link StreamPlan} describes.
 * Multi-Paxos per group ({@code MulticastOrdering.protocol}, smr-paxos) and Multi-Ring Paxos
 * ({@code MultiRing.protocol}, smr-ringpaxos) are each a plan.
 *
 * <p>{@link #create} opens, while the context is valid, every stream's replica-port channel and log
 * (both named {@link StreamPlan#streamName}) for the streams this replica runs, and the forward
 * channel ({@link StreamPlan#forwardChannel}) when messages may need forwarding; the broadcast
 * builds the streams when started. A stream that needs a snapshot (its peers compacted what it
 * lacks) asks the replica for any snapshot newer than what the broadcast delivered, from the
 * replica {@link StreamPlan#snapshotPeer} names; the snapshot's merge position then moves every
 * stream.
 *
 * <p>Immutable and thread-safe; {@link #create} and {@link #multicast} build new, unstarted (resp.
 * started) objects on each call, without blocking.
 *
 * @param <M> the message type of one stream's transport
 */
public final class StreamOrdering<M> implements OrderingProtocol {
    private final StreamPlan<M> plan;

    private StreamOrdering(StreamPlan<M> plan) {
        this.plan = Objects.requireNonNull(plan, "plan");
    }

    /** The ordering protocol of {@code plan}. */
    public static <M> StreamOrdering<M> of(StreamPlan<M> plan) {
        return new StreamOrdering<>(plan);
    }

    /** The plan. */
    public StreamPlan<M> plan() {
        return plan;
    }

    @Override
    public String name() {
        return plan.name();
    }

    @Override
    public int batchBytes() {
        return plan.batchBytes();
    }

    @Override
    public long batchTimeoutNanos() {
        return plan.batchTimeoutNanos();
    }

    /**
     * Opens the streams' channels and logs (while the context is valid) and returns the
     * broadcast, which builds the streams when started.
     *
     * @throws IllegalArgumentException if the member counts differ, or the plan refuses the replica
     */
    @Override
    public AtomicBroadcast create(OrderingContext context) {
        StreamChannels<M> channels = StreamChannels.open(plan, context);
        int self = context.config().id();
        StageThreads threads = streamThreads(context);
        SnapshotRequester replica = context.snapshotRequester();
        MulticastBroadcast[] broadcast = new MulticastBroadcast[1];
        MulticastBroadcast.MulticastFactory factory = subscriptions -> channels.build(threads,
                stream -> (peer, instance) -> replica.request(plan.snapshotPeer(self, stream, peer),
                        broadcast[0].nextSequence() + 1), subscriptions);
        broadcast[0] = new MulticastBroadcast(self, plan.groups(), plan.subscribed(self), channels.lanes(),
                channels::laneOf, factory, channels::close);
        if (threads != context.stageThreads()) {
            broadcast[0].closeAfter(threads);
        }
        if (channels.membership() != null) {
            broadcast[0].membership(channels.membership());
        }
        return broadcast[0];
    }

    /**
     * The plan's multicast alone, built and started for the replica {@code context} describes, on
     * the replica's stage threads, not subscribed: a subscriber other than the replica's own
     * pipeline merges it. A stream needing a snapshot asks the replica's requester directly.
     *
     * @throws IllegalArgumentException if the member counts differ, or the plan refuses the replica
     */
    public ConfiguredMulticast multicast(OrderingContext context) {
        StreamChannels<M> channels = StreamChannels.open(plan, context);
        int self = context.config().id();
        SnapshotRequester replica = context.snapshotRequester();
        try {
            return channels.build(context.stageThreads(),
                    stream -> (peer, instance) -> replica.request(plan.snapshotPeer(self, stream, peer), instance), List.of());
        } catch (RuntimeException e) {
            channels.close();
            throw e;
        }
    }

    /**
     * The stage threads for the streams of a merged multicast in a replica: the replica's own,
     * unless they are compact. A stream's delivery stage blocks while the merge's history of that
     * stream is full of values a subscription still needs; the subscription waits for the
     * replica's execution and for the other streams' decisions. Under the compact placement the
     * streams' delivery stages would share the replica's pipeline thread with execution and with
     * each other: a cycle. They then get staged threads of their own, closed after the streams.
     */
    private static StageThreads streamThreads(OrderingContext context) {
        return context.stageThreads().placement() == ThreadPlacement.COMPACT
                ? StageThreads.builder(ThreadPlacement.STAGED).threadNamePrefix("replica-" + context.config().id() + "-")
                        .meterRegistry(context.meterRegistry()).build()
                : context.stageThreads();
    }

    @Override
    public String toString() {
        return plan.toString();
    }
}
