package dev.parallax.ringpaxos.sim;

import dev.parallax.core.membership.Membership;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.ValueId;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Checks, as they happen, the facts Ring Paxos' safety argument rests on (seed
 * 003 (Ring Paxos) Appendix, Prop. 1), whatever the variant:
 * <ul>
 *   <li>round {@code r} is led only by {@code coordinator(r) = r mod n}, and with one ring: the ring
 *       a coordinator lays out after Phase 1 is never replaced within the round; its
 *       acceptors are a majority of the n members ({@code 2·acceptors > n}, for odd and even n), so
 *       that every ring meets every Phase 1 quorum;</li>
 *   <li>one value per (instance, round): every open and every vote of instance {@code i} in round
 *       {@code r} names the same value id (only {@code coordinator(r)} creates round-r entries, once;
 *       forwarders copy them — Alg. 2 l.17–18, Alg. 3 l.20–21);</li>
 *   <li>only the acceptors of ring(r) vote in round {@code r} (Flexible Paxos' Phase 2 quorum;
 *       Alg. 2 l.19–25, Alg. 3 l.22–28);</li>
 *   <li>every decision {@code (i, vid)} any member learns has a round {@code r} whose ring's
 *       acceptors all voted {@code (i, r, vid)} before it (a decider forwards only after
 *       voting and learners learn only from deciders or decided catch-up).</li>
 * </ul>
 * Where the member set changes ({@code RingGroup}), rounds rotate over the id space and a ring's
 * acceptors must instead be a majority of the voters of the set of every instance opened on it,
 * and every member that opens an instance must name the same set for it ({@link #openedUnder}).
 * Votes are remembered forever (an amnesiac member's lost votes still count as cast), so the last
 * check holds also when a vote was forgotten afterwards.
 *
 * <p>Fed by the simulated replicas' {@code RingPaxosCore.Observer}s. Not thread-safe: owned by the
 * simulation thread; never blocks.
 */
final class QuorumWitness {
    private final int members;
    /** Rounds rotate over this many ids (n unless the member set changes). */
    private final int ids;
    /** Whether the member set changes (then the majority is checked per instance). */
    private final boolean setsChange;
    /** Instance → the member set the first member that opened it named. */
    private final Map<Long, Membership> setOf = new HashMap<>();
    private final Map<Long, Ring> rings = new HashMap<>();
    /** Instance → round → the round's value and who voted for it. */
    private final Map<Long, Map<Long, Votes>> votes = new HashMap<>();
    private long decisionsWitnessed;
    private long votesSeen;

    /** The value of one (instance, round) and the members that voted for it. */
    private static final class Votes {
        final ValueId vid;
        final BitSet voters = new BitSet();

        Votes(ValueId vid) {
            this.vid = vid;
        }
    }

    /** @param members n, the cluster size (coordinator(r) = r mod n) */
    QuorumWitness(int members) {
        this(members, members, false);
    }

    /**
     * @param ids        rounds rotate over {@code ids} ids (coordinator(r) = r mod ids)
     * @param setsChange whether the member set changes (majorities checked per instance, {@link #openedUnder})
     */
    QuorumWitness(int members, int ids, boolean setsChange) {
        this.members = members;
        this.ids = ids;
        this.setsChange = setsChange;
    }

    /**
     * {@code member} opened {@code instance} in {@code round} under {@code set} (its own history's
     * set of the instance).
     *
     * @throws AssertionError if another member named another set for the instance (rule R1: every
     *                        member computes the same set for every instance), or the round's ring's
     *                        acceptors are not a majority of the set's voters
     */
    void openedUnder(int member, long instance, long round, Membership set) {
        Membership before = setOf.putIfAbsent(instance, set);
        if (before != null && !before.equals(set)) {
            throw new AssertionError("sets: member " + member + " opened instance " + instance + " in round " + round
                    + " under " + set + ", another under " + before);
        }
        Ring ring = rings.get(round);
        if (ring == null) {
            return;
        }
        if (ring.acceptors() != set.quorum()) {
            throw new AssertionError("quorum: instance " + instance + " opened in round " + round + " on " + ring
                    + ", whose acceptors are no majority of the voters of " + set);
        }
        for (int p = 0; p < ring.acceptors(); p++) {
            if (!set.isVoter(ring.member(p))) {
                throw new AssertionError("quorum: instance " + instance + " opened in round " + round + " on " + ring
                        + ", whose acceptor " + ring.member(p) + " is no voter of " + set);
            }
        }
    }

    /**
     * {@code member} finished Phase 1 of {@code round} and laid out {@code ring} (null: none).
     *
     * @throws AssertionError if {@code member} is not coordinator(round), the ring is not led by it,
     *                        its acceptors are no majority of the members, or round {@code round} had
     *                        another ring
     */
    void roundLed(int member, long round, Ring ring) {
        if (Math.floorMod(round, ids) != member) {
            throw new AssertionError("rounds: member " + member + " led round " + round + " of coordinator "
                    + Math.floorMod(round, ids));
        }
        if (ring == null) {
            return; // no ring could be laid out: the coordinator steps down (C2)
        }
        if (ring.coordinator() != member) {
            throw new AssertionError("rounds: member " + member + " led round " + round + " with ring " + ring
                    + " whose coordinator is " + ring.coordinator());
        }
        if (!setsChange && 2 * ring.acceptors() <= members) {
            throw new AssertionError("quorum: round " + round + " has ring " + ring + " of " + ring.acceptors()
                    + " acceptors, no majority of " + members + " members");
        }
        Ring before = rings.putIfAbsent(round, ring);
        if (before != null && !before.equals(ring)) {
            throw new AssertionError("one ring per round: round " + round + " had ring " + before + ", then " + ring);
        }
    }

    /**
     * {@code member} opened {@code instance} in {@code round} with {@code vid} (its own vote comes as
     * {@link #voted}).
     *
     * @throws AssertionError if another value was opened or voted there, or {@code member} does not lead the round
     */
    void opened(int member, long instance, long round, ValueId vid) {
        if (Math.floorMod(round, ids) != member) {
            throw new AssertionError("rounds: member " + member + " opened instance " + instance + " in round " + round
                    + " of coordinator " + Math.floorMod(round, ids));
        }
        votesOf(instance, round, vid, member, "opened");
    }

    /**
     * {@code member} voted {@code vid} for {@code instance} in {@code round}.
     *
     * @throws AssertionError if another value was opened or voted there, or {@code member} is not an
     *                        acceptor of the round's ring
     */
    void voted(int member, long instance, long round, ValueId vid) {
        votesSeen++;
        Ring ring = rings.get(round);
        if (ring == null) {
            throw new AssertionError("quorum: member " + member + " voted " + vid + " for instance " + instance
                    + " in round " + round + ", which nobody led");
        }
        if (!ring.isAcceptor(member)) {
            throw new AssertionError("quorum: member " + member + " voted for instance " + instance + " in round "
                    + round + " but is not an acceptor of its ring " + ring);
        }
        votesOf(instance, round, vid, member, "voted").voters.set(member);
    }

    /**
     * {@code member} learned that {@code vid} is decided for {@code instance}.
     *
     * @throws AssertionError if no round's ring had all its acceptors vote {@code (instance, round, vid)} before
     */
    void decided(int member, long instance, ValueId vid) {
        Map<Long, Votes> byRound = votes.get(instance);
        if (byRound != null) {
            for (Map.Entry<Long, Votes> e : byRound.entrySet()) {
                Votes v = e.getValue();
                Ring ring = rings.get(e.getKey());
                if (v.vid.equals(vid) && ring != null && allAcceptorsVoted(ring, v.voters)) {
                    decisionsWitnessed++;
                    return;
                }
            }
        }
        throw new AssertionError("quorum: member " + member + " learned " + vid + " for instance " + instance
                + " but no round's ring acceptors all voted for it: " + describe(instance));
    }

    /** Decisions checked and witnessed by a full ring quorum. */
    long decisionsWitnessed() {
        return decisionsWitnessed;
    }

    /** Votes seen. */
    long votesSeen() {
        return votesSeen;
    }

    /** Rounds some coordinator led. */
    int roundsLed() {
        return rings.size();
    }

    private boolean allAcceptorsVoted(Ring ring, BitSet voters) {
        int found = 0;
        for (int m = 0; m < ids; m++) {
            if (ring.isAcceptor(m)) {
                if (!voters.get(m)) {
                    return false;
                }
                found++;
            }
        }
        return found == ring.acceptors();
    }

    private Votes votesOf(long instance, long round, ValueId vid, int member, String what) {
        Votes v = votes.computeIfAbsent(instance, i -> new HashMap<>()).computeIfAbsent(round, r -> new Votes(vid));
        if (!v.vid.equals(vid)) {
            throw new AssertionError("one value per (instance, round): member " + member + " " + what + " " + vid
                    + " for instance " + instance + " in round " + round + ", where " + v.vid + " was opened or voted");
        }
        return v;
    }

    private String describe(long instance) {
        Map<Long, Votes> byRound = votes.get(instance);
        if (byRound == null) {
            return "no votes";
        }
        StringBuilder sb = new StringBuilder();
        byRound.forEach((round, v) -> sb.append("round ").append(round).append(" ring ").append(rings.get(round))
                .append(": ").append(v.vid).append(" by ").append(v.voters).append("; "));
        return sb.toString();
    }
}
