package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.membership.Membership;

/**
 * Pre-vote (Raft thesis §9.6, adapted to views that rotate among the replicas):
 * a follower that suspects the leader of its view does not start the next view it leads at once.
 * It first asks every peer with a {@link PaxosMessage.PreVote} and starts the view only once a
 * quorum, itself included, granted. A peer grants only if
 * <ul>
 *   <li>it has not heard from the leader of its own view for the suspect timeout (the shortest
 *       one) less one heartbeat interval ({@code ViewMonitor.leaderSilent}) — so a replica cut off
 *       from a working leader, which everyone else still hears, never disrupts it (the bridge
 *       partition; a follower that cannot receive);</li>
 *   <li>it neither leads nor starts a view itself (a leader that lost its quorum steps down first,
 *       {@link QuorumCheck});</li>
 *   <li>it is not recovering from amnesia (it could not answer the Phase 1 anyway);</li>
 *   <li>the candidate's view is not below its own (its answer carries its view: the candidate adopts
 *       it and follows), and the candidate is not behind its own decided prefix by more than the
 *       window WND (a new leader re-proposes what it lacks; a window of it is cheap, a restarted
 *       replica thousands of instances behind is not).</li>
 * </ul>
 * Granting promises nothing (no state changes, nothing is persisted): safety rests on Phase 1 as
 * before; pre-vote only keeps needless views from starting. A refused candidate asks again every
 * retransmit period while it still hears nothing from its leader, each time a fresh round; it
 * gives up the round when its view changes.
 *
 * <p>Liveness: among the replicas that can talk to a quorum, the one with the most decided prefix
 * is granted by all of them, and every follower eventually suspects a silent leader.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class PreVoter {
    private final PaxosConfig config;
    private final int self;
    private final Group group;
    /** The view whose leader we suspect and whose successor we ask to start; -1 if none. */
    private long roundView = -1;
    private int grants;
    private long askedAt;
    private long rounds;
    private long granted;
    private long refused;

    PreVoter(PaxosConfig config, int self, Group group) {
        this.group = group;
        this.config = config;
        this.self = self;
    }

    /** Whether we are asking to replace the leader of {@code view}. */
    boolean asking(long view) {
        return roundView >= 0 && roundView == view;
    }

    /** Starts a round (or a fresh one): asks every peer to let us replace the leader of {@code view}. */
    void ask(long view, long firstUndecided, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        roundView = view;
        grants = 1 << self;
        askedAt = now;
        rounds++;
        PaxosMessage.PreVote pv = new PaxosMessage.PreVote(view, firstUndecided);
        Group.sendToOthers(group.recipients(), self, pv, out);
    }

    /** Whether the current round has waited a retransmit period without a quorum. */
    boolean askAgainDue(long now) {
        return roundView >= 0 && now - askedAt >= config.retransmitNanos();
    }

    /** Ends the round: our view changed, or we start the view. */
    void clear() {
        roundView = -1;
        grants = 0;
    }

    /** A peer's answer; whether a quorum, us included, has now granted the round for {@code view}. */
    boolean onReply(int from, PaxosMessage.PreVoteReply r, long view) {
        if (roundView < 0 || roundView != view || r.candidateView() != roundView || !r.granted() || from == self) {
            return false;
        }
        grants |= 1 << from;
        return group.current().isQuorum(grants);
    }

    /**
     * Answers {@code from}'s pre-vote (see the class comment for the rule).
     *
     * @param view           our view
     * @param following      whether we follow the leader of our view (neither lead nor start a view)
     * @param leaderSilent   whether we heard nothing from the leader of our view for the suspect timeout less a heartbeat
     * @param recovering     whether we recover from amnesia
     * @param firstUndecided our decided prefix
     */
    void answer(int from, PaxosMessage.PreVote pv, long view, boolean following, boolean leaderSilent,
                boolean recovering, long firstUndecided, Effects<PaxosMessage, PaxosRecord, Value> out) {
        boolean grant = from != self && !recovering && following && leaderSilent && pv.view() >= view
                && pv.firstUndecided() + config.window() >= firstUndecided;
        if (grant) {
            granted++;
        } else {
            refused++;
        }
        out.send(from, new PaxosMessage.PreVoteReply(view, pv.view(), grant));
    }

    /** Rounds this replica started as a candidate. */
    long rounds() {
        return rounds;
    }

    /** Pre-votes this replica granted. */
    long granted() {
        return granted;
    }

    /** Pre-votes this replica refused. */
    long refused() {
        return refused;
    }
}
