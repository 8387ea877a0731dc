package dev.parallax.ringpaxos;

import dev.parallax.core.membership.ChangeGate;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A ring's member set as decided state: which replicas a coordinator may put on a ring as
 * acceptors (the voters), which others receive its decisions (the learners), and from which
 * instance each set governs. The paper (seed 003 (Ring Paxos) §3.2–§3.3) runs a fixed set
 * {@code N_a}; membership change follows Lamport, Malkhi and Zhou, "Reconfiguring a State
 * Machine", §3 (the α method), as Multi-Paxos does (docs/protocols/multi-paxos.md, "Membership
 * changes"), with one {@link MembershipHistory} of the shared types. α is the ring's window
 * ({@code ring.window}).
 *
 * <p><b>The rules.</b>
 * <ol>
 *   <li><b>G1, a ring value of its own kind.</b> A configuration command is a value id of origin
 *       {@link ValueId#CONFIG_ORIGIN} whose body is the {@link MembershipChange}; the coordinator
 *       opens it like any value, the ring decides it like any value (seed 003 §3.3.2: consensus on
 *       value ids, bodies travel with them), it is logged and caught up like any decision, and it
 *       is delivered to no state machine.</li>
 *   <li><b>G2 (R1), effective instance.</b> A change decided at {@code c} governs {@code c + α}
 *       and later; every replica applies decided values in instance order
 *       ({@link #delivered}), so every replica computes the same set for every instance.</li>
 *   <li><b>G3 (R2, P1), opening.</b> The coordinator opens instance {@code i} only where it knows
 *       {@code i}'s set ({@code i < firstUndecided + α}) and that set is the one its ring was drawn
 *       from ({@link #mayOpen}). The paper is silent on changing {@code N_a}; we chose that a ring
 *       serves exactly one set, so the last instance before an effective instance is the last
 *       one of a ring.</li>
 *   <li><b>G4 (P2), Phase 1 per set.</b> Phase 1 of a round completes only when its complete
 *       answers hold a majority of the voters of every set that governs an instance at or above
 *       its first instance, as far as the coordinator knows them ({@link #phaseOneCovers}); Phase
 *       1A goes to every member of those sets ({@link #recipients}). Instances whose set it does
 *       not know yet it does not open (G3), so every instance it opens had a majority of its own
 *       voters answer (seed 003 §3.2: every m-quorum meets every other; a ring holds one).</li>
 *   <li><b>G5, re-formation at the effective instance</b> (the "rings: the acceptor set is part of
 *       the decided state" rule). A coordinator that reached an effective instance {@code e}
 *       waits until every instance below {@code e} is decided here, then re-forms: a new round,
 *       its Phase 1 from {@code e} (G4), its ring drawn only from {@code e}'s voters (acceptors:
 *       a majority of them, seed 003 §3.3.2 ¶1 / §3.3.3 ¶2). A coordinator that is no voter
 *       there steps down instead, also when its set changed while its Phase 1 ran (it would be an
 *       acceptor of its own ring). A replica starts rounds only while it is a voter, and its
 *       suspect time-out is ranked among the voters ({@link RingSuspicion}), so that two voters
 *       never start rounds in step.</li>
 *   <li><b>G6 (P3), reaching the effective instance.</b> While a decided change is not yet in
 *       effect and nothing else is queued, the coordinator opens NOOPs up to it.</li>
 *   <li><b>G7 (R3), one change at a time</b>, with {@link ChangeGate}'s refusals (no change while
 *       one is open or decided and not in effect; no removal leaving the voters this coordinator
 *       hears short of a majority; a learner is promoted, or replaces a voter, only when it has
 *       reported a first undecided instance within one window). A decided change the set refuses
 *       is a no-op everywhere alike. Retired ids never come back ({@link Membership}).</li>
 *   <li><b>G8, learners.</b> On a U-Ring, learners ride the ring after the acceptors (non-acceptor
 *       members, seed 003 §3.3.3 ¶2); on an M-Ring they are datagram learners off the ring (§3.3.2
 *       ¶1). Either way they hear heartbeats, and catch up by catch-up queries (C6) — to a member
 *       they know or any id they hear: one far behind does not know the members that replaced those
 *       it knows — or a snapshot, which carries the history.</li>
 * </ol>
 *
 * <p><b>Durability.</b> Compaction writes the history as a {@link RingRecord.Members} record
 * ({@link #checkpoint}); decided configuration commands above it are delivered again after a
 * restart and re-applied (idempotent per instance). A snapshot carries the delivery side's
 * history; installing one restores it here ({@link #restore}).
 *
 * <p>With {@code ring.member.ids} left at n and no change decided, every answer here equals the
 * fixed-membership one (voters 0..n-1, majorities of n), so a ring that never changes behaves as
 * before.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingGroup {
    private final RingConfig config;
    private final int self;
    private final MembershipHistory history;

    /**
     * @param recovered this member's durable log: the latest {@link RingRecord.Members} restores the
     *                  history (a log without one starts from the cluster file's n voters)
     */
    RingGroup(RingConfig config, int self, List<RingRecord> recovered) {
        this.config = config;
        this.self = self;
        this.history = new MembershipHistory(Membership.initial(config.members()), config.window());
        for (RingRecord r : recovered) {
            if (r instanceof RingRecord.Members m) {
                history.restore(ByteBuffer.wrap(m.history()));
            }
        }
    }

    /** The history (tests, status, the snapshot's delivery side). */
    MembershipHistory history() {
        return history;
    }

    /** The set that governs {@code instance}, as far as this member knows. */
    Membership at(long instance) {
        return history.at(instance);
    }

    /** Whether {@code id} may be a ring member: a voter or learner of the sets from {@code firstUndecided} on. */
    boolean isMember(int id, long firstUndecided) {
        return id >= 0 && id < Membership.ID_SPACE && (recipients(firstUndecided) & (1 << id)) != 0;
    }

    /** Whether this member votes in the set at {@code firstUndecided} (G5: only a voter starts rounds). */
    boolean selfVotes(long firstUndecided) {
        return history.at(firstUndecided).isVoter(self);
    }

    /** G4: every member of the sets that govern an instance at or above {@code firstUndecided}, as a mask. */
    int recipients(long firstUndecided) {
        return history.recipients(firstUndecided);
    }

    /** The ids of {@code mask} but this member, ascending (the order sends go in). */
    int[] others(int mask) {
        int[] ids = new int[Integer.bitCount(mask & ~(1 << self))];
        int k = 0;
        for (int id = 0; id < Membership.ID_SPACE; id++) {
            if (id != self && (mask & (1 << id)) != 0) {
                ids[k++] = id;
            }
        }
        return ids;
    }

    /**
     * G4: whether the complete answers {@code answered} (a mask, this member's own included) hold a
     * majority of the voters of every set governing an instance at or above {@code from}.
     */
    boolean phaseOneCovers(int answered, long from) {
        if (!history.at(from).isQuorum(answered)) {
            return false;
        }
        for (Map.Entry<Long, Membership> e : history.entries().entrySet()) {
            if (e.getKey() > from && !e.getValue().isQuorum(answered)) {
                return false;
            }
        }
        return true;
    }

    /** G3: whether the coordinator, at {@code firstUndecided}, may open {@code instance} on a ring drawn from {@code ringSet}. */
    boolean mayOpen(long instance, long firstUndecided, Membership ringSet) {
        return history.knows(instance, firstUndecided) && history.at(instance).equals(ringSet);
    }

    /**
     * G5: the first instance above {@code from} governed by a set other than {@code from}'s, or
     * {@link Long#MAX_VALUE} while none is known.
     */
    long boundaryAfter(long from) {
        Membership here = history.at(from);
        for (Map.Entry<Long, Membership> e : history.entries().entrySet()) {
            if (e.getKey() > from && !e.getValue().equals(here)) {
                return e.getKey();
            }
        }
        return Long.MAX_VALUE;
    }

    /** G6/G7: the effective instance of a decided change not yet in effect at {@code firstUndecided}, or -1. */
    long pending(long firstUndecided) {
        return history.pending(firstUndecided);
    }

    /** Majority of the voters of the set at {@code instance} (the ring's acceptors, seed 003 §3.2). */
    int quorumAt(long instance) {
        return history.at(instance).quorum();
    }

    /**
     * G7: why {@code change} may not be proposed now, or null ({@link ChangeGate}). Its α is not
     * checked here, as Multi-Paxos' gate does not: the admin always gives the window, and a decided
     * change with a smaller α is reported by {@link #delivered} (the simulations' mutation uses one).
     *
     * @param heard    the ids heard within the suspect time-out, this member's included
     * @param progress per id, the first undecided instance it last reported (-1 if never)
     */
    String refusal(MembershipChange change, boolean leading, int coordinator, long firstUndecided, boolean inFlight,
                   int heard, long[] progress) {
        for (int id : new int[] {change.id(), change.newId()}) {
            if (id >= config.idSpace()) {
                return "replica id " + id + " is outside this ring's ids 0.." + (config.idSpace() - 1)
                        + " (ring.member.ids)";
            }
        }
        return ChangeGate.refusal(change, self, leading, coordinator, history, firstUndecided, inFlight, heard,
                progress, config.window());
    }

    /**
     * G2: decided {@code instance} ({@code vid}, {@code body}) was handed out in order: a
     * configuration command adds the set it leads to from its effective instance on.
     *
     * @return null, or why a decided change was ignored (for the log)
     */
    String delivered(long instance, ValueId vid, ByteBuffer body) {
        return history.apply(instance, vid.isConfig(), vid.isConfig() ? body : null);
    }

    /** The history as a log record (compaction: the commands that made it may be trimmed). */
    RingRecord.Members checkpoint() {
        return new RingRecord.Members(history.encode());
    }

    /**
     * An installed snapshot's (or a checkpoint's) history, if it has applied further than this one.
     *
     * @return whether it was taken
     * @throws IllegalArgumentException if malformed
     */
    boolean restore(ByteBuffer encoded) {
        return history.restore(encoded);
    }
}
