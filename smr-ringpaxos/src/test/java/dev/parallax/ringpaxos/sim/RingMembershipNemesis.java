package dev.parallax.ringpaxos.sim;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.testkit.NodeFactory;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.ringpaxos.RingPaxosCore;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Changes a simulated ring's member set while the fault nemesis runs, as an operator would, through
 * the coordinator's {@code proposeMembership} ({@link RingSimReplica#requestMembership}; the rules
 * of {@code RingGroup}):
 * <ul>
 *   <li><b>replace</b>: a voter's disk dies ({@link Simulation#retire}: it never comes back, not even
 *       at the heal), or, half the time, a live voter is moved to a new machine and retired once
 *       replaced; a fresh replica with a new id starts with an empty log, is added as a learner,
 *       catches up (catch-up or snapshot) and replaces the voter in one change;</li>
 *   <li><b>grow or shrink</b>: at three voters or fewer a fresh replica is added and promoted;
 *       above, a random voter is removed and keeps running (a removed member must not disturb the
 *       ring).</li>
 *   <li><b>transfer</b> (about one draw in six): the coordinator hands its coordination over
 *       ({@link RingSimReplica#requestTransfer}; rules T1–T4 of {@code RingHandOver}) to a random
 *       voter of the set it has in effect, or, a quarter of the time, to the voter its core names
 *       ({@code transferTarget}). Not a multi-step operation: it is watched every {@link TransferWatch#WATCH}
 *       and counted as taken effect once the target coordinates a later round, within
 *       {@link TransferWatch#TIMEOUTS} suspect time-outs of the request.</li>
 * </ul>
 * One operation at a time, each step retried every {@link #STEP} until the coordinator takes it
 * and every live member has it in effect (a coordinator deposed before the decision loses it).
 * Operations start only during the fault window; the one running at the heal is finished after
 * it, which {@link #idle()} reports to the convergence check. New ids run up to the ring's
 * {@code ring.member.ids} less one.
 *
 * <p>{@code alpha}, when not the ring's window, is the mutation: changes that take effect
 * {@code alpha} instances after their decision although members assume the window (rule R2 of
 * {@code MembershipHistory}, G3 of {@code RingGroup} broken). Owned by the simulation thread.
 */
final class RingMembershipNemesis {
    static final long MS = 1_000_000L;
    /** How often a step is tried again. */
    static final long STEP = 25 * MS;

    /**
     * Operations started, for reports and "the nemesis did act" assertions: {@code transfers} the
     * leadership transfers the coordinator accepted ({@code named} of them to the voter its core
     * named), {@code transfersTaken} those whose target was then seen coordinating a later round.
     */
    record Counts(long replacements, long additions, long removals, long completed, long transfers, long named,
                  long transfersTaken) {
        static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0);

        Counts plus(Counts o) {
            return new Counts(replacements + o.replacements, additions + o.additions, removals + o.removals,
                    completed + o.completed, transfers + o.transfers, named + o.named, transfersTaken + o.transfersTaken);
        }
    }

    private enum Op { NONE, ADD, PROMOTE, REPLACE, REMOVE }

    private final Simulation<Object> sim;
    private final CoordinatorWatch coordinators;
    private final NodeFactory<Object> replicas;
    private final SplittableRandom random;
    private final long interval;
    private final long stopAt;
    private final int alpha;
    private final int firstId;
    private final int idSpace;
    private int nextId;
    private Op op = Op.NONE;
    private MembershipChange change;
    /** A replaced voter still running, retired once the replacement is in effect; -1 if none. */
    private int retireWhenReplaced = -1;
    private long proposedAt = -1;
    private long replacements;
    private long additions;
    private long removals;
    private long completed;
    private long transfers;
    private long named;
    /** The transfer last asked for, until it takes effect or times out. */
    private final TransferWatch watch;
    private String lastRefusal;
    private final List<String> log = new ArrayList<>();
    /** Ids whose disk died ({@link Simulation#retire}): never up again, so not awaited at the end. */
    private final java.util.Set<Integer> retired = new java.util.HashSet<>();

    /**
     * @param replicas builds a replica for a new id
     * @param interval mean time between operations
     * @param stopAt   no operation starts after this (virtual) time
     * @param alpha    the α changes carry (the ring's window, except for the mutation)
     * @param firstId  the first id a new replica gets (n)
     * @param idSpace  new ids stay below this ({@code ring.member.ids})
     */
    RingMembershipNemesis(Simulation<Object> sim, CoordinatorWatch coordinators, NodeFactory<Object> replicas,
                          SplittableRandom random, long interval, long stopAt, int alpha, int firstId, int idSpace) {
        this.sim = sim;
        this.coordinators = coordinators;
        this.replicas = replicas;
        this.random = random;
        this.interval = interval;
        this.stopAt = stopAt;
        this.alpha = alpha;
        this.firstId = firstId;
        this.idSpace = idSpace;
        this.nextId = firstId;
        this.watch = new TransferWatch(sim, this::note);
    }

    void start() {
        sim.schedule(1 + random.nextLong(2 * interval), "membership nemesis", this::act);
    }

    /** No operation is running. */
    boolean idle() {
        return op == Op.NONE;
    }

    Counts counts() {
        return new Counts(replacements, additions, removals, completed, transfers, named, watch.taken());
    }

    /**
     * The members whose states must agree at the end: every voter and learner of the set the most
     * advanced live member has in effect.
     */
    int[] members() {
        RingPaxosCore adv = mostAdvanced();
        Membership m = adv == null ? Membership.initial(firstId) : adv.membership();
        List<Integer> ids = new ArrayList<>();
        for (int id : coordinators.ids()) {
            if (m.isMember(id) && !retired.contains(id)) {
                ids.add(id);
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    private RingPaxosCore mostAdvanced() {
        RingPaxosCore best = null;
        for (int r : coordinators.ids()) {
            RingPaxosCore c = coreOf(r);
            if (c != null && (best == null || c.firstUndecided() > best.firstUndecided())) {
                best = c;
            }
        }
        return best;
    }

    private RingPaxosCore coreOf(int r) {
        return sim.isUp(r) ? sim.<RingSimReplica>node(r).core() : null;
    }

    private void act() {
        if (op == Op.NONE && sim.now() < stopAt) {
            begin();
        }
        if (op != Op.NONE) {
            step();
        }
        if (op != Op.NONE) {
            sim.schedule(STEP, "membership step", this::act);
        } else if (sim.now() < stopAt) {
            sim.schedule(1 + random.nextLong(2 * interval), "membership nemesis", this::act);
        }
    }

    private void begin() {
        RingPaxosCore coordinator = coordinator();
        if (coordinator == null) {
            return;
        }
        if (random.nextInt(6) == 0) {
            transfer(coordinators.current(), coordinator);
            return;
        }
        if (nextId >= idSpace) {
            return;
        }
        Membership m = coordinator.membership();
        if (!m.equals(coordinator.membershipHistory().latest())) {
            return; // a change is decided but not in effect yet: one at a time
        }
        int draw = random.nextInt(10);
        if (draw < 5) {
            int victim = randomVoterOtherThan(m, lastOriginal(m));
            if (victim < 0) {
                return;
            }
            note("replace " + victim);
            if (random.nextBoolean()) {
                note("retire " + victim);
                retire(victim);
            } else {
                retireWhenReplaced = victim;
            }
            change = MembershipChange.replace(victim, addReplica(), "sim", alpha);
            op = Op.ADD;
            replacements++;
        } else if (m.voterCount() <= 3) {
            change = MembershipChange.promote(addReplica(), alpha);
            op = Op.ADD;
            additions++;
        } else {
            int removed = randomVoterOtherThan(m, lastOriginal(m));
            if (removed < 0) {
                return;
            }
            change = MembershipChange.remove(removed, alpha);
            op = Op.REMOVE;
            removals++;
        }
        proposedAt = -1;
    }

    /**
     * Asks coordinator {@code from} to hand over to a random voter of the set it has in effect, or a
     * quarter of the time to the one its core names; watches an accepted transfer until its target
     * coordinates a later round or {@link TransferWatch#TIMEOUTS} suspect time-outs pass.
     */
    private void transfer(int from, RingPaxosCore coordinator) {
        boolean coreNames = random.nextInt(4) == 0;
        int target = coreNames ? coordinator.transferTarget() : randomVoterOtherThan(coordinator.membership(), from);
        if (target < 0) {
            note("transfer from " + from + ": no target");
            return;
        }
        String refusal = sim.<RingSimReplica>node(from).requestTransfer(target);
        if (refusal != null) {
            note("transfer " + from + " -> " + target + " refused: " + refusal);
            return;
        }
        transfers++;
        named += coreNames ? 1 : 0;
        note("transfer " + from + " -> " + target + (coreNames ? " (named by the core)" : "") + " in round "
                + coordinator.round());
        watch.watch("transfer to " + target, () -> coreOf(target), coordinator.round(), coordinator.config().suspectNanos());
    }

    /** Starts a fresh replica with a new id and an empty log. @return its id */
    private int addReplica() {
        int id = nextId++;
        sim.addNode(id, replicas, true);
        coordinators.added(id);
        return id;
    }

    /** Takes the running operation one step further: propose what is next, or see it in effect. */
    private void step() {
        int newcomer = change.kind() == MembershipChange.Kind.REPLACE ? change.newId() : change.id();
        MembershipChange next = switch (op) {
            case ADD -> MembershipChange.addLearner(newcomer, "sim", alpha);
            case PROMOTE, REPLACE, REMOVE -> change;
            default -> throw new AssertionError(op);
        };
        if (inEffect(next)) {
            if (op == Op.ADD) {
                note("added " + next);
                op = change.kind() == MembershipChange.Kind.REPLACE ? Op.REPLACE : Op.PROMOTE;
                proposedAt = -1;
            } else {
                op = Op.NONE;
                completed++;
                note("done " + change);
                if (retireWhenReplaced >= 0) {
                    note("retire " + retireWhenReplaced);
                    retire(retireWhenReplaced);
                    retireWhenReplaced = -1;
                }
            }
            return;
        }
        if (proposedAt >= 0 && sim.now() - proposedAt < 40 * STEP) {
            return; // proposed: wait for it to be decided and in effect before proposing again
        }
        int id = coordinators.current();
        RingPaxosCore coordinator = id < 0 ? null : coreOf(id);
        Membership latest = coordinator == null ? null : coordinator.membershipHistory().latest();
        if (latest != null && latest.refusal(next) != null && !latest.reflects(next)) {
            // Overtaken (the replaced voter was removed by a change the coordinator had not seen
            // when this one began): give up, as an operator would after reading the error.
            op = Op.NONE;
            note("abandoned " + next + ": " + latest.refusal(next));
            return;
        }
        if (coordinator != null) {
            lastRefusal = sim.<RingSimReplica>node(id).requestMembership(next);
            if (lastRefusal == null) {
                note("proposed " + next + " at " + id);
                proposedAt = sim.now();
            }
        } else {
            lastRefusal = "no coordinator";
        }
    }

    private void retire(int id) {
        retired.add(id);
        sim.retire(id);
    }

    private void note(String what) {
        log.add(sim.now() / MS + "ms " + what);
    }

    @Override
    public String toString() {
        return "membership nemesis: " + (op == Op.NONE ? "idle" : op + " " + change + ", last refusal: " + lastRefusal)
                + "; log " + log;
    }

    /**
     * Whether every live member has {@code c} in effect: only then does the nemesis retire a
     * replaced voter, so that no decision is left on disks that all die.
     */
    private boolean inEffect(MembershipChange c) {
        RingPaxosCore adv = mostAdvanced();
        if (adv == null || !adv.membership().reflects(c)) {
            return false;
        }
        Membership m = adv.membership();
        for (int r : coordinators.ids()) {
            RingPaxosCore core = coreOf(r);
            if (core != null && m.isMember(r) && !core.membership().reflects(c)) {
                return false;
            }
        }
        return true;
    }

    private RingPaxosCore coordinator() {
        int id = coordinators.current();
        return id < 0 ? null : coreOf(id);
    }

    /**
     * The only voter left of the members the run started with, or -1 if more remain: it stays,
     * because the simulated clients know only those members.
     */
    private int lastOriginal(Membership m) {
        int last = -1;
        for (int id = 0; id < firstId; id++) {
            if (m.isVoter(id)) {
                if (last >= 0) {
                    return -1;
                }
                last = id;
            }
        }
        return last;
    }

    private int randomVoterOtherThan(Membership m, int excluded) {
        List<Integer> voters = new ArrayList<>();
        for (int id = 0; id <= Membership.MAX_ID; id++) {
            if (m.isVoter(id) && id != excluded) {
                voters.add(id);
            }
        }
        return voters.isEmpty() ? -1 : voters.get(random.nextInt(voters.size()));
    }
}
