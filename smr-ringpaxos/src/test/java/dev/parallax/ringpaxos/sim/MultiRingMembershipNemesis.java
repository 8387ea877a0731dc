package dev.parallax.ringpaxos.sim;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.ringpaxos.RingPaxosCore;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Replaces the processes of a simulated Multi-Ring Paxos deployment while the fault nemesis runs,
 * as an operator would: every operation is the same change in every ring (the k group rings and
 * the global ring), each ring's part proposed at that ring's own coordinator and carried through
 * independently, one change at a time ({@link RingChangeSequence}; the rules of {@code RingGroup}).
 * <ul>
 *   <li><b>replace x by y</b>: a fresh process y with a new id (n and up) starts with empty logs and
 *       runs every ring as member y ({@link MultiRingSimulation.Scenario#memberId}), its learners of
 *       random subscriptions merging every ring from instance 0; every ring adds y as a learner,
 *       waits until it caught up (the coordinator refuses to let a learner replace a voter before)
 *       and replaces x's member by y in one change. Half the time x's disk died at the start
 *       ({@link Simulation#retire}); otherwise x moves while alive and is retired once every ring
 *       has y in place and every remaining member of every ring delivered through what the ring had
 *       decided when the change was in effect ({@link RingChangeSequence#deliveredBy});</li>
 *   <li><b>grow</b> (three voters or fewer): a fresh process is added as a learner and promoted in
 *       every ring;</li>
 *   <li><b>shrink</b> (above three voters): a random voter is removed from every ring and keeps
 *       running (a removed member must not disturb the rings): it multicasts nothing more and its
 *       learners are no longer owed anything ({@link MultiRingSimulation.World#depart}).</li>
 *   <li><b>transfer</b> (only in {@link Mix#ALL}, about one draw in six): one random ring's
 *       coordinator hands its coordination over ({@link MultiRingProcess#requestTransfer}; rules
 *       T1–T4 of {@code RingHandOver}) to the member of a random other process that is a voter of
 *       the set it has in effect, or, a quarter of the time, to the voter its core names
 *       ({@code transferTarget}). Not a multi-step operation: it is watched every {@link TransferWatch#WATCH}
 *       and counted as taken effect once the target coordinates a later round of that ring, within
 *       {@link TransferWatch#TIMEOUTS} suspect time-outs of the request.</li>
 * </ul>
 * One operation at a time, every step tried again each {@link #STEP}. Operations start only in the
 * fault window; the one running at the heal is finished after it, which the end of the run waits
 * for ({@link MultiRingSimulation.World#changing}). New ids stay below {@code ring.member.ids}.
 *
 * <p>{@code alpha}, when not the rings' window, is the mutation: changes that take effect
 * {@code alpha} instances after their decision although the members assume the window (rule R2 of
 * {@code MembershipHistory}, G3 of {@code RingGroup} broken). Owned by the simulation thread.
 */
final class MultiRingMembershipNemesis {
    static final long MS = 1_000_000L;
    /** How often a step is tried again. */
    static final long STEP = 25 * MS;

    /**
     * Operations started and carried through, for reports and "the nemesis did act" assertions:
     * {@code transfers} the leadership transfers a ring's coordinator accepted ({@code named} of
     * them to the voter its core named), {@code transfersTaken} those whose target was then seen
     * coordinating a later round of the ring.
     */
    record Counts(long replacements, long diskDeaths, long additions, long removals, long completed, long transfers,
                  long named, long transfersTaken) {
        static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0);

        Counts plus(Counts o) {
            return new Counts(replacements + o.replacements, diskDeaths + o.diskDeaths, additions + o.additions,
                    removals + o.removals, completed + o.completed, transfers + o.transfers, named + o.named,
                    transfersTaken + o.transfersTaken);
        }
    }

    /** Which operations the nemesis draws. */
    enum Mix {
        /** Only replacements (half with dead disks). */
        REPLACE,
        /** Only growing (three voters or fewer) and shrinking (more). */
        RESIZE,
        /** Both, half and half; besides, about one draw in six is a leadership transfer in one ring. */
        ALL
    }

    private enum Kind { REPLACE, GROW, SHRINK }

    private final Simulation<Object> sim;
    private final MultiRingSimulation.World world;
    private final SplittableRandom random;
    private final Mix mix;
    private final long interval;
    private final long stopAt;
    private final int alpha;
    private final int idSpace;
    private final int rings;
    private int nextId;
    /** The operation running, null if none. */
    private Kind kind;
    private int victim = -1;
    private int newcomer = -1;
    /** Whether the victim is retired once the operation is through (a live replacement). */
    private boolean retireWhenDone;
    private final List<RingChangeSequence> sequences = new ArrayList<>();
    private long replacements;
    private long diskDeaths;
    private long additions;
    private long removals;
    private long completed;
    private long transfers;
    private long named;
    /** The transfer last asked for, until it takes effect or times out. */
    private final TransferWatch watch;
    private final List<String> log = new ArrayList<>();
    /** Processes retired: a dead disk or a finished move. */
    private final java.util.Set<Integer> retired = new java.util.TreeSet<>();

    /**
     * @param random   the nemesis' own random stream (not the simulation's: it draws nothing from it)
     * @param mix      which operations it draws
     * @param interval mean time between operations
     * @param stopAt   no operation starts after this (virtual) time
     * @param alpha    the α changes carry (the rings' window, except for the mutation)
     */
    MultiRingMembershipNemesis(Simulation<Object> sim, MultiRingSimulation.World world, SplittableRandom random, Mix mix,
                               long interval, long stopAt, int alpha) {
        this.sim = sim;
        this.world = world;
        this.random = random;
        this.mix = mix;
        this.interval = interval;
        this.stopAt = stopAt;
        this.alpha = alpha;
        this.idSpace = world.scenario.idSpace();
        this.rings = world.scenario.groups() + 1;
        this.nextId = world.scenario.processes();
        this.watch = new TransferWatch(sim, this::note);
        for (var c : world.scenario.configs()) {
            if (!c.membershipChanges()) {
                throw new IllegalArgumentException("a ring whose members are fixed (ring.member.ids unset)");
            }
        }
        if (world.scenario.ringProcesses() != null) {
            throw new IllegalArgumentException("every process must run every ring");
        }
    }

    /** Starts acting and makes the end of the run wait for the operation under way. */
    void start() {
        world.changing = () -> !idle();
        world.changes = this::toString;
        sim.schedule(1 + random.nextLong(2 * interval), "membership nemesis", this::act);
    }

    /** No operation is running. */
    boolean idle() {
        return kind == null;
    }

    Counts counts() {
        return new Counts(replacements, diskDeaths, additions, removals, completed, transfers, named, watch.taken());
    }

    private void act() {
        if (kind == null && sim.now() < stopAt) {
            begin();
        }
        if (kind != null) {
            step();
        }
        if (kind != null) {
            sim.schedule(STEP, "membership step", this::act);
        } else if (sim.now() < stopAt) {
            sim.schedule(1 + random.nextLong(2 * interval), "membership nemesis", this::act);
        }
    }

    /** Starts an operation if every ring has a live member and no change in flight. */
    private void begin() {
        if (mix == Mix.ALL && random.nextInt(6) == 0) {
            transfer(random.nextInt(rings));
            return;
        }
        Membership[] latest = new Membership[rings];
        for (int r = 0; r < rings; r++) {
            RingPaxosCore adv = probe(r).mostAdvanced();
            if (adv == null || !adv.membership().equals(adv.membershipHistory().latest())) {
                return; // a ring without a live member, or a change decided and not in effect yet
            }
            latest[r] = adv.membership();
        }
        List<Integer> voters = votersOfEveryRing(latest);
        int draw = random.nextInt(10);
        if (mix == Mix.REPLACE || mix == Mix.ALL && draw < 5) {
            if (nextId >= idSpace || voters.isEmpty() || !sim.networkIntact()) {
                return;
            }
            victim = voters.get(random.nextInt(voters.size()));
            kind = Kind.REPLACE;
            replacements++;
            note("replace " + victim);
            if (random.nextBoolean()) {
                note("disk of " + victim + " died");
                retire(victim);
                diskDeaths++;
                retireWhenDone = false;
            } else {
                retireWhenDone = true;
            }
            newcomer = addProcess();
            plan(r -> List.of(MembershipChange.addLearner(newcomer, "sim", alpha),
                    MembershipChange.replace(world.scenario.memberId(r, victim), newcomer, "sim", alpha)));
        } else if (voters.size() <= 3) {
            if (nextId >= idSpace || !sim.networkIntact()) {
                return;
            }
            kind = Kind.GROW;
            additions++;
            newcomer = addProcess();
            note("grow by " + newcomer);
            plan(r -> List.of(MembershipChange.addLearner(newcomer, "sim", alpha), MembershipChange.promote(newcomer, alpha)));
        } else {
            victim = voters.get(random.nextInt(voters.size()));
            kind = Kind.SHRINK;
            removals++;
            note("shrink by " + victim);
            world.depart(victim);
            plan(r -> List.of(MembershipChange.remove(world.scenario.memberId(r, victim), alpha)));
        }
    }

    /**
     * Asks ring {@code r}'s coordinator to hand over to the member of a random other process that is
     * a voter of the set it has in effect, or a quarter of the time to the one its core names;
     * watches an accepted transfer until its target coordinates a later round of the ring or
     * {@link TransferWatch#TIMEOUTS} suspect time-outs pass.
     */
    private void transfer(int r) {
        int from = world.coordinatorOf(sim, r);
        if (from < 0) {
            return;
        }
        RingPaxosCore core = sim.<MultiRingProcess>node(from).core(r);
        boolean coreNames = random.nextInt(4) == 0;
        int to = -1;
        if (coreNames) {
            int member = core.transferTarget();
            for (int p : world.processIds()) {
                to = member >= 0 && world.scenario.memberId(r, p) == member ? p : to;
            }
        } else {
            List<Integer> voters = new ArrayList<>();
            for (int p : world.processIds()) {
                int member = world.scenario.memberId(r, p);
                if (p != from && member >= 0 && core.membership().isVoter(member)) {
                    voters.add(p);
                }
            }
            to = voters.isEmpty() ? -1 : voters.get(random.nextInt(voters.size()));
        }
        if (to < 0) {
            note("ring " + r + " transfer from process " + from + ": no target");
            return;
        }
        String refusal = sim.<MultiRingProcess>node(from).requestTransfer(r, world.scenario.memberId(r, to));
        if (refusal != null) {
            note("ring " + r + " transfer " + from + " -> " + to + " refused: " + refusal);
            return;
        }
        transfers++;
        named += coreNames ? 1 : 0;
        note("ring " + r + " transfer " + from + " -> " + to + (coreNames ? " (named by the core)" : "") + " in round "
                + core.round());
        int target = to;
        watch.watch("ring " + r + " transfer to " + to, () -> {
            MultiRingProcess p = sim.isUp(target) ? sim.node(target) : null;
            return p != null && p.ringUp(r) ? p.core(r) : null;
        }, core.round(), core.config().suspectNanos());
    }

    /** The processes that are voters of every ring (in the rings' own member ids). */
    private List<Integer> votersOfEveryRing(Membership[] latest) {
        List<Integer> out = new ArrayList<>();
        for (int p : world.processIds()) {
            boolean everywhere = !world.departed(p);
            for (int r = 0; r < rings && everywhere; r++) {
                everywhere = latest[r].isVoter(world.scenario.memberId(r, p));
            }
            if (everywhere) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * A fresh process with the next id, empty logs and learners of random subscriptions, started now
     * (only while no partition is active: the simulator's two-sided partition has no side for a node
     * added after it began). @return its id
     */
    private int addProcess() {
        int id = nextId++;
        long[] subs = new long[1 + random.nextInt(3)];
        for (int j = 0; j < subs.length; j++) {
            subs[j] = 1 + random.nextLong((1L << world.scenario.groups()) - 1);
        }
        world.joined(id, subs);
        sim.addNode(id, MultiRingSimulation.processes(world), true);
        return id;
    }

    private void plan(IntFunction<List<MembershipChange>> perRing) {
        sequences.clear();
        for (int r = 0; r < rings; r++) {
            sequences.add(new RingChangeSequence(sim, world, r, perRing.apply(r), this::note));
        }
    }

    /** A sequence over ring {@code r} with no change, to look at the ring. */
    private RingChangeSequence probe(int r) {
        return new RingChangeSequence(sim, world, r, List.of(), this::note);
    }

    /** Takes every ring's part one step further; ends the operation (retiring a moved victim) once all are through. */
    private void step() {
        boolean done = true;
        for (RingChangeSequence s : sequences) {
            s.step();
            done &= s.done();
        }
        if (!done) {
            return;
        }
        if (retireWhenDone) {
            for (RingChangeSequence s : sequences) {
                if (!s.deliveredBy(victim)) {
                    return; // the remaining members have not all delivered what was decided: keep the old one
                }
            }
            note("retire " + victim);
            retire(victim);
        }
        note("done " + kind);
        completed++;
        kind = null;
        victim = -1;
        newcomer = -1;
        retireWhenDone = false;
        sequences.clear();
    }

    private void retire(int process) {
        retired.add(process);
        sim.retire(process);
    }

    /**
     * At the end of a run (the nemesis idle): every ring's voters, as the most advanced live member of
     * each ring has them, are the same processes, none of them retired or removed — an operation is
     * the same change in every ring.
     *
     * @throws AssertionError if not
     */
    void assertOneVoterSet() {
        if (!idle()) {
            throw new AssertionError("membership: an operation is still under way; " + this);
        }
        List<Integer> first = null;
        for (int r = 0; r < rings; r++) {
            RingPaxosCore adv = probe(r).mostAdvanced();
            if (adv == null) {
                continue;
            }
            Membership m = adv.membershipHistory().latest();
            List<Integer> voters = new ArrayList<>();
            for (int p : world.processIds()) {
                if (m.isVoter(world.scenario.memberId(r, p))) {
                    voters.add(p);
                }
            }
            if (voters.stream().anyMatch(p -> retired.contains(p) || world.departed(p))) {
                throw new AssertionError("membership: ring " + r + "'s voters " + voters + " include a retired or "
                        + "removed process (retired " + retired + "); " + this);
            }
            if (first != null && !first.equals(voters)) {
                throw new AssertionError("membership: ring " + r + "'s voters are processes " + voters
                        + ", another ring's " + first + "; " + this);
            }
            first = voters;
        }
    }

    private void note(String what) {
        log.add(sim.now() / MS + "ms " + what);
    }

    @Override
    public String toString() {
        return "membership nemesis: " + (kind == null ? "idle" : kind + " victim " + victim + " newcomer " + newcomer
                + " " + sequences) + "; log " + log;
    }
}
