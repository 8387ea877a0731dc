package dev.parallax.core.readindex;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Read-index (Raft thesis §6.4) for a protocol whose leader holds an epoch — a Multi-Paxos view, a
 * Ring Paxos round — that acceptors promise and never lower: the replica's reads are answered with
 * a position its state must reach, without ordering them. The protocol supplies what is its own
 * through {@link Leadership} (whether this replica leads, its point, its member history, its
 * messages); the rules are these.
 *
 * <p><b>Rules.</b>
 * <ul>
 *   <li><b>Q1 (the point).</b> A read that reaches the leader of epoch {@code e} (its own, or
 *       another replica's {@link Leadership#request request}) notes {@link Leadership#readPoint}:
 *       a position above every instance the leader opened or will re-propose from its completed
 *       Phase 1, and at least its first undecided instance. A replica that does not lead (still in
 *       Phase 1 included) refuses.</li>
 *   <li><b>Q2 (the confirmation).</b> The leader then sends {@link Leadership#confirm confirm(e, r)}
 *       to the voters, in a confirmation round {@code r} begun after the read arrived; a voter
 *       answers {@link Leadership#confirmAck confirmAck(its epoch, r)} (not while it recovers from
 *       amnesia: its promise may be lost). The round confirms once the voters that answered with
 *       epoch {@code e}, the leader included, hold a quorum of the membership in effect at the
 *       leader's first undecided instance and of every later one it knows
 *       ({@link MembershipHistory#isQuorumOfEvery}). Reads arriving during a round wait for the
 *       next, so one round serves every read of its batch; a round is resent every retransmit
 *       interval until it confirms.</li>
 *   <li><b>Q3 (no change in flight).</b> No round starts while a configuration command is opened
 *       and undecided at the leader: its reads wait for the decision, at most the suspect timeout
 *       (then they fail, Q5).</li>
 *   <li><b>Q4 (the answer).</b> A confirmed read is answered with its point: a local read with
 *       {@code readReady}, another replica's with {@link Leadership#reply}, which that replica turns
 *       into {@code readReady}. The replica runs the query once it delivered every decision below
 *       the point.</li>
 *   <li><b>Q5 (failure).</b> A leader that stops leading, or whose epoch changes during a round,
 *       fails its waiting reads (another replica's with a refusal); a replica fails a read its
 *       leader did not answer within the suspect timeout, and one it cannot send (no leader known,
 *       or it starts an epoch itself). The client retries.</li>
 * </ul>
 *
 * <p><b>Why it is linearizable.</b> Let a write complete before the read arrived; it was decided at
 * some instance {@code i}. If {@code i} is below the point, the read waits for it (decisions are
 * unique). Otherwise the write was decided in an epoch {@code w > e} (in epoch {@code e} only the
 * leader opens instances, below its point; a value chosen before {@code e} is reported by Phase 1
 * and re-proposed below the point), so a quorum of the membership at {@code i} held a promise of
 * at least {@code w} before the write completed. Take the lowest instance {@code j} at or above the
 * leader's first undecided instance where a newer leader decided something: the membership there
 * is one the leader knows (changes below {@code j} are the leader's own, and by Q3 decided), and
 * its quorum promised at least {@code w} before the read arrived. By Q2 a quorum of that membership
 * answered with epoch {@code e} after the read arrived: the quorums meet in an acceptor that would
 * have promised {@code w} and then answered {@code e < w} — impossible, since promises only grow.
 *
 * <p><b>Leases (opt-in).</b> With a lease duration {@code D > 0} the leader also holds a lease
 * (Raft thesis §6.4.1): a confirmation round begun at {@code t} (its clock) lets it answer reads
 * at once, without a round, until {@code t + D}, while it leads the same epoch and no change is in
 * flight.
 * <ul>
 *   <li><b>L1 (the voters' promise).</b> A voter that answers the leader's confirmation adopts no
 *       higher epoch from anyone but that leader for the lease window {@code W} after it answered
 *       (its clock), nor for {@code W} after it (re)starts (it forgot whom it promised); the
 *       protocol enforces this ({@link #promised}).</li>
 *   <li><b>L2 (the drift bound).</b> {@code D = W (1 − ρ) / (1 + ρ)}, where {@code ρ} bounds how
 *       far any clock's rate may stray from real time: the leader's {@code D} then ends, in real
 *       time, before the window of every voter that answered — each answered after {@code t}.
 *       Clocks are read through the driver's {@code now}: no wall time, offsets do not matter,
 *       rates do.</li>
 *   <li><b>L3 (renewal).</b> A leader that answered a read from its lease starts a new round once
 *       half the lease is gone, so a steady read load keeps the lease without waiting.</li>
 * </ul>
 * Why it holds: a newer epoch decides only after a quorum promised it; that quorum meets the
 * lease's in a voter which, by L1, promised it only after its window ended, and by L2 the lease had
 * ended before. The cost is availability: a newer leader waits out the windows.
 *
 * <p>Not thread-safe; owned by one protocol core and called on its driver's thread.
 *
 * @param <M> the protocol's messages
 * @param <R> its durable records
 * @param <V> its values
 */
public final class ReadIndexRounds<M, R, V> {
    /** The position a {@link Leadership#reply reply} carries for a refused read. */
    public static final long REFUSED = -1;

    /**
     * What read-index needs of the protocol, read on the driver's thread during a step.
     *
     * @param <M> the protocol's messages
     */
    public interface Leadership<M> {
        /** Whether this replica leads its epoch with Phase 1 complete. */
        boolean leads();

        /** Q1: above every instance the leader opened or will re-propose; at least its first undecided. */
        long readPoint();

        /** Q3: a configuration command is opened and not yet decided here. */
        boolean changeInFlight();

        /** Every instance below it is decided here. */
        long firstUndecided();

        /** Which member set governs each instance, as far as this replica knows. */
        MembershipHistory members();

        /** Q2: the leader of {@code epoch} asks whether the voter still follows it, in round {@code round}. */
        M confirm(long epoch, long round);

        /** Q2: a voter's answer to round {@code round}, with its own epoch. */
        M confirmAck(long epoch, long round);

        /** Q1: a replica asks the leader of {@code epoch} for read {@code read}'s point. */
        M request(long epoch, long read);

        /** Q4, Q5: the leader's answer to a {@link #request}: the point, or {@link #REFUSED}. */
        M reply(long epoch, long read, long position);
    }

    /** A read waiting at the leader: who asked, its number there, its point (Q1), and when it gives up (Q5). */
    private record Waiting(int origin, long read, long point, long deadline) {
    }

    private final int self;
    private final long suspectNanos;
    private final long retransmitNanos;
    private final Leadership<M> leadership;
    /** The lease duration D (0: no lease), and the window W voters promise (L1, L2). */
    private final long leaseNanos;
    private final long windowNanos;
    private long leaseEpoch = -1;
    private long leaseUntil;
    private boolean leaseUsed;
    private long roundStartedAt;
    /** A voter's promise (L1): no higher epoch but from {@link #promisedTo} before {@link #promisedUntil}. */
    private long promisedUntil;
    private int promisedTo = -1;
    private long leaseReads;
    /** Reads of the round in flight, and reads for the next one. */
    private List<Waiting> inRound = new ArrayList<>();
    private List<Waiting> next = new ArrayList<>();
    private long round;
    private boolean confirming;
    private long roundEpoch = -1;
    private int answered;
    private long sentAt;
    /** Reads asked of the leader: read to the deadline for the answer. */
    private final Map<Long, Long> asked = new LinkedHashMap<>();

    /**
     * @param self            this replica's id (below {@link Membership#ID_SPACE}: answers are kept as a bit mask)
     * @param suspectNanos    how long a read may wait for a round or for the leader's answer (Q3, Q5)
     * @param retransmitNanos how often an unconfirmed round is resent (Q2)
     */
    public ReadIndexRounds(int self, long suspectNanos, long retransmitNanos, Leadership<M> leadership) {
        this(self, suspectNanos, retransmitNanos, 0, 0, 0, leadership);
    }

    /**
     * With leases: voters promise {@code windowNanos} (L1) and the leader holds {@code leaseNanos}
     * after each confirmation round (L2; the caller computes it from the window and the drift bound).
     *
     * @param now the driver's clock at the start: a (re)started voter promises a window from here (L1)
     */
    public ReadIndexRounds(int self, long suspectNanos, long retransmitNanos, long windowNanos, long leaseNanos, long now,
                           Leadership<M> leadership) {
        if (leaseNanos < 0 || leaseNanos > windowNanos) {
            throw new IllegalArgumentException("lease " + leaseNanos + " ns must be within the window " + windowNanos + " ns");
        }
        this.self = self;
        this.suspectNanos = suspectNanos;
        this.retransmitNanos = retransmitNanos;
        this.windowNanos = windowNanos;
        this.leaseNanos = leaseNanos;
        this.leadership = leadership;
        if (windowNanos > 0) {
            promisedUntil = now + windowNanos;
        }
    }

    /**
     * L1: whether this voter must refuse to adopt epoch-raising input from {@code from} now: it
     * answered a leased confirmation (or restarted) less than the window ago, and {@code from} is not
     * the leader it answered. Always false without leases.
     */
    public boolean promised(int from, long now) {
        return windowNanos > 0 && now - promisedUntil < 0 && from != promisedTo;
    }

    /** Reads answered from the lease, without a round (tests and metrics). */
    public long leaseReads() {
        return leaseReads;
    }

    /**
     * The replica asks for read {@code read}: the leader notes it (Q1), a follower asks its leader,
     * anyone else fails it (Q5).
     *
     * @param leader    the replica believed to lead (-1 for none)
     * @param following whether this replica follows {@code leader}'s epoch and may ask it
     */
    public void onLocalRead(long read, long epoch, int leader, boolean following, long now, Effects<M, R, V> out) {
        if (leadership.leads()) {
            note(self, read, epoch, now, out);
        } else if (following && leader >= 0 && leader != self) {
            out.send(leader, leadership.request(epoch, read));
            asked.put(read, now + suspectNanos);
            out.wakeAt(now + suspectNanos);
        } else {
            out.readFailed(read, leader);
        }
    }

    /** Another replica's read reached us: noted if we lead (Q1), refused otherwise. */
    public void onRequest(int from, long read, long epoch, long now, Effects<M, R, V> out) {
        if (leadership.leads()) {
            note(from, read, epoch, now, out);
        } else {
            out.send(from, leadership.reply(epoch, read, REFUSED));
        }
    }

    /** The leader's answer to one of our reads (Q4), or its refusal (Q5). */
    public void onReply(long read, long position, int leader, Effects<M, R, V> out) {
        if (asked.remove(read) == null) {
            return; // answered already (timed out), or not ours
        }
        if (position == REFUSED) {
            out.readFailed(read, leader);
        } else {
            out.readReady(read, position);
        }
    }

    /**
     * The leader of {@code confirmEpoch} asks whether we still follow it (Q2): we answer with our
     * epoch, unless recovering; with leases, an answer in the same epoch promises the window (L1).
     */
    public void onConfirm(int from, long confirmEpoch, long confirmRound, long epoch, boolean recovering, long now,
                          Effects<M, R, V> out) {
        if (!recovering && from != self) {
            if (windowNanos > 0 && confirmEpoch == epoch) {
                promisedTo = from;   // L1: the window runs from the answer
                promisedUntil = Math.max(promisedUntil, now + windowNanos);
            }
            out.send(from, leadership.confirmAck(epoch, confirmRound));
        }
    }

    /** A voter answered round {@code confirmRound} with its epoch {@code ackEpoch} (Q2). */
    public void onConfirmAck(int from, long ackEpoch, long confirmRound, long epoch, Effects<M, R, V> out) {
        if (confirming && confirmRound == round && ackEpoch == epoch && epoch == roundEpoch && from >= 0 && from < Membership.ID_SPACE) {
            answered |= 1 << from;
            confirmIfQuorum(epoch, out);
        }
    }

    /**
     * After every step: fail what a lost leadership leaves (Q5), resend a round that waits, start
     * one for reads that wait (Q3 permitting), and fail follower reads past their deadline.
     */
    public void check(long epoch, int leader, long now, Effects<M, R, V> out) {
        if (!leadership.leads() || (confirming && epoch != roundEpoch)) {
            failWaiting(epoch, leader, out);
        } else if (!confirming && leaseUsed && leaseHeld(epoch, now) && now - (leaseUntil - leaseNanos / 2) >= 0) {
            leaseUsed = false;   // L3: renew while reads come
            startRound(epoch, now, true, out);
        } else if (confirming && now - sentAt >= retransmitNanos) {
            send(epoch, voters() & ~answered, out);
            sentAt = now;
            out.wakeAt(now + retransmitNanos);
        } else if (!confirming) {
            startRound(epoch, now, false, out);
        }
        if (!next.isEmpty() && now - next.get(0).deadline() >= 0) {
            failExpired(epoch, leader, now, out); // Q5: waited for a change in flight past the suspect timeout
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

    /** Reads waiting at this leader or asked of the leader (tests). */
    public int waiting() {
        return inRound.size() + next.size() + asked.size();
    }

    private int voters() {
        return leadership.members().voters(leadership.firstUndecided());
    }

    private void note(int origin, long read, long epoch, long now, Effects<M, R, V> out) {
        long point = Math.max(leadership.readPoint(), leadership.firstUndecided());
        Waiting w = new Waiting(origin, read, point, now + suspectNanos);
        if (leaseHeld(epoch, now) && !leadership.changeInFlight()) {
            leaseReads++;
            if (!leaseUsed) {
                leaseUsed = true;
                out.wakeAt(leaseUntil - leaseNanos / 2);   // L3
            }
            answer(w, epoch, out);
            return;
        }
        next.add(w);
        if (!confirming) {
            startRound(epoch, now, false, out);
        }
    }

    /** L2: this leader's lease covers {@code now} in {@code epoch}. */
    private boolean leaseHeld(long epoch, long now) {
        return leaseNanos > 0 && epoch == leaseEpoch && now - leaseUntil < 0;
    }

    private void startRound(long epoch, long now, boolean renewal, Effects<M, R, V> out) {
        if ((next.isEmpty() && !renewal) || leadership.changeInFlight()) {
            return; // Q3: the change's decision first
        }
        List<Waiting> swap = inRound;
        inRound = next;
        next = swap;
        round++;
        roundEpoch = epoch;
        confirming = true;
        answered = 1 << self;
        sentAt = now;
        roundStartedAt = now;
        send(epoch, voters(), out);
        out.wakeAt(now + retransmitNanos);
        confirmIfQuorum(epoch, out);
    }

    private void send(long epoch, int voters, Effects<M, R, V> out) {
        M confirm = null;
        for (int m = 0; m < Membership.ID_SPACE; m++) {
            if (m != self && (voters & (1 << m)) != 0) {
                if (confirm == null) {
                    confirm = leadership.confirm(epoch, round);
                }
                out.send(m, confirm);
            }
        }
    }

    private void confirmIfQuorum(long epoch, Effects<M, R, V> out) {
        if (!leadership.members().isQuorumOfEvery(leadership.firstUndecided(), answered)) {
            return;
        }
        confirming = false;
        if (leaseNanos > 0) {
            // L2: from the round's first send, which every answer followed.
            leaseUntil = Math.max(leaseEpoch == epoch ? leaseUntil : 0, roundStartedAt + leaseNanos);
            leaseEpoch = epoch;
        }
        for (Waiting w : inRound) {
            answer(w, epoch, out);
        }
        inRound.clear();
    }

    private void answer(Waiting w, long epoch, Effects<M, R, V> out) {
        if (w.origin() == self) {
            out.readReady(w.read(), w.point());
        } else {
            out.send(w.origin(), leadership.reply(epoch, w.read(), w.point()));
        }
    }

    /** Fails the reads waiting for a round (not those of the round in flight) whose deadline passed. */
    private void failExpired(long epoch, int leader, long now, Effects<M, R, V> out) {
        next.removeIf(w -> {
            if (now - w.deadline() < 0) {
                return false;
            }
            fail(w, epoch, leader, out);
            return true;
        });
    }

    private void fail(Waiting w, long epoch, int leader, Effects<M, R, V> out) {
        if (w.origin() == self) {
            out.readFailed(w.read(), leader);
        } else {
            out.send(w.origin(), leadership.reply(epoch, w.read(), REFUSED));
        }
    }

    private void failWaiting(long epoch, int leader, Effects<M, R, V> out) {
        confirming = false;
        leaseEpoch = -1;
        leaseUsed = false;
        for (List<Waiting> list : List.of(inRound, next)) {
            for (Waiting w : list) {
                fail(w, epoch, leader, out);
            }
            list.clear();
        }
    }
}
