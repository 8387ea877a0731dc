package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.membership.Membership;

import java.util.Arrays;

/**
 * Recovery of a replica whose durable log may have lost promises and votes it had acted on
 * ("amnesia": a restart after an unclean stop under a sync policy that does not force every record,
 * see {@code DurableLog.amnesiaPossible()}), and the peers' side of it. In the spirit of JPaxos'
 * epoch-based recovery (Kończak et al., "Recovery algorithms for Paxos-based state machine
 * replication", EpochSS), without epochs: view fences instead.
 *
 * <p><b>The recovering replica</b> is a non-voting learner until recovered: it answers no Prepare
 * and no Propose, neither leads nor starts views, and answers no recovery query. It runs rounds. A
 * round has a fence {@code F} (its view when the round starts) and sends {@link
 * PaxosMessage.RecoveryQuery RecoveryQuery(F)} to every peer, resending to the silent ones every
 * retransmit period. It needs {@code n - quorum + 1} <em>fenced</em> answers from other replicas
 * (n=3: both peers; n=5: three). A peer whose promise was above {@code F} answers unfenced: the
 * round restarts with the higher view as fence. When enough fenced answers arrive, {@code H} is one
 * more than the highest instance they report; the replica waits until every instance below
 * {@code H} is decided locally (catch-up), then persists, synced, a trim point {@code H} (its
 * Phase 1 answers then tell leaders that everything below is decided) and its promise (above
 * {@code F}), and votes again.
 *
 * <p><b>A peer</b> (not recovering itself) answering a query with fence {@code F} whose promise was
 * at most {@code F} first promises {@code F + 1} durably ({@code F + 2} if the asker leads
 * {@code F + 1}): from then on it never votes in a view up to {@code F}. Then it reports the
 * highest instance it has voted in or knows decided.
 *
 * <p><b>Why it is safe</b> (the full argument is in docs/protocols/multi-paxos.md, "Recovery from
 * amnesia"). Let a value be chosen at instance {@code j} in view {@code w} by a quorum {@code Q}
 * that counted a vote the replica lost. The fenced answerers {@code R} meet {@code Q} minus the
 * replica ({@code |R| = n - quorum + 1} others, and only {@code n - quorum} others lie outside
 * {@code Q}). A member {@code r} of both promised {@code w} before the lost vote was cast (Phase 1
 * of {@code w} ended before the leader proposed), so before answering: {@code w <= F} because its
 * answer was fenced. So {@code r} voted at {@code j} before answering (afterwards it refuses
 * {@code w}), and reported {@code j}: {@code j < H}. The replica decides {@code j} before voting
 * and reports it as decided; above {@code H}, no quorum that counts a lost vote can ever form.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}. Pure: no clock, I/O or randomness.
 */
final class AmnesiaRecovery {
    private enum Phase { RECOVERED, QUERYING, CATCHING_UP }

    private final PaxosConfig config;
    private final int self;
    private final Group group;
    private final long[] fencedFor;
    private Phase phase;
    private boolean roundOpen;
    private long fence;
    private int answered;
    private long highest = -1;
    private long decidedBelow = -1;
    private long lastQueryAt;

    /**
     * @param amnesiac whether this replica restarted with amnesia; a single replica has nobody to
     *                 ask and never recovers (there is no other replica to disagree with)
     */
    AmnesiaRecovery(PaxosConfig config, int self, Group group, boolean amnesiac) {
        this.config = config;
        this.self = self;
        this.group = group;
        this.fencedFor = new long[Membership.ID_SPACE];
        Arrays.fill(fencedFor, -1);
        this.phase = amnesiac && group.current().voterCount() > 1 ? Phase.QUERYING : Phase.RECOVERED;
    }

    /** Fenced answers from other replicas a recovery needs: enough to meet every quorum minus the asker. */
    static int neededAnswers(int members, int quorum) {
        return members - quorum + 1;
    }

    /** Whether this replica is still recovering (must not vote, promise, lead or answer queries). */
    boolean recovering() {
        return phase != Phase.RECOVERED;
    }

    /** Whether enough answers arrived and the replica now waits to decide every instance below {@link #decidedBelow()}. */
    boolean catchingUp() {
        return phase == Phase.CATCHING_UP;
    }

