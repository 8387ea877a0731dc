package dev.parallax.ringpaxos;

import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;
import dev.parallax.core.readindex.ReadIndexRounds;

/**
 * Read-index for Ring Paxos (Raft thesis §6.4, adapted to rounds; Ring Paxos (seed 003) ch. 3 is
 * silent on reads): the coordinator of a round plays the leader of rules Q1–Q5 of
 * {@link ReadIndexRounds}, with the round as the epoch. Every member is an acceptor (§3.3.1), so
 * the coordinator confirms its round with a quorum of the member set's voters, point to point
 * ({@link RingMessage.ReadConfirm}, {@link RingMessage.ReadConfirmAck}); the ring's dissemination
 * path is not used. A member that does not coordinate asks its round's coordinator
 * ({@link RingMessage.ReadIndexRequest}, {@link RingMessage.ReadIndexReply}).
 *
 * <ul>
 *   <li><b>Q1 here.</b> The point is {@code max(next instance to open, end of the re-proposals
 *       Phase 1 found, first undecided)} ({@link Coordinator#readPoint}): every instance the
 *       coordinator opened in its round, or will re-propose from its Phase 1, lies below it.</li>
 *   <li><b>Q2 here.</b> An acceptor answers with its round ({@link RingAcceptor#rnd}), which only
 *       grows: it adopts a higher round on a Phase 1A or on a Phase 2 message of that round, and
 *       either way it then refuses to vote in a lower one. A member that holds no round yet, or
 *       recovers from amnesia, does not answer.</li>
 *   <li><b>Q3 here.</b> A membership change ({@link RingGroup}) opened and undecided, or about to
 *       be opened, holds the rounds back.</li>
 * </ul>
 *
 * <p>Not thread-safe; owned by {@link RingPaxosCore} and called on its driver's thread.
 */
final class RingReads {
    private final RingEngine engine;
    private final ReadIndexRounds<RingWire, RingRecord, RingValue> rounds;

    RingReads(RingConfig config, int self, RingEngine engine) {
        this.engine = engine;
        this.rounds = new ReadIndexRounds<>(self, config.suspectNanos(), config.retransmitNanos(),
                new ReadIndexRounds.Leadership<>() {
                    @Override
                    public boolean leads() {
                        return engine.leading() && !engine.recovering();
                    }

                    @Override
                    public long readPoint() {
                        return engine.readPoint();
                    }

                    @Override
                    public boolean changeInFlight() {
                        return engine.changeInFlight();
                    }

                    @Override
                    public long firstUndecided() {
                        return engine.firstUndecided();
                    }

                    @Override
                    public MembershipHistory members() {
                        return engine.group().history();
                    }

                    @Override
                    public RingWire confirm(long round, long sequence) {
                        return new RingMessage.ReadConfirm(round, sequence);
                    }

                    @Override
                    public RingWire confirmAck(long round, long sequence) {
                        return new RingMessage.ReadConfirmAck(round, sequence);
                    }

                    @Override
                    public RingWire request(long round, long read) {
                        return new RingMessage.ReadIndexRequest(round, read);
                    }

                    @Override
                    public RingWire reply(long round, long read, long position) {
                        return new RingMessage.ReadIndexReply(round, read, position);
                    }
                });
    }

    /** Whether {@code m} is one of read-index's messages. */
    static boolean owns(RingWire m) {
        return m instanceof RingMessage.ReadConfirm || m instanceof RingMessage.ReadConfirmAck
                || m instanceof RingMessage.ReadIndexRequest || m instanceof RingMessage.ReadIndexReply;
    }

    /** Q1: the coordinator notes a local read, another member asks its coordinator, anyone else fails it. */
    void onLocalRead(long read, long now, Effects<RingWire, RingRecord, RingValue> out) {
        int coordinator = engine.coordinator();
        boolean following = engine.rnd() >= 0 && !engine.recovering() && !engine.leading();
        rounds.onLocalRead(read, engine.rnd(), coordinator, following, now, out);
    }

    /** One of read-index's messages ({@link #owns}), well formed, from member {@code from}. */
    void onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out) {
        long rnd = engine.rnd();
        if (m instanceof RingMessage.ReadConfirm c) {
            if (rnd >= 0) {
                rounds.onConfirm(from, c.round(), c.sequence(), rnd, engine.recovering(), now, out);
            }
        } else if (m instanceof RingMessage.ReadConfirmAck a) {
            rounds.onConfirmAck(from, a.round(), a.sequence(), rnd, out);
        } else if (m instanceof RingMessage.ReadIndexRequest r) {
            rounds.onRequest(from, r.read(), rnd, now, out);
        } else if (m instanceof RingMessage.ReadIndexReply r) {
            rounds.onReply(r.read(), r.position(), engine.coordinator(), out);
        }
    }

    /** After every step ({@link ReadIndexRounds#check}). */
    void check(long now, Effects<RingWire, RingRecord, RingValue> out) {
        rounds.check(engine.rnd(), engine.coordinator(), now, out);
    }

    /** Reads waiting at this coordinator or asked of it (tests). */
    int waiting() {
        return rounds.waiting();
    }
}
