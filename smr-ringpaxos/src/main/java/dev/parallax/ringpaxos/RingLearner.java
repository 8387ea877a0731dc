package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.SafetyViolation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The learner of one member (rule C5): decisions by instance, each a {@link ValueId} and, once
 * known, its body; delivery in instance order. It learns only what a process that saw a ring's quorum
 * of votes sent (U-Ring's decision entries, M-Ring's decisions, decided catch-up entries: seed 003 (Ring
 * Paxos) Alg. 2 l.34, Alg. 3 l.33–41, §3.3.4). Decided values are kept above the trim point to
 * serve catch-up, and logged unsynced when delivered ({@code Decided} when the own vote holds the
 * body, else {@code Decision}), as Multi-Paxos' learner does.
 *
 * <p>A decision never changes: a second, different decision for an instance this learner knows
 * (delivered or not, while kept) keeps the first and is reported as a {@link SafetyViolation}
 * naming where each came from ({@link #hearing}: the sender, message and round of the input being
 * handled); the core hands it out as an effect ({@link #reportConflicts}) and its driver stops
 * the replica. The same decision again is harmless.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class RingLearner {
    /** A decided instance: its id, its body once known, whether its record is in the log. */
    static final class Entry {
        final ValueId vid;
        ByteBuffer body;
        boolean logged;
        /** Where the decision came from (shared by every decision one input carried). */
        final Source source;

        Entry(ValueId vid, ByteBuffer body, boolean logged, Source source) {
            this.vid = vid;
            this.body = body;
            this.logged = logged;
            this.source = source;
        }
    }

    /** The input a decision came with: its sender ({@link SafetyViolation#LOCAL} for none), message type and round (-1 if none). */
    record Source(int sender, String via, long round) {
        SafetyViolation.Origin of(ValueId vid) {
            return new SafetyViolation.Origin(sender, via, round, String.valueOf(vid));
        }
    }

    /** Decisions recovered from this member's own log. */
    static final Source RECOVERED = new Source(SafetyViolation.LOCAL, "recovered from the log", -1);
    /** Decisions taught by this member's own step (a tick, a proposal, a compaction). */
    static final Source LOCAL_STEP = new Source(SafetyViolation.LOCAL, "this member's own step", -1);

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private final TreeMap<Long, Entry> decided = new TreeMap<>();
    private long firstUndecided;
    private long trimmedBelow;
    private long knownDecidedBelow;
    /** Decided-ahead bound (M-Ring): no body is held at or above firstUndecided + this. */
    private final long maxAhead;
    /** Decided-ahead bound on bodies' bytes (M-Ring). */
    private final long maxAheadBytes;
    /** Bytes of the bodies held at or above {@code firstUndecided}. */
    private long heldBytes;
    /** Entries at or above {@code firstUndecided} whose body is held (kept with {@link #heldBytes}). */
    private int held;
    private long beyondBuffer;
    /** The input being handled (set by the core before each input). */
    private Source hearing = LOCAL_STEP;
    /** Conflicts seen in the input being handled, not yet reported. */
    private final List<SafetyViolation> conflicts = new ArrayList<>();
    private long conflictsSeen;

    /**
     * A recovered {@code Trim} is an acceptor fence (compaction's, or amnesia recovery's "no votes
     * below H", C10), not "a snapshot covers everything below H": the learner's trim comes only
     * from {@link #skipTo} (the installed snapshot) and {@link #trimBelow} (own compaction).
     * Decisions recovered below the fence are dropped (the fence says nothing about them being
     * complete); catch-up or a snapshot brings them back.
     */
    RingLearner(List<RingRecord> recovered) {
        this(recovered, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * With a decided-ahead bound (M-Ring: {@code mring.learner.buffer} instances and
     * {@code .bytes}): the body of a decision beyond it is dropped and counted; the decision itself (its
     * id) is kept — it may be known nowhere else (a coordinator whose learner lags) — and its body
     * comes back once the prefix reaches it: from the own vote, the value cache, or catch-up (C6).
     * The first undecided instance's body is always taken.
     */
    RingLearner(List<RingRecord> recovered, long maxAheadInstances, long maxAheadBytes) {
        this.maxAhead = Math.max(1, maxAheadInstances);
        this.maxAheadBytes = Math.max(0, maxAheadBytes);
        long recoveredTrim = 0;
        Map<Long, RingRecord.VoteRecord> votes = new HashMap<>();
        for (RingRecord r : recovered) {
            if (r instanceof RingRecord.VoteRecord v) {
                votes.merge(v.instance(), v, (a, b) -> b.round() >= a.round() ? b : a);
            } else if (r instanceof RingRecord.Trim t) {
                recoveredTrim = Math.max(recoveredTrim, t.instance());
            } else if (r instanceof RingRecord.Decision d) {
                decided.put(d.instance(), new Entry(d.vid(), d.value(), true, RECOVERED));
            } else if (r instanceof RingRecord.Decided d) {
                RingRecord.VoteRecord v = votes.get(d.instance());
                if (d.vid().isBodiless()) {
                    decided.put(d.instance(), new Entry(d.vid(), EMPTY, true, RECOVERED));
                } else if (v != null && v.vid().equals(d.vid())) {
                    decided.put(d.instance(), new Entry(d.vid(), v.value(), true, RECOVERED));
                }
            }
        }
        decided.headMap(recoveredTrim, false).clear();
        if (!decided.isEmpty()) {
            knownDecidedBelow = decided.lastKey() + 1;
        }
        enforceBound();
    }

    /**
     * The input the core handles next: decisions learned until the next call are attributed to
     * it. The core calls this before every input ({@link #LOCAL_STEP} for its own steps).
     */
    void hearing(Source source) {
        this.hearing = source;
    }

    /** Hands the conflicts seen since the last call to the driver as safety violations. */
    void reportConflicts(Effects<RingWire, RingRecord, RingValue> out) {
        for (int i = 0; i < conflicts.size(); i++) {
            out.safetyViolation(conflicts.get(i));
        }
        conflicts.clear();
    }

    /**
     * Whether {@code vid}, claimed decided for {@code instance} by the input being handled, differs
     * from the decision kept for it; if so the conflict is recorded (see {@link #reportConflicts}).
     * An instance not kept (undecided here, or trimmed) is no conflict.
     */
    boolean conflicts(long instance, ValueId vid) {
        Entry e = decided.get(instance);
        if (e == null || e.vid.equals(vid)) {
            return false;
        }
        conflictsSeen++;
        conflicts.add(new SafetyViolation(instance, e.source.of(e.vid), hearing.of(vid)));
        return true;
    }

    /** Second, different decisions heard for a kept instance so far. */
    long conflictsSeen() {
        return conflictsSeen;
    }

    /** Bodies dropped because they lay beyond the decided-ahead bound (their decisions are kept). */
    long beyondBuffer() {
        return beyondBuffer;
    }

    long firstUndecided() {
        return firstUndecided;
    }

    /** The lowest instance whose decision is still kept (what catch-up can serve from). */
    long trimmedBelow() {
        return trimmedBelow;
    }

    /** Every instance below this one is known decided somewhere (heartbeats, decisions seen). */
    long knownDecidedBelow() {
        return Math.max(knownDecidedBelow, firstUndecided);
    }

    void noteDecidedBelow(long below) {
        knownDecidedBelow = Math.max(knownDecidedBelow, below);
    }

    boolean isDecided(long instance) {
        return instance < firstUndecided || decided.containsKey(instance);
    }

    /** The decided vid of {@code instance} if known and kept, else null. */
    ValueId decidedVid(long instance) {
        Entry e = decided.get(instance);
        return e == null ? null : e.vid;
    }

    /** The decided body of {@code instance} if known and kept, else null. */
    ByteBuffer decidedBody(long instance) {
        Entry e = decided.get(instance);
        return e == null ? null : e.body;
    }

    /**
     * Learns that {@code instance} is decided as {@code vid}, with its body if known (NOOP and
     * skips need none). Returns true if this taught the learner something (a new decision, or a missing body).
     * A different decision for a kept instance teaches nothing and is recorded as a conflict.
     */
    boolean learn(long instance, ValueId vid, ByteBuffer bodyOrNull) {
        if (conflicts(instance, vid)) {
            return false;   // the first decision stays; the driver stops this replica
        }
        Entry e = decided.get(instance);
        if (instance < firstUndecided || instance < trimmedBelow) {
            return false;
        }
        ByteBuffer body = vid.isBodiless() ? EMPTY : bodyOrNull;
        knownDecidedBelow = Math.max(knownDecidedBelow, instance + 1);
        if (body != null && beyondBound(instance, body.remaining())) {
            beyondBuffer++;
            body = null;    // the decision is kept (an id costs little; it may be known nowhere else), not its body
        }
        if (e == null) {
            decided.put(instance, new Entry(vid, body == null ? null : body.asReadOnlyBuffer(), false, hearing));
            if (body != null) {
                heldBytes += body.remaining();
                held++;
            }
            return true;
        }
        if (e.body == null && body != null && e.vid.equals(vid)) {
            e.body = body.asReadOnlyBuffer();
            heldBytes += body.remaining();
            held++;
            return true;
        }
        return false;
    }

    /** Whether a body of {@code size} bytes for {@code instance} lies beyond the decided-ahead bound. */
    private boolean beyondBound(long instance, long size) {
        return instance > firstUndecided
                && (instance - firstUndecided >= maxAhead || heldBytes + size > maxAheadBytes);
    }

    /** The upper end of the instances whose bodies the learner holds (the decided-ahead bound). */
    private long boundEnd() {
        return maxAhead == Long.MAX_VALUE ? Long.MAX_VALUE : firstUndecided + maxAhead;
    }

    /** The first decided instance at or above the delivered prefix, within the bound, whose body is missing, or -1. */
    long firstMissingBody() {
        for (Map.Entry<Long, Entry> e : decided.subMap(firstUndecided, true, boundEnd(), false).entrySet()) {
            if (e.getValue().body == null) {
                return e.getKey();
            }
        }
        return -1;
    }

    /** Decided instances within the bound waiting for their body (to resolve from a cache). */
    List<Long> missingBodies() {
        List<Long> missing = new ArrayList<>();
        for (Map.Entry<Long, Entry> e : decided.subMap(firstUndecided, true, boundEnd(), false).entrySet()) {
            if (e.getValue().body == null) {
                missing.add(e.getKey());
            }
        }
        return missing;
    }

    /**
     * Delivers the decided prefix: one {@code decide} per instance in order (a no-op as
     * {@code Chosen(NOOP, null)}, a skip likewise), logging each decision unsynced first. {@code ownVote} tells
     * whether the own vote holds the body (then only the id is logged).
     */
    List<Entry> deliverReady(java.util.function.BiPredicate<Long, ValueId> ownVote,
                             Effects<RingWire, RingRecord, RingValue> out) {
        List<Entry> done = new ArrayList<>();
        while (true) {
            Entry e = decided.get(firstUndecided);
            if (e == null || e.body == null) {
                break;
            }
            if (!e.logged) {
                e.logged = true;
                if (e.vid.isBodiless() || ownVote.test(firstUndecided, e.vid)) {
                    out.persist(new RingRecord.Decided(firstUndecided, e.vid), false);
                } else {
                    out.persist(new RingRecord.Decision(firstUndecided, e.vid, e.body), false);
                }
            }
            out.decide(firstUndecided, new RingValue.Chosen(e.vid, e.vid.isBodiless() ? null : e.body));
            heldBytes -= e.body.remaining();
            held--;
            done.add(e);
            firstUndecided++;
        }
        return done;
    }

    /** Decided entries in {@code [from, to)} with their bodies, within the page limits (the first always goes). */
    List<DecisionEntry> range(long from, long to, int maxInstances, int maxBytes) {
        List<DecisionEntry> page = new ArrayList<>();
        long lo = Math.max(from, trimmedBelow);
        if (lo >= to) {
            return page;    // entirely below the trim (or empty): the asker sees firstAvailable
        }
        long bytes = 0;
        for (Map.Entry<Long, Entry> e : decided.subMap(lo, true, to, false).entrySet()) {
            Entry d = e.getValue();
            if (d.body == null) {
                break;
            }
            int size = d.body.remaining();
            if (!page.isEmpty() && (page.size() >= maxInstances || bytes + size > maxBytes)) {
                break;
            }
            page.add(new DecisionEntry(e.getKey(), d.vid, d.vid.isBodiless() ? null : d.body));
            bytes += size;
        }
        return page;
    }

    /** Forgets decisions below {@code instance} (a snapshot covers them; peers asking are told so). */
    void trimBelow(long instance) {
        long t = Math.min(instance, firstUndecided);
        if (t > trimmedBelow) {
            trimmedBelow = t;
            decided.headMap(t, false).clear();
        }
    }

    /** A snapshot covering everything below {@code instance} was installed: continue from there. */
    void skipTo(long instance) {
        if (instance > firstUndecided) {
            firstUndecided = instance;
            trimmedBelow = Math.max(trimmedBelow, instance);
            decided.headMap(instance, false).clear();
            knownDecidedBelow = Math.max(knownDecidedBelow, instance);
            enforceBound();
        }
    }

    /** Re-persists the kept decisions with their bodies (sync) after the log is cut. */
    void checkpoint(Effects<RingWire, RingRecord, RingValue> out) {
        for (Map.Entry<Long, Entry> e : decided.entrySet()) {
            Entry d = e.getValue();
            if (d.body != null) {
                out.persist(new RingRecord.Decision(e.getKey(), d.vid, d.body), true);
                d.logged = true;
            }
        }
    }

    /** Decided instances kept (delivered or not). */
    int kept() {
        return decided.size();
    }

    /** Decided but undelivered instances whose bodies are held (ahead of a gap or a missing body). */
    int buffered() {
        return held;
    }

    long bufferedBytes() {
        return heldBytes;
    }

    /** Drops the bodies held beyond the decided-ahead bound (after a restart or a skip; the ids stay) and recounts the bytes. */
    private void enforceBound() {
        heldBytes = 0;
        held = 0;
        for (Map.Entry<Long, Entry> e : decided.tailMap(firstUndecided, true).entrySet()) {
            Entry d = e.getValue();
            if (d.body != null) {
                if (beyondBound(e.getKey(), d.body.remaining())) {
                    d.body = null;
                    beyondBuffer++;
                } else {
                    heldBytes += d.body.remaining();
                    held++;
                }
            }
        }
    }
}
