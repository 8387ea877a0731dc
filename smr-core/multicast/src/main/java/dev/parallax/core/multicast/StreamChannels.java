package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * The channels and logs one replica opened for a {@link StreamPlan} (each stream's transport and
 * log for the streams it runs, the forward channel when it needs one), and the multicast built over
 * them: {@link StreamOrdering}'s wiring, written once for every plan. Owns what it opened until
 * {@link #build} hands it to the multicast; {@link #close} releases it when the multicast was
 * never built.
 *
 * <p>Threads: opened on the thread creating the ordering; {@link #build} once, on the thread
 * starting the replica; {@link #close} by the owner. Not thread-safe; nothing blocks.
 */
final class StreamChannels<M> {
    private static final Logger LOG = LoggerFactory.getLogger(StreamChannels.class);

    private final StreamPlan<M> plan;
    private final OrderingContext context;
    private final int self;
    /** The group streams' ids in increasing order (the lanes), the global stream not included. */
    private final int[] groupStreams;
    /** Every stream id, the global stream last when there is one. */
    private final int[] ids;
    private final Map<Integer, Transport<M>> transports = new LinkedHashMap<>();
    private final Map<Integer, DurableLog> logs = new LinkedHashMap<>();
    private final Transport<MulticastForward> forward;
    /** The streams' member sets, when the plan changes them (else null). */
    private final StreamsMembership membership;

    private StreamChannels(StreamPlan<M> plan, OrderingContext context) {
        this.plan = plan;
        this.context = context;
        this.self = context.config().id();
        GroupSet groups = plan.groups();
        TreeSet<Integer> distinct = new TreeSet<>();
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            distinct.add(plan.streamOf(g));
        }
        this.groupStreams = distinct.stream().mapToInt(Integer::intValue).toArray();
        this.ids = groupStreams.length > 1 ? Arrays.copyOf(groupStreams, groupStreams.length + 1) : groupStreams;
        if (groupStreams.length > 1) {
            ids[groupStreams.length] = MulticastPosition.GLOBAL_STREAM;
        }
        boolean runsEvery = true;
        for (int id : ids) {
            if (runs(id)) {
                String name = plan.streamName(id);
                transports.put(id, plan.openTransport(context, id));
                logs.put(id, context.durableLog(name));
            } else {
                runsEvery = false; // a stream of another partition (seed 004 (S-SMR)): not run here
            }
        }
        // Forwards go to a stream's leader (Routing.LEADER) and, from a process that does not run
        // every stream, to a member of the stream it does not run.
        this.forward = plan.routing() == Routing.LEADER || !runsEvery
                ? context.transport(plan.forwardChannel(), new MulticastForwardCodec()) : null;
        this.membership = plan.changesMembers() ? new StreamsMembership() : null;
    }

    /** The streams' member sets for the operator, filled when the streams are built; null if the plan keeps them fixed. */
    StreamsMembership membership() {
        return membership;
    }

    /**
     * Opens, for the replica {@code context} describes, the channels and logs of the streams it
     * runs and, when needed, the forward channel.
     *
     * @throws IllegalArgumentException if the cluster's size is not the plan's
     */
    static <M> StreamChannels<M> open(StreamPlan<M> plan, OrderingContext context) {
        int n = context.config().members().size();
        if (n != plan.processes()) {
            throw new IllegalArgumentException(plan.name() + " configured for " + plan.processes() + " members, cluster has "
                    + n);
        }
        plan.check(context);
        return new StreamChannels<>(plan, context);
    }

    private boolean runs(int stream) {
        int[] members = plan.streamMembers(stream);
        return members == null || Arrays.stream(members).anyMatch(p -> p == self);
    }

    /** k: the group streams, one lane each. */
    int lanes() {
        return groupStreams.length;
    }

    /** The lane (0..k-1) of offered group {@code group}: the rank of its stream. */
    int laneOf(int group) {
        return Arrays.binarySearch(groupStreams, plan.streamOf(group));
    }

    /**
     * Builds and starts the multicast over the channels opened, which it then owns.
     *
     * @param threads       the streams' stage threads
     * @param requesters    each stream's snapshot requester, by stream id
     * @param subscriptions opened before the streams start, in order
     */
    ConfiguredMulticast build(StageThreads threads, IntFunction<SnapshotRequester> requesters,
                              List<MulticastBroadcast.InitialSubscription> subscriptions) {
        GroupSet groups = plan.groups();
        StreamMulticastBuilder b = StreamMulticast.builder().self(self).members(plan.origins()).groups(groups)
                .routing(plan.routing()).skips(plan.skips()).numbering(plan.numbering()).roundLength(plan.roundLength())
                .clock(context.clock()).meterRegistry(context.meterRegistry());
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            b.groupStream(g, plan.streamOf(g));
        }
        for (int id : ids) {
            int[] members = plan.streamMembers(id);
            if (members != null) {
                b.streamMembers(id, members);
            }
        }
        if (forward != null) {
            b.forwardTransport(forward);
        }
        Clock clock = plan.streamClock(context.clock());
        Map<Integer, StreamMembership> parts = new java.util.TreeMap<>();
        b.streams(stream -> {
            AtomicBroadcast broadcast = plan.broadcast(new StreamPlan.StreamParts<>(stream, self, transports.get(stream),
                    logs.get(stream), clock, plan.runtimeOptions(context).name(plan.streamName(stream)).threads(threads)
                            .snapshotRequester(requesters.apply(stream)).safetyAlarm(context.safetyAlarm()).build()));
            if (membership != null) {
                parts.put(stream, plan.streamMembership(stream, broadcast));
            }
            return broadcast;
        });
        Map<Integer, byte[]> states = new java.util.TreeMap<>();
        for (MulticastBroadcast.InitialSubscription s : subscriptions) {
            b.initialSubscription(s.groups(), s.from(), s.listener());
            states.putAll(s.streamStates());
        }
        b.streamStates(states);
        Planned built = new Planned(b.build());
        if (membership != null) {
            Map<String, StreamMembership> named = new LinkedHashMap<>();
            for (int id : ids) {
                if (parts.containsKey(id)) {
                    named.put(plan.streamName(id), parts.get(id));
                }
            }
            membership.started(named);
        }
        return built;
    }

    /** Releases every channel and log opened (the multicast was never built); failures are logged. */
    void close() {
        if (forward != null) {
            closeQuietly(forward);
        }
        transports.values().forEach(StreamChannels::closeQuietly);
        logs.values().forEach(StreamChannels::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed", c, e);
        }
    }

    /** A plan's multicast: everything is the generic multicast's. */
    private static final class Planned extends ConfiguredMulticast {
        Planned(StreamMulticast multicast) {
            super(multicast);
        }
    }
}