    /** The current round's fence (meaningful while querying). */
    long fence() {
        return fence;
    }

    /** {@code H}: every instance below it must be decided before voting; -1 until enough answers arrived. */
    long decidedBelow() {
        return decidedBelow;
    }

    /**
     * Recovering: opens the first round, resends the query to silent peers once a retransmit
     * period passed, and, once caught up below {@code H}, persists the recovered state and ends
     * the recovery.
     *
     * @param view the replica's current view (the fence of a new round)
     */
    void tick(long now, long view, Learner learner, Acceptor acceptor, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (phase == Phase.QUERYING) {
            if (!roundOpen) {
                openRound(view, now, out);
            } else if (now - lastQueryAt >= config.retransmitNanos()) {
                sendQueries(now, out);
            }
        } else {
            finishIfCaughtUp(learner, acceptor, out);
        }
    }

    /**
     * Catching up: once every instance below {@code H} is decided here, persists (synced) the trim
     * point {@code H} and a promise above the fence, and ends the recovery. Called after every
     * input, so the recovery ends in the step that decided the last instance below {@code H}.
     */
    void finishIfCaughtUp(Learner learner, Acceptor acceptor, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (phase == Phase.CATCHING_UP && learner.firstUndecided() >= decidedBelow) {
            acceptor.restoreAfterAmnesia(decidedBelow, fence + 1, out);
            phase = Phase.RECOVERED;
        }
    }

    /**
     * Recovering: counts a peer's answer to the current round. An unfenced answer (the peer had
     * promised above the fence) restarts the round with fence {@code view}, which the caller has
     * already raised to at least the answer's view.
     */
    void onReply(int from, PaxosMessage.RecoveryReply r, long view, long now, Learner learner,
                 Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (phase != Phase.QUERYING || !roundOpen || r.fence() != fence || from == self) {
            return;
        }
        if (!r.fenced()) {
            openRound(Math.max(view, r.view()), now, out);
            return;
        }
        answered |= 1 << from;
        highest = Math.max(highest, r.highest());
        Membership m = group.current();
        if (Integer.bitCount(answered & m.voters()) >= neededAnswers(m.voterCount(), m.quorum())) {
            decidedBelow = highest + 1;
            // Not necessarily decided yet, but every instance below H will be (the fenced peers
            // moved past the views that could still vote there): keep asking for it.
            learner.noteDecidedUpTo(highest);
            phase = Phase.CATCHING_UP;
        }
    }

    /**
     * The view a peer promises when it fences {@code asker}'s {@code fence}: the first view above
     * the fence that a voter other than the asker leads. Were it the asker's, the others would follow a
     * leader that does not lead while it recovers, and its recovery traffic would keep the
     * transport-level failure detector from suspecting it.
     */
    long fencedView(int asker, long fence) {
        Membership m = group.current();
        for (long v = fence + 1; v <= fence + Membership.ID_SPACE; v++) {
            int leader = Membership.leaderOf(v);
            if (leader != asker && m.isVoter(leader)) {
                return v;
            }
        }
        long v = fence + 1;
        return Membership.leaderOf(v) == asker ? v + 1 : v;
    }

    /**
     * A peer's query, when this replica is not recovering: whether the answer is fenced. It is when
     * our promise before the message ({@code promisedBefore}) was at most the fence, or when we
     * already answered this peer's same fence fenced and have promised nothing since. The caller
     * then promises at least {@link #fencedView} (durably) before sending the answer.
     */
    boolean fences(int from, PaxosMessage.RecoveryQuery q, long promisedBefore) {
        boolean fenced = promisedBefore <= q.view()
                || (fencedFor[from] == q.view() && promisedBefore == fencedView(from, q.view()));
        if (fenced) {
            fencedFor[from] = q.view();
        }
        return fenced;
    }

    private void openRound(long newFence, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        roundOpen = true;
        fence = newFence;
        answered = 0;
        highest = -1;
        sendQueries(now, out);
    }

    private void sendQueries(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        PaxosMessage.RecoveryQuery q = new PaxosMessage.RecoveryQuery(fence);
        Group.sendToOthers(group.recipients() & ~answered, self, q, out);
        lastQueryAt = now;
    }
}
