package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The leader role of one view: Phase 1 once for every open instance when the view starts, then
 * pipelined Phase 2 with at most WND undecided instances in flight (seed 000 §III-A, batching and
 * pipelining). The new leader re-proposes the highest-view value reported for each instance and
 * fills the gaps with no-ops ("Paxos Made Simple" §3). Unanswered Prepares and undecided Proposes
 * are retransmitted after the retransmit timeout, because messages are lost when connections
 * break (seed 000 §V-C4).
 *
 * <p>Phase 1 is paged: an acceptor's {@link PaxosMessage.PrepareOk} carries a bounded slice of its
 * votes and says where to continue, and we ask that acceptor again from there. Phase 1 completes once
 * a quorum of the membership at its first instance answered completely. Re-proposals after Phase 1
 * respect the window too: at most WND are in flight, the rest follow as decisions free the window,
 * before any new value.
 *
 * <p><b>Membership changes</b> ({@link MembershipHistory}). Rule P1: an instance is proposed only
 * where its membership is known (R2: below the first undecided instance plus α), to that
 * membership's members. Rule P2: an instance is proposed only once complete Phase 1 answers of
 * this view cover a quorum of <em>its</em> membership's voters; when a change brings voters that
 * were not asked, they are asked now ({@link #refill}), and what they report for instances not yet
 * proposed is re-proposed like any Phase 1 report (a new voter may have voted, in an older view,
 * where the old voters never heard of it). P2 is what makes a leader that started under one
 * membership safe under the next. Rule P3: while a decided change is not yet in effect and
 * nothing else is proposed, the leader fills the instances up to its effective instance with
 * no-ops, so an idle group reaches it.
 *
 * <p>When Phase 1 completes, the values it will re-propose (every reported value at or above the
 * first open instance, no-ops aside) are kept for one {@link #takeReproposals()}: a layer ordering
 * ids (S-Paxos, seed 002 (S-Paxos) §IV-A, Alg. 1 l.32–36) learns which ids the new leader already
 * proposes again. Recording them emits nothing.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class Proposer {
    private long retransmittedPrepares;
    private long retransmittedProposes;
    enum State { FOLLOWER, PREPARING, LEADING }

    private static final class InFlight {
        final Value value;
        long sentAt;

        InFlight(Value value, long sentAt) {
            this.value = value;
            this.sentAt = sentAt;
        }
    }

    private final PaxosConfig config;
    private final int self;
    private final MembershipHistory members;
    private final Learner learner;
    private State state = State.FOLLOWER;
    private long view = -1;

    private long prepareFrom;
    /** Acceptors whose Phase 1 answer is complete (every vote from prepareFrom on reported). */
    private int completeFrom;
    /** Acceptors asked for Phase 1 in this view. */
    private int asked;
    /** Per acceptor: the instance its next Phase 1 page starts at. */
    private final long[] askFrom = new long[Membership.ID_SPACE];
    private long highestTrim;
    private long prepareSentAt;
    private final TreeMap<Long, PaxosMessage.Accepted> reported = new TreeMap<>();

    private long nextInstance;
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();
    /** Instances {@code [nextInstance, reproposeEnd)} re-propose what Phase 1 reported: they go before any new value. */
    private long reproposeEnd;
    /** What the last completed Phase 1 re-proposes, until taken; null if taken or none. */
    private MultiPaxosCore.Reproposals reproposals;
    /** A leadership transfer runs: no new value is taken. */
    private boolean paused;

    Proposer(PaxosConfig config, int self, MembershipHistory members, Learner learner) {
        this.config = config;
        this.self = self;
        this.members = members;
        this.learner = learner;
    }

    State state() {
        return state;
    }

    boolean isLeading() {
        return state == State.LEADING;
    }

    /** Undecided proposals in flight (what the batcher reads to decide how eagerly to close batches). */
    int inFlight() {
        return inFlight.size();
    }

    /** The next instance this leader would assign. */
    long nextInstance() {
        return nextInstance;
    }

    /**
     * Read-index: the position a read noted now must wait for, while leading: every instance this
     * leader proposed or will re-propose from its Phase 1 lies below it, so every value chosen in
     * an earlier view or proposed in this one does.
     */
    long readPoint() {
        return Math.max(nextInstance, reproposeEnd);
    }

    /** Whether a new proposal would be taken now. */
    boolean hasRoom() {
        return state == State.LEADING && !paused && nextInstance >= reproposeEnd && inFlight.size() < config.window()
                && mayPropose(nextInstance);
    }

    /** Stops (or resumes) taking new values, for a leadership transfer; re-proposals go on. */
    void pause(boolean pause) {
        paused = pause;
    }

    /** Rules P1 and P2: the membership of {@code instance} is known and Phase 1 covers a quorum of it. */
    private boolean mayPropose(long instance) {
        return members.knows(instance, learner.firstUndecided()) && members.at(instance).isQuorum(completeFrom);
    }

    /**
     * Whether a configuration command is proposed by this leader and undecided, or reported by
     * Phase 1 to be proposed again (rule R3 of {@link MembershipHistory}).
     */
    boolean membershipInFlight() {
        for (InFlight f : inFlight.values()) {
            if (f.value.isMembership()) {
                return true;
            }
        }
        for (PaxosMessage.Accepted a : reported.values()) {
            if (a.value().isMembership()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts Phase 1 of {@code newView} (we are its leader). The caller has made our own promise of
     * {@code newView} durable in this step, so a restart never reuses the view.
     */
    void startView(long newView, long fromInstance, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        state = State.PREPARING;
        view = newView;
        prepareFrom = fromInstance;
        completeFrom = 0;
        asked = members.voters(fromInstance) | (1 << self);
        Arrays.fill(askFrom, fromInstance);
        highestTrim = fromInstance;
        reported.clear();
        inFlight.clear();
        reproposals = null;
        paused = false;
        prepareSentAt = now;
        send(asked, new PaxosMessage.Prepare(view, prepareFrom), out);
    }

    /** Another view took over: stop leading; proposals in flight are left to the new leader. */
    void stepDown() {
        state = State.FOLLOWER;
        reported.clear();
        inFlight.clear();
        reproposals = null;
        paused = false;
    }

    /**
     * The values the last completed Phase 1 of this leadership re-proposes, once; null if already
     * taken, or if no Phase 1 completed since this replica last started a view or stepped down.
     */
    MultiPaxosCore.Reproposals takeReproposals() {
        MultiPaxosCore.Reproposals r = reproposals;
        reproposals = null;
        return r;
    }

    /**
     * Phase 1b answer (one page of it). A partial answer is followed by a Prepare to the same
     * acceptor from where it stopped; once a quorum answered completely, becomes leader and starts
     * re-proposing what Phase 1 found. An answer that arrives while leading (a voter asked under
     * rule P2, or a late one) adds what it reports for instances not yet proposed.
     */
    void onPrepareOk(int from, PaxosMessage.PrepareOk ok, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (state == State.FOLLOWER || ok.view() != view || from < 0 || from > Membership.MAX_ID) {
            return;
        }
        int bit = 1 << from;
        if (state == State.LEADING) {
            absorbLate(ok);
        } else {
            highestTrim = Math.max(highestTrim, ok.trimmedBelow());
            for (PaxosMessage.Accepted a : ok.accepted()) {
                merge(a);
            }
        }
        if (ok.isComplete()) {
            completeFrom |= bit;
        } else if ((completeFrom & bit) == 0 && ok.continueFrom() > askFrom[from]) {
            // A page newer than the last one asked for; a duplicate or stale page asks nothing again.
            askFrom[from] = ok.continueFrom();
            out.send(from, new PaxosMessage.Prepare(view, ok.continueFrom()));
        }
        if (state == State.PREPARING && members.at(prepareFrom).isQuorum(completeFrom)) {
            lead(now, out);
        } else if (state == State.LEADING) {
            refill(now, out);
        }
    }

    private void merge(PaxosMessage.Accepted a) {
        PaxosMessage.Accepted old = reported.get(a.instance());
        if (old == null || old.view() < a.view()) {
            reported.put(a.instance(), a);
        }
    }

    /** Rule P2: a report while leading counts for the instances this leader has not proposed yet. */
    private void absorbLate(PaxosMessage.PrepareOk ok) {
        if (ok.trimmedBelow() > nextInstance) {
            // Decided and covered by that acceptor's snapshot: never propose them; catch-up brings them.
            learner.noteDecidedUpTo(ok.trimmedBelow() - 1);
            reported.headMap(ok.trimmedBelow(), false).clear();
            nextInstance = ok.trimmedBelow();
            reproposeEnd = Math.max(reproposeEnd, nextInstance);
        }
        for (PaxosMessage.Accepted a : ok.accepted()) {
            if (a.instance() >= nextInstance) {
                merge(a);
                reproposeEnd = Math.max(reproposeEnd, a.instance() + 1);
            }
        }
    }

    private void lead(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        state = State.LEADING;
        // Instances below some acceptor's trim point are decided and covered by its snapshot: never
        // re-propose or no-op them (their votes are gone); we learn them through catch-up or a
        // snapshot. Above it, every vote of the quorum is reported, so the highest-view one is safe.
        long start = Math.max(Math.max(prepareFrom, highestTrim), learner.firstUndecided());
        learner.noteDecidedUpTo(start - 1);
        long end = reported.isEmpty() ? start - 1 : Math.max(start - 1, reported.lastKey());
        reported.headMap(start, false).clear();
        List<Value> values = new ArrayList<>(reported.size());
        for (PaxosMessage.Accepted a : reported.values()) {
            if (!a.value().isNoop()) {
                values.add(a.value());
            }
        }
        reproposals = new MultiPaxosCore.Reproposals(view, values);
        nextInstance = start;
        reproposeEnd = end + 1;
        refill(now, out);
    }

    /**
     * Re-proposes instances Phase 1 left open while the window has room: the highest-view reported
     * value, or a no-op for a gap; instances meanwhile decided are skipped. Then rule P3's no-ops up
     * to a pending change's effective instance. Asks voters rule P2 needs.
     *
     * @return whether anything was sent
     */
    boolean refill(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (state != State.LEADING) {
            return false;
        }
        boolean sent = false;
        while (nextInstance < reproposeEnd && inFlight.size() < config.window() && mayPropose(nextInstance)) {
            long i = nextInstance++;
            PaxosMessage.Accepted a = reported.remove(i);
            if (!learner.isDecided(i)) {
                send(i, a == null ? Value.NOOP : a.value(), now, out);
                sent = true;
            }
        }
        long pending = members.pending(learner.firstUndecided());
        while (pending >= 0 && nextInstance >= reproposeEnd && nextInstance < pending
                && inFlight.size() < config.window() && mayPropose(nextInstance)) {
            send(nextInstance++, Value.NOOP, now, out);
            sent = true;
        }
        askUncovered(now, out);
        return sent;
    }

    /** Rule P2: the next instance's membership is known but its voters were not all asked: ask them. */
    private void askUncovered(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long fu = learner.firstUndecided();
        for (long i = Math.max(nextInstance, fu); members.knows(i, fu); i = nextChange(i)) {
            int missing = members.at(i).voters() & ~asked;
            if (missing != 0) {
                asked |= missing;
                for (int r = 0; r < Membership.ID_SPACE; r++) {
                    if ((missing & (1 << r)) != 0) {
                        askFrom[r] = prepareFrom;
                    }
                }
                prepareSentAt = now;
                send(missing, new PaxosMessage.Prepare(view, prepareFrom), out);
            }
            if (nextChange(i) < 0) {
                return;
            }
        }
    }

    private long nextChange(long instance) {
        return members.pending(instance);
    }

    /** Rule P2 holds the next instance back: its membership is known, but Phase 1 covers no quorum of it. */
    private boolean uncovered() {
        return members.knows(nextInstance, learner.firstUndecided()) && !members.at(nextInstance).isQuorum(completeFrom);
    }

    /** Phase 2a for a new value. @return false if not leading or the window is full */
    boolean propose(Value value, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!hasRoom()) {
            return false;
        }
        send(nextInstance++, value, now, out);
        return true;
    }

    /**
     * Every instance below {@code instance} is decided (delivered, or covered by an installed
     * snapshot): release them from the window, and never assign an instance number below it.
     */
    void decidedBelow(long instance) {
        if (!inFlight.isEmpty() && inFlight.firstKey() < instance) {
            inFlight.headMap(instance, false).clear();
        }
        if (state == State.LEADING && nextInstance < instance) {
            reported.headMap(instance, false).clear();
            nextInstance = instance;
        }
    }

    /** {@code instance} was decided: it no longer occupies the window. */
    void onDecided(long instance) {
        inFlight.remove(instance);
    }

    /** Retransmits overdue Prepares and Proposes. */
    void tick(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long timeout = config.retransmitNanos();
        boolean asking = state == State.PREPARING || (state == State.LEADING && uncovered());
        if (asking && now - prepareSentAt >= timeout) {
            prepareSentAt = now;
            for (int r = 0; r < Membership.ID_SPACE; r++) {
                if ((asked & ~completeFrom & (1 << r)) != 0) {
                    retransmittedPrepares++;
                    out.send(r, new PaxosMessage.Prepare(view, askFrom[r]));
                }
            }
        }
        if (state == State.LEADING) {
            for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
                InFlight f = e.getValue();
                if (now - f.sentAt >= timeout) {
                    f.sentAt = now;
                    retransmittedProposes++;
                    send(recipients(e.getKey()), new PaxosMessage.Propose(view, e.getKey(), f.value), out);
                }
            }
        }
    }

    private void send(long instance, Value value, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        inFlight.put(instance, new InFlight(value, now));
        send(recipients(instance), new PaxosMessage.Propose(view, instance, value), out);
    }

    /** Rule P1: the members of the instance's membership, and this replica (its own learner hears the value). */
    private int recipients(long instance) {
        return members.at(instance).members() | (1 << self);
    }

    private static void send(int mask, PaxosMessage m, Effects<PaxosMessage, PaxosRecord, Value> out) {
        for (int r = 0; r < Membership.ID_SPACE; r++) {
            if ((mask & (1 << r)) != 0) {
                out.send(r, m);
            }
        }
    }

    long view() {
        return view;
    }

    /** Prepares sent again because an acceptor had not answered within the retransmit timeout. */
    long retransmittedPrepares() {
        return retransmittedPrepares;
    }

    /** Proposes sent again because the instance was still undecided after the retransmit timeout. */
    long retransmittedProposes() {
        return retransmittedProposes;
    }
}
