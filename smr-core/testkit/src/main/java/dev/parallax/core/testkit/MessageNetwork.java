package dev.parallax.core.testkit;

import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The point-to-point network of a {@link Simulation}: a message a node sends is seen by the send
 * observer, then lost to a partition ({@link LinkFaults}), a targeted drop rule or the fault plan's
 * random loss, else delivered after a random delay (and maybe a second time); on arrival it is lost
 * if its target crashed since or a partition now cuts the link, and a pause may hold or queue it
 * ({@link PauseModel}). A node's messages to itself arrive at once and are never lost.
 *
 * <p>Random draws, in this order per send: loss, delay, duplication (and the duplicate's delay);
 * drop rules and the observer draw nothing. Not thread-safe: only the simulation's single thread
 * uses it.
 */
final class MessageNetwork<M> {
    private final NodeTable<M> nodes;
    private final EventLoop loop;
    private final SimulationStats stats;
    private final SplittableRandom random;
    private final Supplier<FaultPlan> plan;
    private final Function<? super M, String> describer;
    private final LinkFaults<M> links;
    private final PauseModel<M> pauses;
    /** Targeted loss rules, in the order they were added. */
    private final DropRules<M> dropRules = new DropRules<>("messages");
    private Simulation.SendObserver<? super M> sendObserver;

    MessageNetwork(NodeTable<M> nodes, EventLoop loop, SimulationStats stats, SplittableRandom random,
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

    /** @throws IllegalArgumentException if either node is unknown or {@code from == to} */
    void dropMatching(int from, int to, Predicate<? super M> which) {
        dropRules.add(nodes, from, to, which);
    }

    void stopDropping() {
        dropRules.clear();
    }

    void observeSends(Simulation.SendObserver<? super M> observer) {
        this.sendObserver = observer;
    }

    void send(NodeSlot<M> from, int to, M message) {
        NodeSlot<M> target = nodes.find(to);
        if (target == null) {
            throw new IllegalArgumentException("node " + from.id + " sent to unknown node " + to);
        }
        if (sendObserver != null) {
            sendObserver.sent(from.id, to, message);
        }
        if (from.id == to) {
            deliverLater(from.id, target, target.incarnation, message, 0);
            return;
        }
        if (links.cut(from, target)) {
            stats.partitioned++;
            return;
        }
        if (dropRules.matches(from.id, to, message)) {
            stats.droppedByRule++;
            loop.record("drop by rule " + from.id + "->" + to + " " + describer.apply(message));
            return;
        }
        if (random.nextDouble() < plan.get().dropProbability()) {
            stats.dropped++;
            return;
        }
        deliverLater(from.id, target, target.incarnation, message, delay());
        if (random.nextDouble() < plan.get().duplicateProbability()) {
            stats.duplicated++;
            deliverLater(from.id, target, target.incarnation, message, delay());
        }
    }

    private long delay() {
        FaultPlan p = plan.get();
        long span = p.maxDelay() - p.minDelay();
        return p.minDelay() + (span == 0 ? 0 : random.nextLong(span + 1));
    }

    private void deliverLater(int from, NodeSlot<M> target, int incarnation, M message, long delay) {
        loop.push(new SimEvent(loop.now() + delay) {
            @Override
            String describe() {
                return "deliver " + from + "->" + target.id + " " + describer.apply(message);
            }

            @Override
            void run() {
                if (target.node == null || target.incarnation != incarnation || links.cut(nodes.find(from), target)) {
                    stats.partitioned++;
                    return;
                }
                if (pauses.pauseTakes(nodes.find(from), target, incarnation,
                        () -> deliverLater(from, target, incarnation, message, delay()),
                        () -> {
                            stats.delivered++;
                            target.node.onMessage(from, message);
                        })) {
                    return;
                }
                stats.delivered++;
                target.node.onMessage(from, message);
            }
        });
    }
}
