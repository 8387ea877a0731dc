package dev.parallax.core.testkit;

import dev.parallax.core.log.InMemoryDurableLog;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
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
    private final VirtualClock clock = new VirtualClock();
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final Map<Integer, Slot> slots = new TreeMap<>();
    private final List<Runnable> invariants = new ArrayList<>();
    private final SimulationStats stats = new SimulationStats();
    private final TraceRecorder trace = new TraceRecorder(TRACE_TAIL);
    private FaultPlan plan;
    private Function<? super M, String> describer = String::valueOf;
    private ToIntFunction<? super M> datagramSizer;
    private final Map<Integer, Set<Integer>> groups = new TreeMap<>();
    private Map<Integer, Integer> partitionSide;
    /** Directed cut links, {@code from << 32 | to}: partial partitions. */
    private final Set<Long> cutLinks = new TreeSet<>();
    private boolean nemesisOn;
    private IntSupplier leaderOracle;
    private double leaderShare;
    private ProcessFaults processFaults;
    private long nextSeq;
    /** Targeted loss rules ({@link #dropMatching}), in the order they were added. */
    private final List<DropRule<M>> dropRules = new ArrayList<>();
    private SendObserver<? super M> sendObserver;
    /** Targeted datagram loss rules ({@link #dropDatagramsMatching}), in the order they were added. */
    private final List<DropRule<M>> datagramDropRules = new ArrayList<>();
    private DatagramObserver<? super M> datagramObserver;

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

    private record DropRule<M>(int from, int to, Predicate<? super M> which) {
    }

    /** A simulation with the given seed and fault plan; the nemesis runs if the plan enables it. */
    public Simulation(long seed, FaultPlan plan) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.plan = Objects.requireNonNull(plan, "plan");
        if (plan.nemesisInterval() > 0) {
            nemesisOn = true;
            scheduleNemesis();
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
        return clock.nanoTime();
    }

    public VirtualClock clock() {
        return clock;
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
        this.datagramSizer = Objects.requireNonNull(sizer);
    }

    /** The members of datagram group {@code group} now, in id order (a copy). */
    public Set<Integer> groupMembers(int group) {
        Set<Integer> members = groups.get(group);
        return members == null ? Set.of() : new TreeSet<>(members);
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
        this.leaderOracle = Objects.requireNonNull(currentLeader, "currentLeader");
        this.leaderShare = share;
    }

    /**
     * Makes the nemesis pause replicas and crash all of them too, as {@code faults} says (see
     * {@link ProcessFaults}); {@code null} turns it off.
     */
    public void processFaults(ProcessFaults faults) {
        this.processFaults = faults;
    }

    /**
     * Adds a node and starts it now (so the nodes it sends to from {@link SimNode#onStart} must
     * already have been added).
     *
     * @param crashable whether the nemesis may crash and partition it (replicas); clients are not
     * @throws IllegalArgumentException if the id is taken
     */
    public void addNode(int id, NodeFactory<M> factory, boolean crashable) {
        if (slots.containsKey(id)) {
            throw new IllegalArgumentException("node " + id + " exists");
        }
        Slot s = new Slot(id, factory, crashable);
        slots.put(id, s);
        start(s);
    }

    /** A check run after every event; a throw fails the run with the seed. */
    public void addInvariant(Runnable invariant) {
        invariants.add(invariant);
    }

    /** Runs {@code action} at virtual time {@code now() + delay}, in order with network events. */
    public void schedule(long delay, String label, Runnable action) {
        push(new Event(now() + Math.max(0, delay)) {
            @Override
            String describe() {
                return "action " + label;
            }

            @Override
            void run() {
                action.run();
            }
        });
    }

    /** Runs every event up to virtual time {@code time}, then sets the clock there. */
    public void runUntil(long time) {
        while (!events.isEmpty() && events.peek().time <= time) {
            step();
        }
        clock.advanceTo(Math.max(time, now()));
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
        while (!done.getAsBoolean()) {
            if (events.isEmpty() || events.peek().time > deadline) {
                clock.advanceTo(Math.max(deadline, now()));
                return done.getAsBoolean();
            }
            step();
        }
        return true;
    }

    /** The node currently running as {@code id}, or {@code null} if it is down. */
    @SuppressWarnings("unchecked")
    public <N extends SimNode<M>> N node(int id) {
        return (N) slot(id).node;
    }

    public boolean isUp(int id) {
        return slot(id).node != null;
    }

    /** The durable storage of node {@code id} (survives its crashes). */
    public InMemoryDurableLog.Storage storage(int id) {
        return slot(id).storage;
    }

    /** Ids of every node, in order. */
    public Set<Integer> nodeIds() {
        return new TreeSet<>(slots.keySet());
    }

    /** Crashes node {@code id} now (no-op if down). */
    public void crash(int id) {
        Slot s = slot(id);
        if (s.node == null) {
            return;
        }
        s.node = null;
        s.incarnation++;
        s.clearPause();
        for (Set<Integer> members : groups.values()) {
            members.remove(id);
        }
        s.storage.crash(random.nextInt(s.storage.unsyncedCount() + 1));
        stats.crashes++;
        trace.record(now(), "crash " + id);
    }

    /** Restarts node {@code id} now (no-op if up). */
    public void restart(int id) {
        Slot s = slot(id);
        if (s.node != null) {
            return;
        }
        stats.restarts++;
        start(s);
    }

    /** Cuts the network between {@code side} and the other crashable nodes. */
    public void partition(Collection<Integer> side) {
        Map<Integer, Integer> sides = new TreeMap<>();
        for (Slot s : slots.values()) {
            if (s.crashable) {
                sides.put(s.id, side.contains(s.id) ? 1 : 0);
            }
        }
        partitionSide = sides;
        stats.partitionsStarted++;
        trace.record(now(), "partition " + side);
    }

    /** Removes any partition, two-sided or partial. */
    public void heal() {
        if (partitionSide != null || !cutLinks.isEmpty()) {
            partitionSide = null;
            cutLinks.clear();
            trace.record(now(), "heal");
        }
    }

    /**
     * Loses every message {@code from} sends {@code to} (one direction) until {@link #heal}: a
     * one-way link failure. Both must be crashable nodes; clients are never cut.
     *
     * @throws IllegalArgumentException if either is unknown or not crashable, or they are the same
     */
    public void cutLink(int from, int to) {
        if (from == to || !slot(from).crashable || !slot(to).crashable) {
            throw new IllegalArgumentException("can cut only a link between two distinct crashable nodes: "
                    + from + "->" + to);
        }
        cutLinks.add(link(from, to));
        trace.record(now(), "cut " + from + "->" + to);
    }

    /** Cuts every link into {@code node} from the other crashable nodes: it sends but hears nothing. */
    public void cutInbound(int node) {
        for (int other : crashableIds()) {
            if (other != node) {
                cutLink(other, node);
            }
        }
        stats.oneWayCuts++;
    }

    /** Cuts every link out of {@code node} to the other crashable nodes: it hears but reaches nobody. */
    public void cutOutbound(int node) {
        for (int other : crashableIds()) {
            if (other != node) {
                cutLink(node, other);
            }
        }
        stats.oneWayCuts++;
    }

    /**
     * A bridge partition: cuts every link between {@code sideA} and {@code sideB}, both directions;
     * the crashable nodes in neither side (the bridge) still reach both sides.
     *
     * @throws IllegalArgumentException if the sides are empty or overlap
     */
    public void bridge(Collection<Integer> sideA, Collection<Integer> sideB) {
        if (sideA.isEmpty() || sideB.isEmpty() || sideA.stream().anyMatch(sideB::contains)) {
            throw new IllegalArgumentException("a bridge needs two disjoint non-empty sides: " + sideA + " " + sideB);
        }
        for (int a : sideA) {
            for (int b : sideB) {
                cutLink(a, b);
                cutLink(b, a);
            }
        }
        stats.bridges++;
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
        slot(from);
        slot(to);
        if (from == to) {
            throw new IllegalArgumentException("a node's messages to itself are never dropped: " + from);
        }
        dropRules.add(new DropRule<>(from, to, Objects.requireNonNull(which, "which")));
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
        slot(from);
        slot(to);
        if (from == to) {
            throw new IllegalArgumentException("a node's datagrams to itself are never dropped: " + from);
        }
        datagramDropRules.add(new DropRule<>(from, to, Objects.requireNonNull(which, "which")));
    }

    /** Removes every {@link #dropMatching} and {@link #dropDatagramsMatching} rule (no-op if there is none). */
    public void stopDropping() {
        dropRules.clear();
        datagramDropRules.clear();
    }

    /**
     * Calls {@code observer} once for every datagram a node sends from now on and the channel
     * accepts (not for one refused as oversize), before partitions, rules or random loss decide its
     * fate at each member; {@code null} stops observing. Draws no random number and leaves no trace.
     */
    public void observeDatagrams(DatagramObserver<? super M> observer) {
        this.datagramObserver = observer;
    }

    /**
     * Calls {@code observer} for every message a node sends from now on (to itself too), before
     * partitions, rules or random loss decide its fate; {@code null} stops observing. Draws no
     * random number and leaves no trace.
     */
    public void observeSends(SendObserver<? super M> observer) {
        this.sendObserver = observer;
    }

    /** Whether no partition, two-sided or partial, is active. */
    public boolean networkIntact() {
        return partitionSide == null && cutLinks.isEmpty();
    }

    /**
     * Stops the nemesis, heals partitions, restarts every crashed node and resumes every paused
     * one: the "faults heal" point.
     */
    public void stopFaults() {
        nemesisOn = false;
        heal();
        for (Slot s : slots.values()) {
            if (s.node == null) {
                restart(s.id);
            }
        }
        resumeAll();
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
        if (duration <= 0) {
            throw new IllegalArgumentException("pause duration must be > 0: " + duration);
        }
        Slot s = slot(id);
        if (s.node == null || s.paused) {
            return;
        }
        s.paused = true;
        int epoch = ++s.pauseEpoch;
        stats.pauses++;
        trace.record(now(), "pause " + id + " for " + duration / 1_000_000 + " ms");
        schedule(duration, "resume " + id, () -> {
            if (s.paused && s.pauseEpoch == epoch) {
                resume(id);
            }
        });
    }

    /**
     * Ends node {@code id}'s pause now (no-op if it is not paused): its held messages leave, then
     * the arrivals queued during the pause are handed to it in arrival order, before anything else
     * that happens later.
     */
    public void resume(int id) {
        Slot s = slot(id);
        if (!s.paused) {
            return;
        }
        s.paused = false;
        trace.record(now(), "resume " + id + " (" + s.inbox.size() + " queued, " + s.outbox.size() + " held)");
        List<Runnable> held = new ArrayList<>(s.outbox);
        List<Runnable> queued = new ArrayList<>(s.inbox);
        s.outbox.clear();
        s.inbox.clear();
        held.forEach(Runnable::run);
        queued.forEach(Runnable::run);
    }

    /** Whether node {@code id} is up but paused. */
    public boolean isPaused(int id) {
        return slot(id).paused;
    }

    /**
     * Crashes every up crashable node now (as {@link #crash} does, each keeping a random part of
     * its unsynced records) and restarts each after its own downtime, drawn uniformly in
     * [{@code minDowntime}, {@code maxDowntime}]: at that time the node is restarted if it is down
     * (whoever crashed it last), and left alone if it is up.
     */
    public void crashAll(long minDowntime, long maxDowntime) {
        if (minDowntime < 0 || maxDowntime < minDowntime) {
            throw new IllegalArgumentException("need 0 <= minDowntime <= maxDowntime");
        }
        stats.crashAlls++;
        trace.record(now(), "crash all");
        for (Slot s : slots.values()) {
            if (s.crashable && s.node != null) {
                crash(s.id);
                long downtime = minDowntime + random.nextLong(maxDowntime - minDowntime + 1);
                int id = s.id;
                schedule(downtime, "restart " + id + " after crash-all", () -> restart(id));
            }
        }
    }

    private void resumeAll() {
        for (Slot s : slots.values()) {
            if (s.paused) {
                resume(s.id);
            }
        }
    }

    /**
     * Fails the run from test code outside an event (an end-of-run liveness or convergence check):
     * the error names the seed and shows the last events, like an invariant failure.
     */
    public SimulationFailure failure(String message) {
        return new SimulationFailure(seed, now(), trace.tail(), new AssertionError(message));
    }

    /** A 64-bit fingerprint of every event so far (time, kind, nodes, message text). */
    public long traceHash() {
        return trace.hash();
    }

    /** The last events, oldest first. */
    public List<String> traceTail() {
        return trace.tail();
    }

    // ---------------------------------------------------------------- internals

    private Slot slot(int id) {
        Slot s = slots.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no node " + id);
        }
        return s;
    }

    private void start(Slot s) {
        int incarnation = s.incarnation;
        Context ctx = new Context(s, incarnation);
        s.log = InMemoryDurableLog.open(s.storage);
        s.node = s.factory.create(ctx);
        trace.record(now(), "start " + s.id + "#" + incarnation);
        s.node.onStart();
        scheduleTick(s, incarnation, random.nextLong(plan.tickInterval()) + 1);
    }

    private void scheduleTick(Slot s, int incarnation, long delay) {
        push(new Event(now() + delay) {
            @Override
            String describe() {
                return s.node != null && s.incarnation == incarnation && !s.paused ? "tick " + s.id : null;
            }

            @Override
            void run() {
                if (s.node != null && s.incarnation == incarnation) {
                    if (!s.paused) {
                        s.node.onTick();
                    }
                    scheduleTick(s, incarnation, plan.tickInterval());
                }
            }
        });
    }

    private void send(Slot from, int to, M message) {
        Slot target = slots.get(to);
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
        if (cut(from, target)) {
            stats.partitioned++;
            return;
        }
        if (!dropRules.isEmpty() && droppedByRule(from.id, to, message)) {
            stats.droppedByRule++;
            trace.record(now(), "drop by rule " + from.id + "->" + to + " " + describer.apply(message));
            return;
        }
        if (random.nextDouble() < plan.dropProbability()) {
            stats.dropped++;
            return;
        }
        deliverLater(from.id, target, target.incarnation, message, delay());
        if (random.nextDouble() < plan.duplicateProbability()) {
            stats.duplicated++;
            deliverLater(from.id, target, target.incarnation, message, delay());
        }
    }

    private boolean droppedByRule(int from, int to, M message) {
        return matches(dropRules, from, to, message);
    }

    private static <M> boolean matches(List<DropRule<M>> rules, int from, int to, M message) {
        for (DropRule<M> r : rules) {
            if (r.from() == from && r.to() == to && r.which().test(message)) {
                return true;
            }
        }
        return false;
    }

    private void joinGroup(Slot s, int group) {
        groups.computeIfAbsent(group, g -> new TreeSet<>()).add(s.id);
    }

    private void leaveGroup(Slot s, int group) {
        Set<Integer> members = groups.get(group);
        if (members != null) {
            members.remove(s.id);
        }
    }

    private boolean isMember(int id, int group) {
        Set<Integer> members = groups.get(group);
        return members != null && members.contains(id);
    }

    private boolean sendDatagram(Slot from, int group, M message) {
        DatagramPlan dp = plan.datagrams();
        int size = datagramSizer != null ? datagramSizer.applyAsInt(message)
                : describer.apply(message).getBytes(StandardCharsets.UTF_8).length;
        if (size > dp.maxPacketSize()) {
            stats.datagramsRefused++;
            trace.record(now(), "refuse datagram " + from.id + "->g" + group + " of " + size + " bytes");
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
            Slot target = slots.get(to);
            if (to == from.id) {
                deliverDatagramLater(from.id, group, target, target.incarnation, message, 0);
                continue;
            }
            if (cut(from, target)) {
                stats.datagramsCut++;
                continue;
            }
            if (!datagramDropRules.isEmpty() && matches(datagramDropRules, from.id, to, message)) {
                stats.droppedByRule++;
                trace.record(now(), "drop datagram by rule " + from.id + "->" + to + " g" + group + " "
                        + describer.apply(message));
                continue;
            }
            if (random.nextDouble() < dp.lossProbability()) {
                stats.datagramsLost++;
                continue;
            }
            deliverDatagramLater(from.id, group, target, target.incarnation, message, datagramDelay(dp));
            if (random.nextDouble() < dp.duplicateProbability()) {
                stats.datagramsDuplicated++;
                deliverDatagramLater(from.id, group, target, target.incarnation, message, datagramDelay(dp));
            }
        }
        return true;
    }

    private long datagramDelay(DatagramPlan dp) {
        long span = dp.maxDelay() - dp.minDelay();
        return dp.minDelay() + (span == 0 ? 0 : random.nextLong(span + 1));
    }

    private void deliverDatagramLater(int from, int group, Slot target, int incarnation, M message, long delay) {
        push(new Event(now() + delay) {
            @Override
            String describe() {
                return "datagram " + from + "->" + target.id + " g" + group + " " + describer.apply(message);
            }

            @Override
            void run() {
                if (target.node == null || target.incarnation != incarnation || cut(slots.get(from), target)
                        || !isMember(target.id, group)) {
                    stats.datagramsCut++;
                    return;
                }
                if (pauseTakes(slots.get(from), target, incarnation,
                        () -> deliverDatagramLater(from, group, target, incarnation, message, datagramDelay(plan.datagrams())),
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

    private long delay() {
        long span = plan.maxDelay() - plan.minDelay();
        return plan.minDelay() + (span == 0 ? 0 : random.nextLong(span + 1));
    }

    /** Whether what {@code a} sends {@code b} is lost to a partition now (two-sided or a cut link). */
    private boolean cut(Slot a, Slot b) {
        return partitionSide != null && a.crashable && b.crashable
                && !partitionSide.get(a.id).equals(partitionSide.get(b.id))
                || !cutLinks.isEmpty() && cutLinks.contains(link(a.id, b.id));
    }

    private static long link(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }

    private List<Integer> crashableIds() {
        List<Integer> ids = new ArrayList<>();
        for (Slot s : slots.values()) {
            if (s.crashable) {
                ids.add(s.id);
            }
        }
        return ids;
    }

    private void deliverLater(int from, Slot target, int incarnation, M message, long delay) {
        push(new Event(now() + delay) {
            @Override
            String describe() {
                return "deliver " + from + "->" + target.id + " " + describer.apply(message);
            }

            @Override
            void run() {
                if (target.node == null || target.incarnation != incarnation || cut(slots.get(from), target)) {
                    stats.partitioned++;
                    return;
                }
                if (pauseTakes(slots.get(from), target, incarnation,
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

    /**
     * Whether a pause takes over an arrival at {@code target}: a paused sender holds it ({@code resend}
     * runs when the sender resumes, sending it again with a fresh delay), else a paused target queues
     * it ({@code handOver} runs after the target resumes, if that incarnation is still up).
     */
    private boolean pauseTakes(Slot sender, Slot target, int incarnation, Runnable resend, Runnable handOver) {
        if (sender.paused && sender != target) {
            stats.heldByPause++;
            sender.outbox.add(resend);
            return true;
        }
        if (target.paused) {
            stats.queuedByPause++;
            target.inbox.add(() -> handOverAfterPause(target, incarnation, handOver));
            return true;
        }
        return false;
    }

    /** Hands a queued arrival to {@code target} as the next event, unless it crashed (or paused again). */
    private void handOverAfterPause(Slot target, int incarnation, Runnable handOver) {
        push(new Event(now()) {
            @Override
            String describe() {
                return null;
            }

            @Override
            void run() {
                if (target.node == null || target.incarnation != incarnation) {
                    stats.partitioned++;
                } else if (target.paused) {
                    target.inbox.add(() -> handOverAfterPause(target, incarnation, handOver));
                } else {
                    handOver.run();
                }
            }
        });
    }

    private void scheduleNemesis() {
        push(new Event(now() + 1 + random.nextLong(2 * plan.nemesisInterval())) {
            @Override
            String describe() {
                return null;
            }

            @Override
            void run() {
                if (nemesisOn && plan.nemesisInterval() > 0) {
                    nemesisAction();
                    scheduleNemesis();
                }
            }
        });
    }

    private void nemesisAction() {
        List<Slot> up = new ArrayList<>();
        List<Slot> down = new ArrayList<>();
        for (Slot s : slots.values()) {
            if (s.crashable) {
                (s.node == null ? down : up).add(s);
            }
        }
        if (processFaults != null && processFault(up)) {
            return;
        }
        if (leaderOracle != null && random.nextDouble() < leaderShare && hitLeader(down.size())) {
            return;
        }
        List<Runnable> choices = new ArrayList<>();
        if (plan.partitions() && up.size() + down.size() > 1) {
            choices.add(networkIntact() ? this::randomNetworkFault : this::heal);
        }
        if (down.size() < plan.maxCrashed() && !up.isEmpty()) {
            choices.add(() -> crash(up.get(random.nextInt(up.size())).id));
        }
        if (!down.isEmpty()) {
            choices.add(() -> restart(down.get(random.nextInt(down.size())).id));
        }
        if (!choices.isEmpty()) {
            choices.get(random.nextInt(choices.size())).run();
        }
    }

    /** Crashes or isolates the current leader, if there is one the plan lets us hit; whether it did. */
    private boolean hitLeader(int downCount) {
        int leader = leaderOracle.getAsInt();
        Slot s = leader < 0 ? null : slots.get(leader);
        if (s == null || !s.crashable || s.node == null) {
            return false;
        }
        boolean canCrash = downCount < plan.maxCrashed();
        boolean canIsolate = plan.partitions() && slots.values().stream().filter(x -> x.crashable).count() > 1;
        if (canCrash && (!canIsolate || random.nextBoolean())) {
            trace.record(now(), "nemesis: crash leader " + leader);
            crash(leader);
            stats.leaderCrashes++;
            return true;
        }
        if (canIsolate) {
            if (plan.partialPartitions() && partialPartitionOf(leader)) {
                stats.leaderPartialCuts++;
                return true;
            }
            trace.record(now(), "nemesis: isolate leader " + leader);
            partition(Set.of(leader));
            stats.leaderIsolations++;
            return true;
        }
        return false;
    }

    /** The nemesis' network fault: a two-sided partition or, if the plan has them, a partial one. */
    private void randomNetworkFault() {
        if (!plan.partialPartitions() || !partialPartitionOf(-1)) {
            randomPartition();
        }
    }

    /**
     * With probability 3/4, a partial partition aimed at {@code target} (any node if negative):
     * its inbound or its outbound links cut one way, or a bridge that cuts it from part of the
     * others; returns false (drawing nothing more) for the remaining quarter, where the caller
     * makes a two-sided partition. A bridge needs three crashable nodes; with two, the draw falls
     * back to a one-way cut.
     */
    private boolean partialPartitionOf(int target) {
        List<Integer> ids = crashableIds();
        int shape = random.nextInt(4);
        if (shape == 0) {
            return false;
        }
        int node = target >= 0 ? target : ids.get(random.nextInt(ids.size()));
        if (shape == 3 && ids.size() >= 3) {
            // The bridge: one other node reaching both sides; the rest split with the target on side A.
            List<Integer> others = new ArrayList<>(ids);
            others.remove(Integer.valueOf(node));
            int bridgeNode = others.remove(random.nextInt(others.size()));
            Set<Integer> sideA = new TreeSet<>(Set.of(node));
            Set<Integer> sideB = new TreeSet<>();
            sideB.add(others.remove(random.nextInt(others.size())));
            for (int o : others) {
                (random.nextBoolean() ? sideA : sideB).add(o);
            }
            trace.record(now(), "nemesis: bridge " + sideA + " | " + sideB + " via " + bridgeNode);
            bridge(sideA, sideB);
        } else if (shape == 1) {
            trace.record(now(), "nemesis: cut inbound of " + node);
            cutInbound(node);
        } else {
            trace.record(now(), "nemesis: cut outbound of " + node);
            cutOutbound(node);
        }
        return true;
    }

    /** The {@link ProcessFaults} branch of a nemesis action: a crash-all or a pause; whether it did one. */
    private boolean processFault(List<Slot> up) {
        ProcessFaults pf = processFaults;
        double r = random.nextDouble();
        if (r < pf.crashAllShare()) {
            if (up.isEmpty()) {
                return false;
            }
            trace.record(now(), "nemesis: crash all");
            crashAll(pf.minDowntime(), pf.maxDowntime());
            return true;
        }
        if (r >= pf.crashAllShare() + pf.pauseShare()) {
            return false;
        }
        List<Slot> running = new ArrayList<>();
        for (Slot s : up) {
            if (!s.paused) {
                running.add(s);
            }
        }
        if (running.isEmpty()) {
            return false;
        }
        Slot target = running.get(random.nextInt(running.size()));
        if (leaderOracle != null && random.nextBoolean()) {
            int leader = leaderOracle.getAsInt();
            Slot l = leader < 0 ? null : slots.get(leader);
            if (l != null && running.contains(l)) {
                target = l;
            }
        }
        long duration = pf.minPause() + random.nextLong(pf.maxPause() - pf.minPause() + 1);
        trace.record(now(), "nemesis: pause " + target.id);
        pause(target.id, duration);
        return true;
    }

    private void randomPartition() {
        List<Integer> replicas = new ArrayList<>();
        for (Slot s : slots.values()) {
            if (s.crashable) {
                replicas.add(s.id);
            }
        }
        // A non-empty proper subset: pick a size, then that many distinct members.
        int size = 1 + random.nextInt(replicas.size() - 1);
        Set<Integer> side = new TreeSet<>();
        while (side.size() < size) {
            side.add(replicas.get(random.nextInt(replicas.size())));
        }
        partition(side);
    }

    private void push(Event e) {
        e.seq = nextSeq++;
        events.add(e);
    }

    private void step() {
        Event e = events.poll();
        clock.advanceTo(e.time);
        stats.events++;
        try {
            String d = e.describe();
            if (d != null) {
                trace.record(e.time, d);
            }
            e.run();
            for (Runnable invariant : invariants) {
                invariant.run();
            }
        } catch (SimulationFailure f) {
            throw f;
        } catch (Throwable t) {
            throw new SimulationFailure(seed, now(), trace.tail(), t);
        }
    }

    private abstract static class Event implements Comparable<Event> {
        final long time;
        long seq;

        Event(long time) {
            this.time = time;
        }

        /** The trace line, or {@code null} for events that leave none. */
        abstract String describe();

        abstract void run();

        @Override
        public int compareTo(Event o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final class Slot {
        final int id;
        final NodeFactory<M> factory;
        final boolean crashable;
        final InMemoryDurableLog.Storage storage = new InMemoryDurableLog.Storage();
        InMemoryDurableLog log;
        SimNode<M> node;
        int incarnation;
        /** Frozen by {@link #pause}: no ticks, arrivals queued in {@link #inbox}, departures held in {@link #outbox}. */
        boolean paused;
        int pauseEpoch;
        final List<Runnable> inbox = new ArrayList<>();
        final List<Runnable> outbox = new ArrayList<>();

        Slot(int id, NodeFactory<M> factory, boolean crashable) {
            this.id = id;
            this.factory = factory;
            this.crashable = crashable;
        }

        /** A crash ends a pause; what it queued and held is lost with the process. */
        void clearPause() {
            paused = false;
            inbox.clear();
            outbox.clear();
        }
    }

    private final class Context implements NodeContext<M> {
        private final Slot slot;
        private final int incarnation;

        Context(Slot slot, int incarnation) {
            this.slot = slot;
            this.incarnation = incarnation;
        }

        @Override
        public int id() {
            return slot.id;
        }

        @Override
        public long now() {
            return clock.nanoTime();
        }

        @Override
        public void send(int to, M message) {
            if (slot.incarnation == incarnation && slot.node != null) {
                Simulation.this.send(slot, to, message);
            }
        }

        @Override
        public void joinGroup(int group) {
            if (live()) {
                Simulation.this.joinGroup(slot, group);
            }
        }

        @Override
        public void leaveGroup(int group) {
            if (live()) {
                Simulation.this.leaveGroup(slot, group);
            }
        }

        @Override
        public boolean sendDatagram(int group, M message) {
            return live() && Simulation.this.sendDatagram(slot, group, message);
        }

        private boolean live() {
            return slot.incarnation == incarnation && slot.node != null;
        }

        @Override
        public InMemoryDurableLog log() {
            return slot.log;
        }

        @Override
        public int incarnation() {
            return incarnation;
        }
    }
}
