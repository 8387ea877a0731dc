package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.NodeFactory;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Changes a simulated group's membership while the fault nemesis runs, as an operator would,
 * through the leader's {@code proposeMembership} and {@code transferLeadership}
 * ({@link SimulatedReplica#requestMembership}, {@link SimulatedReplica#requestTransfer}: a
 * Multi-Paxos or an S-Paxos replica):
 * <ul>
 *   <li><b>replace</b>: a voter's disk dies ({@link Simulation#retire}: it never comes back, not even
 *       at the heal), or, half the time, a live voter is moved to a new machine and retired once
 *       replaced; a fresh replica with a new id starts with an empty log, is added as a learner,
 *       catches up (log or snapshot) and replaces the voter in one change;</li>
 *   <li><b>grow or shrink</b>: at three voters or fewer a fresh replica is added and promoted; above,
 *       a random voter is removed and keeps running (a removed replica must not disturb the group);</li>
 *   <li><b>transfer</b>: the leader hands leadership to another voter.</li>
 * </ul>
 * One operation at a time, each step retried every {@link #STEP} until the leader takes it and
 * the group has it in effect (a leader deposed before the decision loses it). Operations start only
 * during the fault window; the one running at the heal is finished after it, which
 * {@link #idle()} reports to the convergence check.
 *
 * <p>{@code alpha}, when not the replicas' window, is the mutation: changes that take effect
 * {@code alpha} instances after their decision although replicas assume the window (rule R2 of
 * {@code MembershipHistory} broken). Owned by the simulation thread.
 */
final class MembershipNemesis {
    static final long MS = 1_000_000L;
    /** How often a step is tried again. */
    static final long STEP = 25 * MS;

    /** Operations started and completed, for reports and "the nemesis did act" assertions. */
    record Counts(long replacements, long additions, long removals, long transfers) {
    }

    private enum Op { NONE, ADD, PROMOTE, REPLACE, REMOVE }

    private final Simulation<Object> sim;
    private final LeaderWatch leaders;
    private final NodeFactory<Object> replicas;
    private final SplittableRandom random;
    private final long interval;
    private final long stopAt;
    private final int alpha;
    private final int firstId;
    private int nextId;
    private Op op = Op.NONE;
    private MembershipChange change;
    /** A replaced voter still running, retired once the replacement is in effect; -1 if none. */
    private int retireWhenReplaced = -1;
    private long proposedAt = -1;
    private final List<Integer> added = new ArrayList<>();
    private long replacements;
    private long additions;
    private long removals;
    private long transfers;

    /**
     * @param replicas  builds a replica for a new id
     * @param interval  mean time between operations
     * @param stopAt    no operation starts after this (virtual) time
     * @param alpha     the α changes carry (the replicas' window, except for the mutation)
     * @param firstId   the first id a new replica gets
     */
    MembershipNemesis(Simulation<Object> sim, LeaderWatch leaders, NodeFactory<Object> replicas, SplittableRandom random,
                      long interval, long stopAt, int alpha, int firstId) {
        this.sim = sim;
        this.leaders = leaders;
        this.replicas = replicas;
        this.random = random;
        this.interval = interval;
        this.stopAt = stopAt;
        this.alpha = alpha;
        this.firstId = firstId;
        this.nextId = firstId;
    }

    void start() {
        sim.schedule(1 + random.nextLong(2 * interval), "membership nemesis", this::act);
    }

    /** No operation is running. */
    boolean idle() {
        return op == Op.NONE;
    }

    Counts counts() {
        return new Counts(replacements, additions, removals, transfers);
    }

    /**
     * The members whose states must agree at the end: every voter and learner of the membership
     * the most advanced live member has in effect.
     */
    int[] members() {
        Membership m = mostAdvanced().ordering().membership();
        List<Integer> ids = new ArrayList<>();
        for (int id = 0; id <= Membership.MAX_ID; id++) {
            if (m.isMember(id)) {
                ids.add(id);
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    private SimulatedReplica mostAdvanced() {
        SimulatedReplica best = null;
        for (int r : leaders.replicaIds()) {
            if (sim.isUp(r)) {
                SimulatedReplica s = sim.node(r);
                if (best == null || s.ordering().firstUndecided() > best.ordering().firstUndecided()) {
                    best = s;
                }
            }
        }
        return best;
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
        SimulatedReplica leader = leader();
        if (leader == null) {
            return;
        }
        Membership m = leader.ordering().membership();
        if (!m.equals(leader.ordering().membershipHistory().latest())) {
            return; // a change is decided but not in effect yet: one at a time
        }
        int draw = random.nextInt(10);
        if (draw < 3) {
            int target = randomVoterOtherThan(m, leader.ordering().leaderHint());
            if (target >= 0 && leader.requestTransfer(target) == null) {
                transfers++;
            }
        } else if (nextId > Membership.MAX_ID) {
            return;
        } else if (draw < 7) {
            int victim = randomVoterOtherThan(m, lastOriginal(m));
            if (victim < 0) {
                return;
            }
            note("replace " + victim);
            if (random.nextBoolean()) {
                note("retire " + victim);
                sim.retire(victim);
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

    /** Starts a fresh replica with a new id and an empty log. @return its id */
    private int addReplica() {
        int id = nextId++;
        added.add(id);
        sim.addNode(id, replicas, true);
        leaders.added(id);
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
            } else if (retireWhenReplaced >= 0 && !executedThroughEffect()) {
                return; // the moved voter keeps running until its successor holds what it held
            } else {
                op = Op.NONE;
                note("done " + change);
                if (retireWhenReplaced >= 0) {
                    note("retire " + retireWhenReplaced);
                    sim.retire(retireWhenReplaced);
                    retireWhenReplaced = -1;
                }
            }
            return;
        }
        if (proposedAt >= 0 && sim.now() - proposedAt < 40 * STEP) {
            return; // proposed: wait for it to be decided and in effect before proposing again
        }
        SimulatedReplica leader = leader();
        Membership latest = leader == null ? null : leader.ordering().membershipHistory().latest();
        if (latest != null && latest.refusal(next) != null && !latest.reflects(next)) {
            // Overtaken (say the replaced voter was removed by a change the leader had not seen
            // when this one began): give up, as an operator would after reading the error.
            op = Op.NONE;
            abandoned++;
            note("abandoned " + next + ": " + latest.refusal(next));
            return;
        }
        if (leader != null) {
            lastRefusal = leader.requestMembership(next);
            if (lastRefusal == null) {
                note("proposed " + next + " at " + leader.ordering().leaderHint());
                proposedAt = sim.now();
            }
        } else {
            lastRefusal = "no leader";
        }
    }

    private String lastRefusal;
    private final List<String> log = new ArrayList<>();

    private void note(String what) {
        log.add(sim.now() / MS + "ms " + what);
    }
    private long abandoned;

    @Override
    public String toString() {
        return "membership nemesis: " + (op == Op.NONE ? "idle" : op + " " + change + ", last refusal: " + lastRefusal)
                + "; log " + log;
    }

    /**
     * Whether every live member has {@code c} in effect: only then does the nemesis retire a
     * replaced voter, so that no decision is left on disks that all die (two disks of three would
     * be more failures than the group tolerates).
     */
    private boolean inEffect(MembershipChange c) {
        SimulatedReplica adv = mostAdvanced();
        if (adv == null || !adv.ordering().membership().reflects(c)) {
            return false;
        }
        Membership m = adv.ordering().membership();
        for (int r : leaders.replicaIds()) {
            if (sim.isUp(r) && m.isMember(r) && !sim.<SimulatedReplica>node(r).ordering().membership().reflects(c)) {
                return false;
            }
        }
        return true;
    }


    /**
     * Whether every live member has executed every instance decided anywhere when the change was
     * first seen in effect ({@code executeThrough}, taken then): only then is a moved voter
     * stopped. Having the change in effect is not enough for S-Paxos, whose decided ids name
     * bodies a new voter holds only once it fetched and executed them (s-paxos.md, rule M3 (d)):
     * stopping the old voter earlier costs one holder of them, and one more failure would lose
     * them. An operator waits likewise for the new replica's executed instance in
     * {@code parallax admin status} to pass the leader's decided one before stopping the old.
     */
    private boolean executedThroughEffect() {
        if (executeThrough < 0) {
            for (int r : leaders.replicaIds()) {
                if (sim.isUp(r)) {
                    executeThrough = Math.max(executeThrough, sim.<SimulatedReplica>node(r).ordering().firstUndecided());
                }
            }
        }
        Membership m = mostAdvanced().ordering().membership();
        for (int r : leaders.replicaIds()) {
            if (sim.isUp(r) && m.isMember(r) && sim.<SimulatedReplica>node(r).applied() < executeThrough) {
                return false;
            }
        }
        executeThrough = -1;
        return true;
    }

    /** The instance a moved voter's successors must execute through before it stops; -1 until taken. */
    private long executeThrough = -1;

    private SimulatedReplica leader() {
        int id = leaders.currentLeader();
        return id < 0 ? null : sim.node(id);
    }

    /**
     * The only voter left of the replicas the run started with, or -1 if more remain: it stays,
     * because the simulated clients know only those replicas (a production client is given the
     * new members' addresses by its operator).
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
