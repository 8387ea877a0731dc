package dev.parallax.paxos;

import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;
import dev.parallax.core.readindex.ReadIndexRounds;

/**
 * Read-index for Multi-Paxos (Raft thesis §6.4, adapted to views): the rules Q1–Q5 of
 * {@link ReadIndexRounds}, with the view as the epoch, {@link Proposer#readPoint} as the point
 * ({@code max(nextInstance, reproposeEnd, firstUndecided)}: every instance the leader proposed, or
 * will re-propose from its completed Phase 1, lies below it), a configuration command proposed and
 * undecided as the change in flight (Q3), and {@link PaxosMessage.ReadConfirm},
 * {@link PaxosMessage.ReadConfirmAck}, {@link PaxosMessage.ReadIndexRequest} and
 * {@link PaxosMessage.ReadIndexReply} as its messages. With {@code paxos.read.lease.ms} set, the
 * leader also holds a lease (rules L1–L3 of {@link ReadIndexRounds}): {@link #promised} is the
 * voters' side, which {@link MultiPaxosCore} applies before it adopts a higher view.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class ReadRounds {
    private final ReadIndexRounds<PaxosMessage, PaxosRecord, Value> rounds;

    ReadRounds(PaxosConfig config, int self, MembershipHistory members, Learner learner, Proposer proposer, long now) {
        this.rounds = new ReadIndexRounds<>(self, config.suspectNanos(), config.retransmitNanos(),
                config.readLeaseWindowNanos(), config.readLeaseNanos(), now, new ReadIndexRounds.Leadership<>() {
                    @Override
                    public boolean leads() {
                        return proposer.isLeading();
                    }

                    @Override
                    public long readPoint() {
                        return proposer.readPoint();
                    }

                    @Override
                    public boolean changeInFlight() {
                        return proposer.membershipInFlight();
                    }

                    @Override
                    public long firstUndecided() {
                        return learner.firstUndecided();
                    }

                    @Override
                    public MembershipHistory members() {
                        return members;
                    }

                    @Override
                    public PaxosMessage confirm(long view, long round) {
                        return new PaxosMessage.ReadConfirm(view, round);
                    }

                    @Override
                    public PaxosMessage confirmAck(long view, long round) {
                        return new PaxosMessage.ReadConfirmAck(view, round);
                    }

                    @Override
                    public PaxosMessage request(long view, long read) {
                        return new PaxosMessage.ReadIndexRequest(view, read);
                    }

                    @Override
                    public PaxosMessage reply(long view, long read, long position) {
                        return new PaxosMessage.ReadIndexReply(view, read, position);
                    }
                });
    }

    /** Q1: the leader notes a local read, a follower asks its leader, anyone else fails it. */
    void onLocalRead(long read, long view, int leader, boolean following, long now,
                     Effects<PaxosMessage, PaxosRecord, Value> out) {
        rounds.onLocalRead(read, view, leader, following, now, out);
    }

    /** A follower's read reached us (Q1), or is refused. */
    void onRequest(int from, PaxosMessage.ReadIndexRequest r, long view, long now,
                   Effects<PaxosMessage, PaxosRecord, Value> out) {
        rounds.onRequest(from, r.read(), view, now, out);
    }

    /** The leader's answer to one of our reads (Q4), or its refusal (Q5). */
    void onReply(PaxosMessage.ReadIndexReply r, int leader, Effects<PaxosMessage, PaxosRecord, Value> out) {
        rounds.onReply(r.read(), r.position(), leader, out);
    }

    /** The leader asks whether we still follow it (Q2). */
    void onConfirm(int from, PaxosMessage.ReadConfirm c, long view, boolean recovering, long now,
                   Effects<PaxosMessage, PaxosRecord, Value> out) {
        rounds.onConfirm(from, c.view(), c.round(), view, recovering, now, out);
    }

    /** A voter answered a round (Q2). */
    void onConfirmAck(int from, PaxosMessage.ReadConfirmAck a, long view, Effects<PaxosMessage, PaxosRecord, Value> out) {
        rounds.onConfirmAck(from, a.view(), a.round(), view, out);
    }

    /** After every step ({@link ReadIndexRounds#check}). */
    void check(long view, int leader, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        rounds.check(view, leader, now, out);
    }

    /** L1 ({@link ReadIndexRounds#promised}): input from {@code from} that raises the view is refused now. */
    boolean promised(int from, long now) {
        return rounds.promised(from, now);
    }

    /** Reads answered from the leader's lease (L2). */
    long leaseReads() {
        return rounds.leaseReads();
    }

    /** Reads waiting at this leader or asked of the leader (tests). */
    int waiting() {
        return rounds.waiting();
    }
}
