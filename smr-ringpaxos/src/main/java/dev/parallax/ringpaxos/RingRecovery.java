package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.ringpaxos.RingMessage.RecoveryQuery;
import dev.parallax.ringpaxos.RingMessage.RecoveryReply;

import java.util.Arrays;

/**
 * Recovery of a member whose durable log may have lost promises and votes it had acted on
 * ("amnesia": a restart after an unclean stop under {@code log.sync=none|periodic}, or a wiped
 * directory; see {@code DurableLog.amnesiaPossible()}), and the peers' side of it (plan C10). The
 * rule is Multi-Paxos' {@code AmnesiaRecovery} (smr-paxos) with rounds as fences, in the spirit of
 * JPaxos' epoch-based recovery (Kończak et al., "Recovery algorithms for Paxos-based state machine
 * replication"). seed 003 (Ring Paxos) §3.3.5 names the two ways to keep an acceptor's state
 * ("assuming that a majority of acceptors never fails", or stable storage before replying); this is
 * what a member that had neither does.
 *
 * <p><b>The recovering member</b> answers no Phase 1A, votes on no 2A, forwards no 2B or packet
 * entry, never coordinates and answers no recovery query; it learns decisions. It runs recovery
 * rounds: a round has a fence {@code F} (its round {@code rnd} when the recovery round opens, at
 * least 0) and
 * sends {@link RecoveryQuery RecoveryQuery(F)} to every peer, again to the silent ones every
 * {@code ring.retransmit}. It needs {@code n − quorum + 1} <em>fenced</em> answers from other
 * members (n=3: both peers; n=4: two; n=5: three; n=6: three). A peer whose promise was above {@code F} answers
 * unfenced: the round restarts with that higher round as fence. With enough fenced answers,
 * {@code H} is one more than the highest instance they report; the member waits until every
 * instance below {@code H} is decided here (catch-up, C6), then persists, synced, {@code Trim(H)}
 * (its Phase 1B then reports everything below as trimmed, never re-proposable) and
 * {@code Promise(F + 1)}, and votes again.
 *
 * <p><b>A peer</b> (not recovering itself) answering fence {@code F} whose promise was at most
 * {@code F} first promises {@code F + 1} durably ({@code F + 2} if the asker coordinates
 * {@code F + 1}: {@code coordinator(r) = r mod n}), so it never again votes in a round up to
 * {@code F}; then it reports the highest instance it voted in or knows decided.
 *
 * <p><b>Why it is safe</b> (restated for rings in ring-paxos.md, "Durability and recovery from
 * amnesia"). Let value v be decided at instance j in round w; the {@code quorum} acceptors of ring(w)
 * (a majority, {@link RingConfig#ringAcceptors()}) all voted (M-Ring M3/M4, U-Ring U3), and the
 * vote the amnesiac lost is one of them. So any {@code n − quorum + 1} fenced answerers include
 * one member r of ring(w) other than the asker (only {@code n − quorum} others lie outside it). r
 * promised w before it voted, and its answer was fenced, so {@code w ≤ F} and r had voted at j
 * before answering (afterwards it refuses every round ≤ F): it reported some {@code highest ≥ j},
 * so {@code j < H}, and the member learns j's decision before it votes again. Above {@code H} no
 * round ≤ F can still gather the quorum of votes that would need the lost one, and the member's
 * promise is above F. Unlike Multi-Paxos a ring round's Phase 2 needs <em>all</em> the ring's
 * acceptors (Flexible Paxos), which only strengthens the intersection.
 *
 * <p>Not thread-safe; owned by the engine, called on the core's single thread. Pure: no clock,
 * I/O or randomness.
 */
final class RingRecovery implements Recovery {
    /** What the recovery needs from the engine (acceptor, learner, catch-up). */
    interface Host {
        /** The member's current round promise ({@code rnd}). */
        long rnd();

        /** The first instance not decided here. */
        long firstUndecided();

        /** Every instance up to {@code instance} is decided somewhere: catch up to it (C6). */
        void noteDecidedUpTo(long instance);

        /**
         * Persists, synced, {@code Trim(trimBelow)} and {@code Promise(promise)}, and takes them as
         * the acceptor's state (trim point and {@code rnd}); votes resume after this call.
         */
        void restoreAfterAmnesia(long trimBelow, long promise, Effects<RingWire, RingRecord, RingValue> out);

        /** The highest instance this member voted in or knows decided, -1 if none. */
        long highestVotedOrDecided();

        /** Promises {@code round} durably (synced {@code Promise(round)}), raising {@code rnd}. */
        void promise(long round, Effects<RingWire, RingRecord, RingValue> out);
    }

    private enum Phase { RECOVERED, QUERYING, CATCHING_UP }

    private final RingConfig config;
    private final Host host;
    private final int self;
    private final int needed;
    private final long[] fencedFor;
    private Phase phase;
    private boolean roundOpen;
    private long fence;
    private long answered;
    private long highest = -1;
    private long decidedBelow = -1;
    private long lastQueryAt;
    private long rounds;

    /**
     * @param amnesiac whether this member restarted with amnesia; a single member has nobody to
     *                 ask and never recovers (there is no other member to disagree with)
     * @param host     the engine's side: acceptor, learner, catch-up
     */
    RingRecovery(RingConfig config, int self, boolean amnesiac, Host host) {
        this.config = config;
        this.host = host;
        this.self = self;
        this.needed = neededAnswers(config.members(), config.quorum());
        this.fencedFor = new long[config.members()];
        Arrays.fill(fencedFor, -1);
        this.phase = amnesiac && config.members() > 1 ? Phase.QUERYING : Phase.RECOVERED;
    }

