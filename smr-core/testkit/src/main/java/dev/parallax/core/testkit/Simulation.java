package dev.parallax.core.testkit;

import dev.parallax.core.log.memory.InMemoryDurableLog;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * A deterministic simulation of a set of nodes over a virtual clock and an in-memory network.
 * Every choice (message delay, loss, duplication, the nemesis' partitions, crashes and restarts,
 * tick phases) is drawn from one {@link SplittableRandom} seeded with {@link #seed()}, and events
 * run one at a time in (time, scheduling order) order, so the same seed and the same node code give
 * the same run, event for event. {@link #traceHash()} fingerprints the run to check that.
 *
 * <p>Crash and restart: a crashed node's volatile state (its {@link SimNode} object) is dropped;
 * its {@link InMemoryDurableLog.Storage} keeps every synced record and a random number of the
 * unsynced ones after them, as a disk would. Messages addressed to a node before it crashed are not
 * delivered to its next incarnation (its connections broke); messages a node sent before crashing
 * may still arrive.
 *
 * <p>Partitions split the crashable nodes (replicas) into two sides; nodes added as not crashable
 * (clients) stay connected to every side. Partial partitions cut links one way
 * or between two groups only: {@link #cutLink} loses what one node sends another (one direction),
 * {@link #cutInbound} / {@link #cutOutbound} everything a node receives from / sends to the other
 * crashable nodes, and {@link #bridge} cuts two groups from each other while the nodes in neither
 * group reach both. A message is lost if any active cut covers its direction, checked when it is
 * sent and again when it arrives. With {@link FaultPlan#partialPartitions()} the nemesis picks
 * among a two-sided partition, a one-way cut of a node's inbound or outbound links and a bridge
 * (and the leader-hunting nemesis aims each shape at the leader); without it, it draws exactly what
 * it drew before these shapes existed.
 *
 * <p>Datagrams: besides point-to-point links, nodes may join datagram groups and send
 * one datagram to a whole group ({@link NodeContext#sendDatagram}), the unreliable IP multicast
 * M-Ring Paxos uses (seed 003 (Ring Paxos / Multi-Ring / P-SMR) §3.3.2). Each member draws its own
 * loss, delay and duplication from the plan's {@link DatagramPlan}; datagrams above its packet size
 * are refused. Random numbers are drawn for datagrams only when a node sends one, so a run that
 * never sends one draws exactly what it drew before the channel existed and keeps its trace.
 *
 * <p>Leader churn: with {@link #targetLeader}, a share of the nemesis' actions crash or isolate
 * the node the scenario names as its current leader, so that view changes happen under load
 * rather than only when a random crash happens to hit the leader.
 *
 * <p>Process faults ({@link #processFaults}, {@link ProcessFaults}): the nemesis may also pause a
 * replica for seconds ({@link #pause}: it processes nothing, arrivals queue up, what it had sent but
 * not yet delivered leaves only when it resumes) and crash every replica at once, restarting each
 * after its own downtime ({@link #crashAll}). Off by default: a simulation without them draws no
 * random number for them and replays its trace as before they existed.
 *
 * <p>Targeted loss ({@link #dropMatching}): a test may lose exactly the messages one node sends
 * another that match a predicate (every FORWARD of one origin to one replica, say), until
 * {@link #stopDropping}. It is decided when the message is sent, before any random draw, and draws
 * nothing itself, so a run whose rules never match replays its trace unchanged. {@link #observeSends}
 * lets a test see every message a node hands to the network (to count bytes, say), also drawing
 * nothing. The datagram channel has the same two: {@link #dropDatagramsMatching} loses exactly the
 * datagrams of one sender to one group member that match a predicate, and {@link #observeDatagrams}
 * sees every datagram a node sends; neither draws a random number.
 *
 * <p>A throwable from a node or an invariant ends the run with a {@link SimulationFailure} that
 * names the seed and shows the last events.
 *
 * <p>Not thread-safe: one test thread drives it; nodes run on that thread.
 *
 * @param <M> the network's message type (immutable values with a deterministic {@code toString})
 */
public final class Simulation<M> {
    /** Trace lines a failure shows: {@code -Dsim.traceTail=N} (default 60) to see further back when replaying a seed. */
    private static final int TRACE_TAIL = Math.max(1, Integer.getInteger("sim.traceTail", 60));

    private final long seed;
    private final SplittableRandom random;
    private final SimulationStats stats = new SimulationStats();
    private final TraceRecorder trace = new TraceRecorder(TRACE_TAIL);
    private FaultPlan plan;
    private Function<? super M, String> describer = String::valueOf;
    private final EventLoop loop;
    private final NodeTable<M> nodes = new NodeTable<>();
    private final LinkFaults<M> links;
    private final PauseModel<M> pauses;
    private final MessageNetwork<M> network;
    private final DatagramGroups<M> datagrams;
    private final NodeProcesses<M> processes;
    private final Nemesis<M> nemesis;

    /** What {@link #observeSends} sees: a message a node handed to the network, before any loss. */
    @FunctionalInterface
    public interface SendObserver<M> {
        void sent(int from, int to, M message);
    }

    /** What {@link #observeDatagrams} sees: a datagram a node sent to a group, before any loss. */
    @FunctionalInterface
    public interface DatagramObserver<M> {
        void sent(int from, int group, M message);
    }

    /** A simulation with the given seed and fault plan; the nemesis runs if the plan enables it. */
    public Simulation(long seed, FaultPlan plan) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.plan = Objects.requireNonNull(plan, "plan");
        Supplier<FaultPlan> currentPlan = () -> this.plan;
        Function<M, String> describe = m -> describer.apply(m);
        this.loop = new EventLoop(seed, stats, trace);
        this.links = new LinkFaults<>(nodes, loop, stats);
        this.pauses = new PauseModel<>(nodes, loop, stats);
        this.network = new MessageNetwork<>(nodes, loop, stats, random, currentPlan, describe, links, pauses);
        this.datagrams = new DatagramGroups<>(nodes, loop, stats, random, currentPlan, describe, links, pauses);
        this.processes = new NodeProcesses<>(nodes, loop, stats, random, currentPlan, network, datagrams);
        this.nemesis = new Nemesis<>(nodes, loop, stats, random, currentPlan, links, pauses, processes);
        if (plan.nemesisInterval() > 0) {
            nemesis.start();
        }
    }

    public long seed() {
        return seed;
    }

    /** The seeded random source, for scenario choices (client workloads) that must replay too. */
    public SplittableRandom random() {
        return random;
    }

    /** Virtual time in nanoseconds. */
    public long now() {
        return loop.now();
    }

    public VirtualClock clock() {
        return loop.clock();
    }

    public SimulationStats stats() {
        return stats;
    }

    /** How messages appear in the trace; default {@code String.valueOf}. Must be deterministic. */
    public void describeMessagesWith(Function<? super M, String> describer) {
        this.describer = Objects.requireNonNull(describer);
    }

    /**
     * How many bytes a datagram takes, checked against {@link DatagramPlan#maxPacketSize()}; use
     * the protocol's codec (its encoded length). Default: the UTF-8 length of the message's trace
     * description ({@link #describeMessagesWith}), a stand-in for tests without a codec. Must be
     * deterministic.
     */
    public void measureDatagramsWith(ToIntFunction<? super M> sizer) {
        datagrams.measureWith(sizer);
    }

    /** The members of datagram group {@code group} now, in id order (a copy). */
    public Set<Integer> groupMembers(int group) {
        return datagrams.members(group);
    }

    /** Replaces the fault plan from now on (for example to calm the network before a liveness check). */
    public void setFaultPlan(FaultPlan plan) {
        this.plan = Objects.requireNonNull(plan);
    }

    /**
     * Makes the nemesis hunt the leader: each nemesis action, with probability {@code share},
     * crashes or isolates (partitions alone) the node {@code currentLeader} names, when it names an
     * up crashable node and the plan allows the fault; otherwise the action is a random one as
     * usual. The oracle is called on the simulation thread and must be deterministic.
     *
     * @param currentLeader the current leader's id, or a negative number if there is none
     * @param share         in [0, 1]
     * @throws IllegalArgumentException if {@code share} is outside [0, 1]
     */
    public void targetLeader(IntSupplier currentLeader, double share) {
        if (share < 0 || share > 1) {
            throw new IllegalArgumentException("share must be in [0,1]: " + share);
        }
        nemesis.targetLeader(Objects.requireNonNull(currentLeader, "currentLeader"), share);
    }

    /**
     * Makes the nemesis pause replicas and crash all of them too, as {@code faults} says (see
     * {@link ProcessFaults}); {@code null} turns it off.
     */
    public void processFaults(ProcessFaults faults) {
        nemesis.processFaults(faults);
    }

    /**
     * Adds a node and starts it now (so the nodes it sends to from {@link SimNode#onStart} must
     * already have been added).
     *
     * @param crashable whether the nemesis may crash and partition it (replicas); clients are not
     * @throws IllegalArgumentException if the id is taken
     */
    public void addNode(int id, NodeFactory<M> factory, boolean crashable) {
        processes.add(id, factory, crashable);
    }

    /** A check run after every event; a throw fails the run with the seed. */
    public void addInvariant(Runnable invariant) {
        loop.addInvariant(invariant);
    }

    /** Runs {@code action} at virtual time {@code now() + delay}, in order with network events. */
    public void schedule(long delay, String label, Runnable action) {
        loop.schedule(delay, label, action);
    }

    /** Runs every event up to virtual time {@code time}, then sets the clock there. */
    public void runUntil(long time) {
        loop.runUntil(time);
    }

    /** Runs for {@code duration} virtual nanoseconds. */
    public void runFor(long duration) {
        runUntil(now() + duration);
    }

    /**
     * Runs until {@code done} holds (checked after every event) or virtual time passes
     * {@code deadline}.
     *
     * @return whether {@code done} held
     */
    public boolean runUntil(BooleanSupplier done, long deadline) {
        return loop.runUntil(done, deadline);
    }

    /** The node currently running as {@code id}, or {@code null} if it is down. */
    @SuppressWarnings("unchecked")
    public <N extends SimNode<M>> N node(int id) {
        return (N) nodes.slot(id).node;
    }

    public boolean isUp(int id) {
        return nodes.slot(id).node != null;
    }

    /** The durable storage of node {@code id} (survives its crashes). */
    public InMemoryDurableLog.Storage storage(int id) {
        return nodes.slot(id).storage;
    }

    /** Ids of every node, in order. */
    public Set<Integer> nodeIds() {
        return nodes.ids();
    }

    /** Crashes node {@code id} now (no-op if down). */
    public void crash(int id) {
        processes.crash(id);
    }

    /**
     * Crashes node {@code id} now for good: no restart, by the nemesis or at the heal (a replica
     * whose disk died; a membership change replaces it by a new node). The nemesis counts it as down.
     */
    public void retire(int id) {
        processes.retire(id);
    }

    /** Restarts node {@code id} now (no-op if up or retired). */
    public void restart(int id) {
        processes.restart(id);
    }

    /** Cuts the network between {@code side} and the other crashable nodes. */
    public void partition(Collection<Integer> side) {
        links.partition(side);
    }

    /** Removes any partition, two-sided or partial. */
    public void heal() {
        links.heal();
    }

    /**
     * Loses every message {@code from} sends {@code to} (one direction) until {@link #heal}: a
     * one-way link failure. Both must be crashable nodes; clients are never cut.
     *
     * @throws IllegalArgumentException if either is unknown or not crashable, or they are the same
     */
    public void cutLink(int from, int to) {
        links.cutLink(from, to);
    }

    /** Cuts every link into {@code node} from the other crashable nodes: it sends but hears nothing. */
    public void cutInbound(int node) {
        links.cutInbound(node);
    }

    /** Cuts every link out of {@code node} to the other crashable nodes: it hears but reaches nobody. */
    public void cutOutbound(int node) {
        links.cutOutbound(node);
    }

    /**
     * A bridge partition: cuts every link between {@code sideA} and {@code sideB}, both directions;
     * the crashable nodes in neither side (the bridge) still reach both sides.
     *
     * @throws IllegalArgumentException if the sides are empty or overlap
     */
    public void bridge(Collection<Integer> sideA, Collection<Integer> sideB) {
        links.bridge(sideA, sideB);
    }

    /**
     * Loses every message {@code from} sends {@code to} that {@code which} accepts, from now until
     * {@link #stopDropping}; counted in {@link SimulationStats#droppedByRule()}. The rule is applied
     * when the message is sent, before the plan's random loss, and draws no random number, so a
     * rule that matches nothing leaves the run (and its {@link #traceHash}) exactly as without it;
     * each message it drops leaves a trace line.
     * Rules add up; {@link #heal} and {@link #stopFaults} leave them in place. Clients may be
     * either end; a node's messages to itself are never dropped.
     *
     * @param which called on the simulation thread; must be deterministic
     * @throws IllegalArgumentException if either node is unknown or {@code from == to}
     */
    public void dropMatching(int from, int to, Predicate<? super M> which) {
        network.dropMatching(from, to, which);
    }

    /**
     * Loses every datagram {@code from} sends that would reach group member {@code to} and that
     * {@code which} accepts, from now until {@link #stopDropping}; counted in
     * {@link SimulationStats#droppedByRule()}. Applied per member when the datagram is sent, after
     * partitions and before the plan's random loss for that member, and draws no random number, so
     * a rule that matches nothing leaves the run (and its {@link #traceHash}) exactly as without it;
     * each datagram it drops leaves a trace line. Rules add up; {@link #heal} and {@link #stopFaults}
     * leave them in place. A node's datagrams to itself are never dropped.
     *
     * @param which called on the simulation thread; must be deterministic
     * @throws IllegalArgumentException if either node is unknown or {@code from == to}
     */
    public void dropDatagramsMatching(int from, int to, Predicate<? super M> which) {
        datagrams.dropMatching(from, to, which);
    }

    /** Removes every {@link #dropMatching} and {@link #dropDatagramsMatching} rule (no-op if there is none). */
    public void stopDropping() {
        network.stopDropping();
        datagrams.stopDropping();
    }

    /**
     * Calls {@code observer} once for every datagram a node sends from now on and the channel
     * accepts (not for one refused as oversize), before partitions, rules or random loss decide its
     * fate at each member; {@code null} stops observing. Draws no random number and leaves no trace.
     */
    public void observeDatagrams(DatagramObserver<? super M> observer) {
        datagrams.observe(observer);
    }

    /**
     * Calls {@code observer} for every message a node sends from now on (to itself too), before
     * partitions, rules or random loss decide its fate; {@code null} stops observing. Draws no
     * random number and leaves no trace.
     */
    public void observeSends(SendObserver<? super M> observer) {
        network.observeSends(observer);
    }

    /** Whether no partition, two-sided or partial, is active. */
    public boolean networkIntact() {
        return links.intact();
    }

    /**
     * Stops the nemesis, heals partitions, restarts every crashed node and resumes every paused
     * one: the "faults heal" point.
     */
    public void stopFaults() {
        nemesis.stop();
        heal();
        processes.restartAllDown();
        pauses.resumeAll();
    }

    /**
     * Freezes node {@code id} for {@code duration} (no-op if it is down or already paused): it gets
     * no ticks and no deliveries until it resumes, messages arriving for it queue up in order, and
     * messages it sent that have not arrived yet are held and leave (with a fresh network delay)
     * when it resumes. It is still up ({@link #isUp}); a crash ends the pause and loses both queues.
     *
     * @throws IllegalArgumentException if {@code duration} is not positive
     */
    public void pause(int id, long duration) {
        pauses.pause(id, duration);
    }

    /**
     * Ends node {@code id}'s pause now (no-op if it is not paused): its held messages leave, then
     * the arrivals queued during the pause are handed to it in arrival order, before anything else
     * that happens later.
     */
    public void resume(int id) {
        pauses.resume(id);
    }

    /** Whether node {@code id} is up but paused. */
    public boolean isPaused(int id) {
        return pauses.isPaused(id);
    }

    /**
     * Crashes every up crashable node now (as {@link #crash} does, each keeping a random part of
     * its unsynced records) and restarts each after its own downtime, drawn uniformly in
     * [{@code minDowntime}, {@code maxDowntime}]: at that time the node is restarted if it is down
     * (whoever crashed it last), and left alone if it is up.
     */
    public void crashAll(long minDowntime, long maxDowntime) {
        processes.crashAll(minDowntime, maxDowntime);
    }

    /**
     * Fails the run from test code outside an event (an end-of-run liveness or convergence check):
     * the error names the seed and shows the last events, like an invariant failure.
     */
    public SimulationFailure failure(String message) {
        return loop.failure(message);
    }

    /** A 64-bit fingerprint of every event so far (time, kind, nodes, message text). */
    public long traceHash() {
        return trace.hash();
    }

    /** The last events, oldest first. */
    public List<String> traceTail() {
        return trace.tail();
    }
}
