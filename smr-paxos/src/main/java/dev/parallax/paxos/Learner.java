package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.SafetyViolation;
import dev.parallax.core.membership.MembershipHistory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * The learner role: counts Accepts per instance and view, decides when a majority accepted the
 * same view's proposal, and delivers decided instances in instance order without gaps.
 * Keeps decided values from {@link #firstAvailable()} on, to serve catch-up.
 *
 * <p>Every decision is also written to the durable log, unsynced (it rides on the next sync):
 * {@link PaxosRecord.Decided} naming the local vote that holds the value, else
 * {@link PaxosRecord.Decision} with the value. A restarted replica {@link #recover recovers} them and
 * delivers them again from its snapshot on without asking any peer; a lost record only means the
 * instance is fetched by catch-up, as before.
 *
 * <p>A decision never changes: a catch-up reply carrying a different value for an instance this
 * learner keeps leaves the kept value in place and is reported as a {@link SafetyViolation} naming
 * both origins; the driver then stops the replica. (Proposals in older views may legitimately carry
 * other values; only decisions are compared.)
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class Learner {
    /** Votes for one undecided instance in its highest view seen. */
    private static final class Tally {
        long view = -1;
        int voters;
        Value value;
    }

    private final MembershipHistory members;
    private final LongFunction<PaxosRecord.Vote> localVote;
    /** Decided configuration commands ignored (refused by the membership, malformed, or with a smaller α). */
    private long membershipNotes;
    private String lastMembershipNote;
    private final TreeMap<Long, Value> decided = new TreeMap<>();
    /** Where each kept decision came from; the same keys as {@link #decided}. */
    private final TreeMap<Long, Source> sources = new TreeMap<>();
    private final Map<Long, Tally> tallies = new HashMap<>();
    private long firstUndecided;
    private long firstAvailable;
    private long knownDecided = -1;
    private long conflicts;

    /** Where a decision came from: a sender ({@link SafetyViolation#LOCAL} for none), how, and in which view (-1 if none). */
    private record Source(int sender, String via, long view) {
        SafetyViolation.Origin of(Value v) {
            return new SafetyViolation.Origin(sender, via, view, String.valueOf(v));
        }
    }

    private static final Source RECOVERED = new Source(SafetyViolation.LOCAL, "recovered from the log", -1);

    /**
     * @param members   the membership history this learner counts quorums by and applies decided
     *                  configuration commands to, in order (its one writer)
     * @param localVote the local acceptor's latest vote for an instance, or {@code null}
     */
    Learner(MembershipHistory members, LongFunction<PaxosRecord.Vote> localVote) {
        this.members = members;
        this.localVote = localVote;
    }

    /**
     * Rebuilds the decided instances from the durable log records (before the first step). A
     * {@link PaxosRecord.Decided} counts only if the latest vote for its instance logged before it
     * is of its view (the vote it was written against); otherwise it is ignored and catch-up fetches
     * the instance. Decisions below the last trim point are covered by a snapshot and dropped.
     * Nothing is delivered here: {@link #deliverReady} does it on the next step, after the driver had
     * the chance to {@link #skipTo} an installed snapshot.
     */
    void recover(List<PaxosRecord> records) {
        Map<Long, PaxosRecord.Vote> votes = new HashMap<>();
        long trim = 0;
        for (PaxosRecord r : records) {
            if (r instanceof PaxosRecord.Vote v) {
                votes.merge(v.instance(), v, (old, now) -> now.view() >= old.view() ? now : old);
            } else if (r instanceof PaxosRecord.Trim t) {
                trim = Math.max(trim, t.instance());
            } else if (r instanceof PaxosRecord.Members m) {
                members.restore(java.nio.ByteBuffer.wrap(m.history()));
            } else if (r instanceof PaxosRecord.Decision d) {
                decided.put(d.instance(), d.value());
                sources.put(d.instance(), RECOVERED);
            } else if (r instanceof PaxosRecord.Decided d) {
                PaxosRecord.Vote v = votes.get(d.instance());
                if (v != null && v.view() == d.view()) {
                    decided.put(d.instance(), v.value());
                    sources.put(d.instance(), RECOVERED);
                }
            }
        }
        decided.headMap(trim, false).clear();
        sources.headMap(trim, false).clear();
        applyMembershipFrom(members.appliedThrough() + 1);
        if (!decided.isEmpty()) {
            noteDecidedUpTo(decided.lastKey());
        }
    }

    /**
     * Applies the decided values kept from {@code from} on, while they are contiguous, to the
     * membership history (rule R1 needs every decided instance in order; delivery does the rest).
     */
    private void applyMembershipFrom(long from) {
        for (long i = from; ; i++) {
            Value v = decided.get(i);
            if (v == null) {
                return;
            }
            applyMembership(i, v);
        }
    }

    private void applyMembership(long instance, Value v) {
        String note = members.apply(instance, v.isMembership(), v.bytes());
        if (note != null) {
            membershipNotes++;
            lastMembershipNote = note;
        }
    }

    /** Decided configuration commands that were ignored or carried a smaller α, so far. */
    long membershipNotes() {
        return membershipNotes;
    }

    /** A snapshot's membership history could not be read: counted with the notes. */
    void noteMalformedMembership(String why) {
        membershipNotes++;
        lastMembershipNote = "a snapshot's membership history was malformed and ignored: " + why;
    }

    /** The last such note, for the operator's log, or null. */
    String lastMembershipNote() {
        return lastMembershipNote;
    }

    /** Every instance below this one is decided and delivered. */
    long firstUndecided() {
        return firstUndecided;
    }

    /** The lowest instance whose decided value is still kept. */
    long firstAvailable() {
        return firstAvailable;
    }

    /** The highest instance known to be decided somewhere (here, or reported by a peer). */
    long knownDecided() {
        return knownDecided;
    }

    boolean isDecided(long instance) {
        return instance < firstUndecided || decided.containsKey(instance);
    }

    /** The decided value of {@code instance}, or {@code null} if unknown or trimmed. */
    Value decidedValue(long instance) {
        return decided.get(instance);
    }

    /** A proposal was seen: remember its value for its view. @return whether this decided it */
    boolean onPropose(PaxosMessage.Propose p, Effects<PaxosMessage, PaxosRecord, Value> out) {
        // Rule P1: a leader proposes instance i only once every instance up to i - α is decided at
        // it. So a proposal far ahead shows this learner how far decisions go, although it cannot
        // count that instance's votes before it knows its membership (R2): it catches up.
        noteDecidedUpTo(p.instance() - members.alpha());
        if (isDecided(p.instance())) {
            return false;
        }
        Tally t = tally(p.instance(), p.view());
        if (t == null) {
            return false;
        }
        t.value = p.value();
        return checkQuorum(p.instance(), t, out);
    }

    /** An Accept from {@code from}. @return whether this decided the instance */
    boolean onAccept(int from, PaxosMessage.Accept a, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (isDecided(a.instance())) {
            return false;
        }
        Tally t = tally(a.instance(), a.view());
        if (t == null) {
            return false;
        }
        t.voters |= 1 << from;
        return checkQuorum(a.instance(), t, out);
    }

    /**
     * Peer {@code from} reported {@code instance} decided with {@code value} (catch-up, in its
     * {@code view}). A value other than the one kept for {@code instance} is a
     * {@link SafetyViolation}: reported, and the kept value stays. @return whether it was news
     */
    boolean learn(int from, long view, long instance, Value value, Effects<PaxosMessage, PaxosRecord, Value> out) {
        Value known = decided.get(instance);
        if (known != null && !known.equals(value)) {
            conflicts++;
            Source kept = sources.getOrDefault(instance, RECOVERED);
            out.safetyViolation(new SafetyViolation(instance, kept.of(known),
                    new Source(from, "CatchUpReply", view).of(value)));
            return false;
        }
        if (isDecided(instance) || instance < firstAvailable) {
            return false;
        }
        decide(instance, value, new Source(from, "CatchUpReply", view), out);
        return true;
    }

    /** Different decisions heard for a kept instance so far. */
    long conflicts() {
        return conflicts;
    }

    /** A peer told us every instance up to {@code instance} is decided. */
    void noteDecidedUpTo(long instance) {
        knownDecided = Math.max(knownDecided, instance);
    }

    /** Forgets decided values below {@code instance} (covered by a snapshot); never below what is delivered. */
    void truncateBelow(long instance) {
        long cut = Math.min(instance, firstUndecided);
        if (cut > firstAvailable) {
            firstAvailable = cut;
            decided.headMap(cut, false).clear();
            sources.headMap(cut, false).clear();
        }
    }

    /** A snapshot covering every instance below {@code instance} was installed: continue from there. */
    void skipTo(long instance) {
        if (instance <= firstUndecided) {
            return;
        }
        applyMembershipFrom(members.appliedThrough() + 1);
        firstUndecided = instance;
        firstAvailable = Math.max(firstAvailable, instance);
        decided.headMap(instance, false).clear();
        sources.headMap(instance, false).clear();
        tallies.keySet().removeIf(i -> i < instance);
    }

    private Tally tally(long instance, long view) {
        Tally t = tallies.computeIfAbsent(instance, i -> new Tally());
        if (view < t.view) {
            return null;
        }
        if (view > t.view) {
            t.view = view;
            t.voters = 0;
            t.value = null;
        }
        return t;
    }

    /**
     * Rule R2 of {@link MembershipHistory}: votes are counted against the voters of the instance's
     * membership, and only once this learner knows it; until then the tally waits
     * ({@link #deliverReady} counts it again when the membership becomes known).
     */
    private boolean checkQuorum(long instance, Tally t, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!members.knows(instance, firstUndecided) || !members.at(instance).isQuorum(t.voters)) {
            return false;
        }
        if (t.value == null) {
            // Decided, but the Propose carrying the value was lost: catch-up will fetch it.
            noteDecidedUpTo(instance);
            return false;
        }
        decide(instance, t.value, new Source(SafetyViolation.LOCAL, "a quorum of Accepts", t.view), out);
        return true;
    }

    private void decide(long instance, Value value, Source source, Effects<PaxosMessage, PaxosRecord, Value> out) {
        tallies.remove(instance);
        decided.put(instance, value);
        sources.put(instance, source);
        out.persist(record(instance, value), false);
        noteDecidedUpTo(instance);
        deliverReady(out);
    }

    /**
     * Re-persists every decided value still kept (all at or above the trim point of a compaction
     * now being written), after the acceptor's checkpoint so that each {@link PaxosRecord.Decided}
     * follows the vote it names.
     */
    void checkpoint(Effects<PaxosMessage, PaxosRecord, Value> out) {
        for (Map.Entry<Long, Value> e : decided.entrySet()) {
            out.persist(record(e.getKey(), e.getValue()), false);
        }
    }

    /** The log record of a decision: a reference to the local vote if it holds the value, else the value. */
    private PaxosRecord record(long instance, Value value) {
        PaxosRecord.Vote v = localVote.apply(instance);
        if (v != null && (v.value() == value || v.value().equals(value))) {
            return new PaxosRecord.Decided(instance, v.view());
        }
        return new PaxosRecord.Decision(instance, value);
    }

    /**
     * Delivers decided instances from the first undecided one on, without gaps. Also needed after
     * {@link #skipTo}, which may land right before instances already decided.
     */
    void deliverReady(Effects<PaxosMessage, PaxosRecord, Value> out) {
        long before = firstUndecided;
        while (true) {
            Value v = decided.get(firstUndecided);
            if (v == null) {
                break;
            }
            applyMembership(firstUndecided, v);
            out.decide(firstUndecided, v);
            firstUndecided++;
        }
        if (firstUndecided > before && !tallies.isEmpty()) {
            // Instances [before + α, firstUndecided + α) have a known membership now: count their
            // waiting votes (a decision here recurses into this method, which goes on from there).
            long end = firstUndecided + members.alpha();
            for (long i = Math.max(before + members.alpha(), firstUndecided); i < end; i++) {
                Tally t = tallies.get(i);
                if (t != null && !isDecided(i) && checkQuorum(i, t, out)) {
                    decidedByRecount.add(i);
                }
            }
        }
    }

    /** Instances decided when a membership became known, for the proposer's window; drained by the core. */
    private final List<Long> decidedByRecount = new ArrayList<>();

    /** Takes the instances decided by a recount since the last call. */
    List<Long> takeDecidedByRecount() {
        if (decidedByRecount.isEmpty()) {
            return List.of();
        }
        List<Long> r = new ArrayList<>(decidedByRecount);
        decidedByRecount.clear();
        return r;
    }
}
