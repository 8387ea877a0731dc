package dev.parallax.paxos;

import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Read-index for Multi-Paxos (Raft thesis §6.4, adapted to views): the replica's reads are answered
 * with a position its state must reach, without ordering them.
 *
 * <p><b>Rules.</b>
 * <ul>
 *   <li><b>Q1 (the point).</b> A read that reaches the leader of view {@code v} (its own, or a
 *       follower's {@link PaxosMessage.ReadIndexRequest}) notes the position
 *       {@code max(nextInstance, reproposeEnd, firstUndecided)} ({@link Proposer#readPoint}): every
 *       instance the leader proposed, or will re-propose from its completed Phase 1, lies below it.
 *       A leader still in Phase 1 refuses.</li>
 *   <li><b>Q2 (the confirmation).</b> The leader then sends {@link PaxosMessage.ReadConfirm
 *       ReadConfirm(v, r)} to the voters, in a round begun after the read arrived; a voter answers
 *       {@link PaxosMessage.ReadConfirmAck ReadConfirmAck(its view, r)} (not while it recovers from
 *       amnesia: its promise may be lost). The round confirms once the voters that answered with
 *       view {@code v}, the leader included, hold a quorum of the membership in effect at the
 *       leader's first undecided instance and of every later one it knows
 *       ({@link MembershipHistory#isQuorumOfEvery}). Reads arriving during a round wait for the
 *       next, so one round serves every read of its batch; a round is resent every retransmit
 *       interval until it confirms.</li>
 *   <li><b>Q3 (no change in flight).</b> No round starts while a configuration command is proposed
 *       and undecided at the leader: its reads wait for the decision, at most the suspect timeout
 *       (then they fail, Q5).</li>
 *   <li><b>Q4 (the answer).</b> A confirmed read is answered with its point: a local read with
 *       {@code readReady}, a follower's with {@link PaxosMessage.ReadIndexReply}, which the
 *       follower turns into {@code readReady}. The replica runs the query once it delivered every
 *       decision below the point.</li>
 *   <li><b>Q5 (failure).</b> A leader that stops leading fails its waiting reads (a follower's
 *       with a refusal); a follower fails a read its leader did not answer within the suspect
 *       timeout, and one it cannot send (no leader known, or it starts a view itself). The client
 *       retries.</li>
 * </ul>
 *
 * <p><b>Why it is linearizable.</b> Let a write complete before the read arrived; it was decided at
 * some instance {@code i}. If {@code i} is below the point, the read waits for it (decisions are
 * unique). Otherwise the write was decided in a view {@code w > v} (in view {@code v} only the
 * leader proposes, below its point; a value chosen before {@code v} is reported by Phase 1, P2c),
 * whose leader had the promises of a quorum of the membership at {@code i} before the write
 * completed; take the lowest instance {@code j} at or above the leader's first undecided instance
 * where a newer leader decided something: the membership there is one the leader knows (changes
 * below {@code j} are the leader's own, and by Q3 decided), and its quorum promised {@code w}
 * before the read arrived. By Q2 a quorum of that membership answered with view {@code v} after the
 * read arrived: the quorums meet in an acceptor that would have promised {@code w} and then
 * answered {@code v < w} — impossible, since promises only grow.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class ReadRounds {
    /** A read waiting at the leader: who asked, its number there, its point (Q1), and when it gives up (Q5). */
    private record Waiting(int origin, long read, long point, long deadline) {
    }

    private final PaxosConfig config;
    private final int self;
    private final MembershipHistory members;
    private final Learner learner;
    private final Proposer proposer;
    /** Reads of the round in flight, and reads for the next one. */
    private List<Waiting> inRound = new ArrayList<>();
    private List<Waiting> next = new ArrayList<>();
    private long round;
    private boolean confirming;
    private long roundView = -1;
    private int answered;
    private long sentAt;
    /** A follower's reads asked of its leader: read to the deadline for the answer. */
    private final Map<Long, Long> asked = new LinkedHashMap<>();

    ReadRounds(PaxosConfig config, int self, MembershipHistory members, Learner learner, Proposer proposer) {
        this.config = config;
        this.self = self;
        this.members = members;
        this.learner = learner;
        this.proposer = proposer;
    }

    /**
     * The replica asks for read {@code read}: the leader notes it (Q1), a follower asks its leader,
     * anyone else fails it (Q5).
     *
     * @param leader the replica believed to lead ({@code ViewChanges.leaderHint})
     */
    void onLocalRead(long read, long view, int leader, boolean following, long now,
                     Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (proposer.isLeading()) {
            note(self, read, view, now, out);
        } else if (following && leader >= 0 && leader != self) {
            out.send(leader, new PaxosMessage.ReadIndexRequest(view, read));
            asked.put(read, now + config.suspectNanos());
            out.wakeAt(now + config.suspectNanos());
        } else {
            out.readFailed(read, leader);
        }
    }

    /** A follower's read reached us: noted if we lead its view or a later one (Q1), refused otherwise. */
    void onRequest(int from, PaxosMessage.ReadIndexRequest r, long view, long now,
                   Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (proposer.isLeading()) {
            note(from, r.read(), view, now, out);
        } else {
            out.send(from, new PaxosMessage.ReadIndexReply(view, r.read(), PaxosMessage.ReadIndexReply.REFUSED));
        }
    }

    /** The leader's answer to one of our reads (Q4), or its refusal (Q5). */
    void onReply(PaxosMessage.ReadIndexReply r, int leader, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (asked.remove(r.read()) == null) {
            return; // answered already (timed out), or not ours
        }
        if (r.position() == PaxosMessage.ReadIndexReply.REFUSED) {
            out.readFailed(r.read(), leader);
        } else {
            out.readReady(r.read(), r.position());
        }
    }

    /** The leader asks whether we still follow it (Q2). */
    void onConfirm(int from, PaxosMessage.ReadConfirm c, long view, boolean recovering,
                   Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!recovering && from != self) {
            out.send(from, new PaxosMessage.ReadConfirmAck(view, c.round()));
        }
    }

    /** A voter answered a round (Q2). */
    void onConfirmAck(int from, PaxosMessage.ReadConfirmAck a, long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (confirming && a.round() == round && a.view() == view && view == roundView) {
            answered |= 1 << from;
            confirmIfQuorum(view, out);
        }
    }

    /**
     * After every step: fail what a lost leadership leaves (Q5), resend a round that waits, start
     * one for reads that wait (Q3 permitting), and fail follower reads past their deadline.
     */
    void check(long view, int leader, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!proposer.isLeading() || (confirming && view != roundView)) {
            failWaiting(view, leader, out);
        } else if (confirming && now - sentAt >= config.retransmitNanos()) {
            send(view, members.voters(learner.firstUndecided()) & ~answered, out);
            sentAt = now;
            out.wakeAt(now + config.retransmitNanos());
        } else if (!confirming) {
            startRound(view, now, out);
        }
        if (!next.isEmpty() && now - next.get(0).deadline() >= 0) {
            failExpired(view, leader, now, out); // Q5: waited for a change in flight past the suspect timeout
        }
        if (!asked.isEmpty()) {
            for (Iterator<Map.Entry<Long, Long>> it = asked.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Long> e = it.next();
                if (now - e.getValue() >= 0) {
                    it.remove();
                    out.readFailed(e.getKey(), leader);
                }
            }
        }
    }

    private void note(int origin, long read, long view, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long point = Math.max(proposer.readPoint(), learner.firstUndecided());
        next.add(new Waiting(origin, read, point, now + config.suspectNanos()));
        if (!confirming) {
            startRound(view, now, out);
        }
    }

    private void startRound(long view, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (next.isEmpty() || proposer.membershipInFlight()) {
            return; // Q3: the change's decision first
        }
        List<Waiting> swap = inRound;
        inRound = next;
        next = swap;
        round++;
        roundView = view;
        confirming = true;
        answered = 1 << self;
        sentAt = now;
        send(view, members.voters(learner.firstUndecided()), out);
        out.wakeAt(now + config.retransmitNanos());
        confirmIfQuorum(view, out);
    }

    private void send(long view, int voters, Effects<PaxosMessage, PaxosRecord, Value> out) {
        Group.sendToOthers(voters, self, new PaxosMessage.ReadConfirm(view, round), out);
    }

    private void confirmIfQuorum(long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!members.isQuorumOfEvery(learner.firstUndecided(), answered)) {
            return;
        }
        confirming = false;
        for (Waiting w : inRound) {
            if (w.origin() == self) {
                out.readReady(w.read(), w.point());
            } else {
                out.send(w.origin(), new PaxosMessage.ReadIndexReply(view, w.read(), w.point()));
            }
        }
        inRound.clear();
    }

    /** Fails the reads waiting for a round (not those of the round in flight) whose deadline passed. */
    private void failExpired(long view, int leader, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        next.removeIf(w -> {
            if (now - w.deadline() < 0) {
                return false;
            }
            fail(w, view, leader, out);
            return true;
        });
    }

    private void fail(Waiting w, long view, int leader, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (w.origin() == self) {
            out.readFailed(w.read(), leader);
        } else {
            out.send(w.origin(), new PaxosMessage.ReadIndexReply(view, w.read(), PaxosMessage.ReadIndexReply.REFUSED));
        }
    }

    private void failWaiting(long view, int leader, Effects<PaxosMessage, PaxosRecord, Value> out) {
        confirming = false;
        for (List<Waiting> list : List.of(inRound, next)) {
            for (Waiting w : list) {
                fail(w, view, leader, out);
            }
            list.clear();
        }
    }

    /** Reads waiting at this leader or asked of the leader (tests). */
    int waiting() {
        return inRound.size() + next.size() + asked.size();
    }
}
