package dev.parallax.core.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The datagram channel of a {@link Simulation}: group membership and one-to-group datagrams, the
 * unreliable IP multicast M-Ring Paxos disseminates values with (seed 003 (Ring Paxos) §3.3.2). A datagram above the
 * plan's packet size is refused; otherwise each current member independently loses, delays or
 * duplicates its copy as the fault plan's {@link DatagramPlan} says, members across a partition
 * ({@link LinkFaults}) get nothing, and a pause may hold or queue a copy ({@link PauseModel}).
 * Membership belongs to an incarnation: a crash ends it ({@link #leaveAll}).
 *
 * <p>Random numbers are drawn only when a node sends a datagram (per member, in id order: loss,
 * delay, duplication and the duplicate's delay), so a run that never sends one draws nothing here.
 * Not thread-safe: only the simulation's single thread uses it.
 */
final class DatagramGroups<M> {
    private final NodeTable<M> nodes;
    private final EventLoop loop;
    private final SimulationStats stats;
    private final SplittableRandom random;
    private final Supplier<FaultPlan> plan;
    private final Function<? super M, String> describer;
    private final LinkFaults<M> links;
    private final PauseModel<M> pauses;
    private final Map<Integer, Set<Integer>> groups = new TreeMap<>();
    private ToIntFunction<? super M> datagramSizer;
    /** Targeted datagram loss rules, in the order they were added. */
    private final DropRules<M> datagramDropRules = new DropRules<>("datagrams");
    private Simulation.DatagramObserver<? super M> datagramObserver;

    DatagramGroups(NodeTable<M> nodes, EventLoop loop, SimulationStats stats, SplittableRandom random,
                   Supplier<FaultPlan> plan, Function<? super M, String> describer, LinkFaults<M> links,
                   PauseModel<M> pauses) {
        this.nodes = nodes;
        this.loop = loop;
        this.stats = stats;
        this.random = random;
        this.plan = plan;
        this.describer = describer;
        this.links = links;
        this.pauses = pauses;
    }

    void measureWith(ToIntFunction<? super M> sizer) {
        this.datagramSizer = Objects.requireNonNull(sizer);
    }

    /** The members of {@code group} now, in id order (a copy). */
    Set<Integer> members(int group) {
        Set<Integer> members = groups.get(group);
        return members == null ? Set.of() : new TreeSet<>(members);
    }

    /** @throws IllegalArgumentException if either node is unknown or {@code from == to} */
    void dropMatching(int from, int to, Predicate<? super M> which) {
        datagramDropRules.add(nodes, from, to, which);
    }

    void stopDropping() {
        datagramDropRules.clear();
    }

    void observe(Simulation.DatagramObserver<? super M> observer) {
        this.datagramObserver = observer;
    }

    void join(NodeSlot<M> s, int group) {
        groups.computeIfAbsent(group, g -> new TreeSet<>()).add(s.id);
    }

    void leave(NodeSlot<M> s, int group) {
        Set<Integer> members = groups.get(group);
        if (members != null) {
            members.remove(s.id);
        }
    }

    /** Removes node {@code id} from every group: its incarnation crashed. */
    void leaveAll(int id) {
        for (Set<Integer> members : groups.values()) {
            members.remove(id);
        }
    }

    private boolean isMember(int id, int group) {
        Set<Integer> members = groups.get(group);
        return members != null && members.contains(id);
    }

    /** Sends one datagram to every member of {@code group}; {@code false} if refused as oversize. */
    boolean send(NodeSlot<M> from, int group, M message) {
        DatagramPlan dp = plan.get().datagrams();
        int size = datagramSizer != null ? datagramSizer.applyAsInt(message)
                : describer.apply(message).getBytes(StandardCharsets.UTF_8).length;
        if (size > dp.maxPacketSize()) {
            stats.datagramsRefused++;
            loop.record("refuse datagram " + from.id + "->g" + group + " of " + size + " bytes");
            return false;
        }
        stats.datagramsSent++;
        if (datagramObserver != null) {
            datagramObserver.sent(from.id, group, message);
        }
        Set<Integer> members = groups.get(group);
        if (members == null) {
            return true;
        }
        for (int to : members) {
            NodeSlot<M> target = nodes.find(to);
            if (to == from.id) {
                deliverLater(from.id, group, target, target.incarnation, message, 0);
                continue;
            }
            if (links.cut(from, target)) {
                stats.datagramsCut++;
                continue;
            }
            if (datagramDropRules.matches(from.id, to, message)) {
                stats.droppedByRule++;
                loop.record("drop datagram by rule " + from.id + "->" + to + " g" + group + " "
                        + describer.apply(message));
                continue;
            }
            if (random.nextDouble() < dp.lossProbability()) {
                stats.datagramsLost++;
                continue;
            }
            deliverLater(from.id, group, target, target.incarnation, message, delay(dp));
            if (random.nextDouble() < dp.duplicateProbability()) {
                stats.datagramsDuplicated++;
                deliverLater(from.id, group, target, target.incarnation, message, delay(dp));
            }
        }
        return true;
    }

    private long delay(DatagramPlan dp) {
        long span = dp.maxDelay() - dp.minDelay();
        return dp.minDelay() + (span == 0 ? 0 : random.nextLong(span + 1));
    }

    private void deliverLater(int from, int group, NodeSlot<M> target, int incarnation, M message, long delay) {
        loop.push(new SimEvent(loop.now() + delay) {
            @Override
            String describe() {
                return "datagram " + from + "->" + target.id + " g" + group + " " + describer.apply(message);
            }

            @Override
            void run() {
                if (target.node == null || target.incarnation != incarnation || links.cut(nodes.find(from), target)
                        || !isMember(target.id, group)) {
                    stats.datagramsCut++;
                    return;
                }
                if (pauses.pauseTakes(nodes.find(from), target, incarnation,
                        () -> deliverLater(from, group, target, incarnation, message, delay(plan.get().datagrams())),
                        () -> {
                            stats.datagramsDelivered++;
                            target.node.onDatagram(from, group, message);
                        })) {
                    return;
                }
                stats.datagramsDelivered++;
                target.node.onDatagram(from, group, message);
            }
        });
    }
}