    /** Fenced answers from other members a recovery needs: enough to meet every quorum minus the asker. */
    static int neededAnswers(int members, int quorum) {
        return members - quorum + 1;
    }

    /** Whether this member is still recovering (must not vote, promise, coordinate or answer queries). */
    @Override
    public boolean recovering() {
        return phase != Phase.RECOVERED;
    }

    /** Whether enough answers arrived and the member now waits to decide every instance below {@link #decidedBelow()}. */
    boolean catchingUp() {
        return phase == Phase.CATCHING_UP;
    }

    /** The current recovery round's fence (meaningful while querying). */
    long fence() {
        return fence;
    }

    /** {@code H}: every instance below it must be decided before voting; -1 until enough answers arrived. */
    long decidedBelow() {
        return decidedBelow;
    }

    /** Recovery rounds opened so far (event {@code recovery.rounds}). */
    long rounds() {
        return rounds;
    }

    /**
     * Recovering: opens the first round (fence = {@code host.rnd()}), resends the query to silent
     * peers once {@code ring.retransmit} passed, and, catching up, ends the recovery once every
     * instance below {@code H} is decided.
     */
    @Override
    public void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (phase == Phase.QUERYING) {
            if (!roundOpen) {
                openRound(Math.max(0, host.rnd()), now, out);
            } else if (now - lastQueryAt >= config.retransmitNanos()) {
                sendQueries(now, out);
            }
        } else {
            finishIfCaughtUp(out);
        }
    }

    /**
     * Catching up: once every instance below {@code H} is decided here, persists (synced) the trim
     * point {@code H} and a promise above the fence, and ends the recovery. Called after every
     * input, so the recovery ends in the step that decided the last instance below {@code H}.
     */
    void finishIfCaughtUp(Effects<RingWire, RingRecord, RingValue> out) {
        if (phase == Phase.CATCHING_UP && host.firstUndecided() >= decidedBelow) {
            host.restoreAfterAmnesia(decidedBelow, Math.max(fence + 1, host.rnd()), out);
            phase = Phase.RECOVERED;
        }
    }

    /**
     * Routes a recovery message: a query is answered by a member that is not recovering, a reply
     * counts for a recovering one. Other messages are not this class's.
     *
     * @return whether {@code m} was a recovery message
     */
    @Override
    public boolean onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (m instanceof RecoveryQuery q) {
            answer(from, q, out);
            return true;
        }
        if (m instanceof RecoveryReply r) {
            onReply(from, r, now, out);
            if (catchingUp()) {
                finishIfCaughtUp(out);
            }
            return true;
        }
        return false;
    }

    /**
     * Recovering: counts a peer's answer to the current round. An unfenced answer (the peer had
     * promised above the fence) restarts the round with the peer's round as fence.
     */
    void onReply(int from, RecoveryReply r, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (phase != Phase.QUERYING || !roundOpen || r.fence() != fence || from == self
                || from < 0 || from >= config.members()) {
            return;
        }
        if (!r.fenced()) {
            openRound(Math.max(Math.max(fence, host.rnd()), r.round()), now, out);
            return;
        }
        answered |= 1L << from;
        highest = Math.max(highest, r.highest());
        if (Long.bitCount(answered) >= needed) {
            decidedBelow = highest + 1;
            // Not necessarily decided here yet, but every instance below H will be (the fenced
            // peers moved past the rounds that could still decide there without us): ask for it.
            if (highest >= 0) {
                host.noteDecidedUpTo(highest);
            }
            phase = Phase.CATCHING_UP;
        }
    }

    /**
     * A peer's query: a recovering member does not answer. Otherwise, if the answer is fenced (our
     * promise was at most the fence, or we already answered this asker's same fence and promised
     * nothing since), promise {@link #fencedRound} durably first; then report our promise and the
     * highest instance voted or decided here.
     */
    void answer(int from, RecoveryQuery q, Effects<RingWire, RingRecord, RingValue> out) {
        if (recovering() || from == self || from < 0 || from >= config.members() || q.fence() < 0) {
            return;
        }
        long promisedBefore = host.rnd();
        long fencedRound = fencedRound(from, q.fence());
        boolean fenced = promisedBefore <= q.fence()
                || (fencedFor[from] == q.fence() && promisedBefore == fencedRound);
        if (fenced) {
            fencedFor[from] = q.fence();
            if (promisedBefore < fencedRound) {
                host.promise(fencedRound, out);
            }
        }
        out.send(from, new RecoveryReply(host.rnd(), q.fence(), fenced, host.highestVotedOrDecided()));
    }

    /**
     * The round a peer promises when it fences {@code asker}'s {@code fence}: the first round above
     * the fence that the asker does not coordinate. Were it the asker's, the others would wait on a
     * coordinator that cannot act while it recovers.
     */
    long fencedRound(int asker, long fence) {
        long r = fence + 1;
        return config.coordinatorOf(r) == asker ? r + 1 : r;
    }

    private void openRound(long newFence, long now, Effects<RingWire, RingRecord, RingValue> out) {
        roundOpen = true;
        rounds++;
        fence = newFence;
        answered = 0;
        highest = -1;
        sendQueries(now, out);
    }

    private void sendQueries(long now, Effects<RingWire, RingRecord, RingValue> out) {
        RecoveryQuery q = new RecoveryQuery(fence);
        for (int r = 0; r < config.members(); r++) {
            if (r != self && (answered & (1L << r)) == 0) {
                out.send(r, q);
            }
        }
        lastQueryAt = now;
    }
}
