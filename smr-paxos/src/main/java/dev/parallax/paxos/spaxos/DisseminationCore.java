package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.membership.Membership;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;

/**
 * S-Paxos' dissemination layer (seed 002 (S-Paxos) §IV-A, Alg. 1 l.9–15 and l.23–31; §IV-C): every
 * replica numbers its own clients' batches, sends their bodies to all peers, acks what it holds,
 * and reports a batch <em>stable</em> once f+1 replicas hold it, so that the ordering layer may
 * order its id (the body then survives any f crashes, §IV-B a).
 *
 * <p><b>Standalone contract</b> (what golden traces drive): {@code onProposal(Batch.unnumbered(body))}
 * is a local client batch ({@code false}: the span bound B is reached, keep it and offer it again
 * after a {@link #decided}); an effect {@code decide(k, batch)} says "the k-th id that became
 * stable here" ({@code k} counts stability events from 0 per start; the body is null when this
 * replica does not hold it). The composite {@code SPaxosCore} drives the other inputs:
 * {@link #decided}, {@link #want}, {@link #executed}, {@link #compact}, {@link #restore}.
 *
 * <p><b>Rules</b> (docs/protocols/s-paxos.md "Messages", "Stability", "Garbage collection"):
 * <ol>
 * <li>Numbering: an accepted batch gets {@code ⟨self, incarnation, nextSn++⟩} while
 *     {@code nextSn < lowest undecided own sn + B}; its body is persisted with sync and sent to
 *     every peer in a {@code Forward} carrying the ack vector (Alg. 1 l.9–10). The origin counts as
 *     a holder at once.</li>
 * <li>Receive: a body not held is stored (persisted with sync, so before any ack names it) if its
 *     sn is below the stream's lowest undecided sn + 2B, or it is wanted; else dropped unacked
 *     ({@code forwards.refused}). Piggy-backed acks are always merged (l.11–13).</li>
 * <li>Stability: per stream, the (f+1)-th largest watermark of this replica and every peer; ids up
 *     to it become stable in sn order, each reported once (l.14–15). Ids at or below
 *     {@code stable - B} are decided already (the origin's span bound) and are not reported.</li>
 * <li>Acks: every {@code Forward} carries the vector; an explicit {@code Ack} goes to a peer when
 *     the vector changed since last sent to it and nothing went to it for {@code ackInterval}, and
 *     to every peer every {@code ackRefresh} when idle (l.23–25).</li>
 * <li>Fetch: a gap above the own watermark that a peer acked is asked for after Δ
 *     ({@code resendDelay}); a decided id ({@link #want}) at once; both from an acker, rotating,
 *     again every Δ (l.26–29). A holder answers with {@code Forward}s (at most
 *     {@code resendMaxBytes}, the first always) or {@code BodyGone} (l.30–31).</li>
 * <li>Incarnation: {@code max(highest recovered + 1, incarnationFloor)}, persisted with sync in the
 *     first step that sends anything.</li>
 * <li>Restart: recovered bodies are held again; own bodies of earlier incarnations are re-forwarded
 *     (never renumbered); {@link #restore} raises watermarks over what a snapshot executed.</li>
 * <li>GC: {@link #compact} drops bodies executed below the snapshot point and re-persists the rest
 *     and the incarnation. Nothing waits for other replicas.</li>
 * <li>Recovery from amnesia ({@link DisseminationRecovery}; docs/protocols/s-paxos.md "Recovery
 *     from amnesia"): a core started {@code amnesiac} is {@link #recovering()} until it has heard
 *     an ack vector from {@code n - f} voters and holds, or has executed, every id up to the
 *     highest watermark those carried (fetched as gaps, rule 5; a {@code BodyGone} leads to a
 *     snapshot), so that it holds again what its peers count it for; the argument is
 *     {@link DisseminationRecovery}'s. n=1: recovered at once.</li>
 * </ol>
 *
 * <p><b>Membership changes</b>: the members are the ordering layer's; rules M1–M5 and M2' are
 * {@link DisseminationGroup}'s (docs/protocols/s-paxos.md "Membership changes").
 *
 * <p>Events ({@link #reportEvents}): {@code forwards.sent}, {@code forwards.received},
 * {@code forwards.refused}, {@code acks.sent}, {@code resends.sent}, {@code resends.served},
 * {@code bodies.gone} (BodyGone received), {@code origin.blocked}, {@code dissemination.ignored}
 * (messages out of {@link DisseminationWireBounds} or from no member), {@code dissemination.recovered}
 * (1 once an amnesiac start completed its recovery).
 *
 * <p>Not thread-safe: one driver thread calls it; never blocks, no clocks or randomness.
 */
public final class DisseminationCore implements ProtocolCore<DisseminationMessage, DisseminationRecord, Batch> {

    private final SPaxosConfig config;
    private final int self;
    private final DisseminationGroup group;
    private final int span;
    private final long incarnation;
    private final OriginStream own;
    private final BodyStore store = new BodyStore();
    private final AckTracker tracker;
    /** The membership {@link #group} answered at the start of this step. */
    private Membership current;
    /** The memberships stability was last checked under (rule M2): a change re-checks every stream. */
    private List<Membership> stableUnder = List.of();
    /** Whether the memberships in effect or pending changed since this core started ({@link #stableNow}'s fast path). */
    private boolean membershipChanged;
    private final BodyFetcher fetcher = new BodyFetcher();
    private final DisseminationRecovery recovery;
    private final TreeMap<OriginStream, StreamProgress> progress = new TreeMap<>();
    private final long[] lastSentAt = new long[Membership.ID_SPACE];
    private final long[] sentVersion = new long[Membership.ID_SPACE];
    private final List<BatchId> reforward = new ArrayList<>();
    private boolean incarnationPersisted;
    private long nextSn = 1;
    private long stableEvents;
    private long trimmedBelow;
    private long version = 1;
    private AckVector vector;
    private long vectorVersion;

    private long forwardsSent;
    private long forwardsReceived;
    private long forwardsRefused;
    private long acksSent;
    private long resendsSent;
    private long resendsServed;
    private long bodiesGone;
    private long originBlocked;
    private long ignored;
    private long recoveredEvents;

    /**
     * A core whose log kept every record it acted on (not amnesiac): never {@link #recovering()}.
     *
     * @see #DisseminationCore(SPaxosConfig, int, List, boolean, long, long)
     */
    public DisseminationCore(SPaxosConfig config, int self, List<DisseminationRecord> recovered, long incarnationFloor, long now) {
        this(config, self, recovered, false, incarnationFloor, now);
    }

    /**
     * @param config the settings
     * @param self this replica's id in {@code [0, n)} (the cluster file's members)
     * @param recovered the records found in the log at start, in log order
     * @param amnesiac the log may have lost records this replica acted on
     *        ({@code DurableLog.amnesiaPossible()}): {@link #recovering()} until it holds again what
     *        its peers may count it for (rule 9)
     * @param incarnationFloor the lowest incarnation allowed (wall-clock ms in production, so that a
     *        wiped data directory or a lost record never reuses an incarnation; the virtual time in
     *        simulations); negative counts as 0
     * @param now the driver's clock at start
     * @throws IllegalArgumentException if {@code self} is not a member
     */
    public DisseminationCore(SPaxosConfig config, int self, List<DisseminationRecord> recovered, boolean amnesiac,
                             long incarnationFloor, long now) {
        this(config, self, recovered, amnesiac, incarnationFloor, now,
                DisseminationGroup.fixed(Membership.initial(config.members())));
    }

    /**
     * As {@link #DisseminationCore(SPaxosConfig, int, List, boolean, long, long)}, with the members
     * {@code group} answers at each step (rules M1–M5).
     *
     * @param self this replica's id in {@code 0..31}
     * @throws IllegalArgumentException if {@code self} is outside the id space
     */
    public DisseminationCore(SPaxosConfig config, int self, List<DisseminationRecord> recovered, boolean amnesiac,
                             long incarnationFloor, long now, DisseminationGroup group) {
        if (self < 0 || self > Membership.MAX_ID) {
            throw new IllegalArgumentException("self " + self + " is outside 0.." + Membership.MAX_ID);
        }
        this.config = config;
        this.self = self;
        this.group = java.util.Objects.requireNonNull(group, "group");
        this.current = group.current();
        this.stableUnder = group.inEffectOrPending();
        this.span = config.maxUndecidedPerOrigin();
        this.tracker = new AckTracker(self);
        this.recovery = new DisseminationRecovery(self, amnesiac);
        long highest = -1;
        for (DisseminationRecord r : recovered) {
            if (r instanceof DisseminationRecord.IncarnationRecord i) {
                highest = Math.max(highest, i.incarnation());
            } else if (r instanceof DisseminationRecord.BodyRecord b) {
                store.add(b.id(), b.body());
            }
        }
        this.incarnation = Math.min(DisseminationWireBounds.MAX_NUMBER, Math.max(highest + 1, Math.max(0, incarnationFloor)));
        this.own = new OriginStream(self, incarnation);
        for (BatchId id : store.heldIds()) {
            if (id.origin() == self && id.incarnation() < incarnation) {
                reforward.add(id);
            }
        }
        Arrays.fill(lastSentAt, now);
        recovery.tryComplete(store::watermark, current); // a single voter has nobody to ask
    }

    /** This replica's incarnation. */
    public long incarnation() {
        return incarnation;
    }

    /**
     * Whether this replica, started amnesiac, does not yet hold again every body its peers may count
     * it as a holder of (rule 9). Always false when not started amnesiac.
     */
    public boolean recovering() {
        return recovery.recovering();
    }

    @Override
    public void onMessage(int from, DisseminationMessage message, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        current = group.current();
        boolean known = from >= 0 && from <= Membership.MAX_ID && from != self;
        boolean member = known && (group.recipients() & (1 << from)) != 0;
        boolean removed = known && !member && (current.retired() & (1 << from)) != 0;
        if (!(member || removed) || DisseminationWireBounds.violation(message) != null
                || (removed && !(message instanceof DisseminationMessage.Forward || message instanceof DisseminationMessage.Ack))) {
            ignored++;
            return;
        }
        if (message instanceof DisseminationMessage.Forward f) {
            receive(f, out);
            recovery.heard(from, f.acks(), current);
            mergeAcks(from, f.acks(), out);
            checkStable(OriginStream.of(f.id()), out);
        } else if (message instanceof DisseminationMessage.Ack a) {
            recovery.heard(from, a.acks(), current);
            mergeAcks(from, a.acks(), out);
        } else if (message instanceof DisseminationMessage.ResendForward r) {
            serve(from, r, now, out);
        } else if (message instanceof DisseminationMessage.BodyGone g) {
            bodiesGone++;
            if (fetcher.wanted(g.id()) || (recovery.needs(g.id()) && !store.known(g.id()))) {
                out.snapshotNeeded(from, g.trimmedBelow());
            }
        }
        finish(now, out);
    }

    @Override
    public void onTick(long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        current = group.current();
        finish(now, out);
    }

    /**
     * Numbers and disseminates a local client batch (rule 1).
     *
     * @return {@code false} when B own batches are undecided (back-pressure: offer it again later)
     * @throws IllegalArgumentException if the batch already has an id
     */
    @Override
    public boolean onProposal(Batch batch, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        if (batch.id() != null || batch.body() == null) {
            throw new IllegalArgumentException("propose Batch.unnumbered(body), not " + batch);
        }
        current = group.current();
        if (!spanRoom() || !current.isMember(self)) {
            originBlocked++;
            finish(now, out);
            return false;
        }
        BatchId id = own.id(nextSn++);
        ByteBuffer body = batch.body().slice().asReadOnlyBuffer();
        ensureIncarnation(out);
        out.persist(new DisseminationRecord.BodyRecord(id, body), true);
        if (store.add(id, body)) {
            version++;
        }
        sendToAll(new DisseminationMessage.Forward(id, body, vector()), now, out);
        checkStable(own, out);
        finish(now, out);
        return true;
    }

    /**
     * The batching hint: fewer than {@code eagerBelow} own batches are unstable and the span bound
     * has room.
     */
    @Override
    public boolean canPropose() {
        return spanRoom() && group.current().isMember(self) && (nextSn - 1) - progress(own).stableReported < config.eagerBelow();
    }

    /**
     * The highest sn of {@code s} stable under the memberships in effect or pending now (rule
     * M2'): f+1 voters of each hold every id up to it. An id reported stable under an older
     * membership may be above it once a change is decided; the leader then holds it back until
     * the new voters fetched it (rule 5).
     */
    public long stableNow(OriginStream s) {
        if (!membershipChanged) {
            return Long.MAX_VALUE; // every id reported stable so far was reported under the memberships now
        }
        return tracker.stableWatermark(s, store.watermark(s), group.inEffectOrPending());
    }

    /** A read-only view of the body of {@code id}, or null when not held. */
    public ByteBuffer body(BatchId id) {
        return store.body(id);
    }

    /**
     * {@code id} was decided and execution waits for its body: ask a holder at once, then every Δ
     * (rule 5; seed 002 Alg. 1 l.21–22). No effect when the body is held.
     */
    public void want(BatchId id, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        if (id.sn() < 1 || store.known(id)) {
            return;
        }
        fetcher.want(id, now);
        current = group.current();
        finish(now, out);
    }

    /**
     * {@code id} was decided by the ordering layer (fed in decision order). Raises the stream's
     * decided knowledge: its receiver window, and for own ids the span bound (rule 1).
     */
    public void decided(BatchId id) {
        if (id.sn() < 1) {
            return;
        }
        StreamProgress p = progress(OriginStream.of(id));
        long sn = id.sn();
        if (sn < p.decidedBelow) {
            return;
        }
        // The origin numbered sn only once every sn <= sn - B was decided (its span bound).
        p.raiseDecided(sn - span + 1);
        p.decide(sn);
    }

    /** {@code id} executed at {@code instance}: its body goes once a snapshot covers {@code instance} (rule 8). */
    public void executed(BatchId id, long instance) {
        store.executed(id, instance);
    }

    /**
     * A snapshot covers every instance below {@code instance}: drop the bodies executed below it,
     * then persist (with sync) every body still held and the incarnation, so that the driver may
     * drop every record written before this call (rule 8; {@code ProtocolStage.runCompaction}).
     */
    @Override
    public void compact(long instance, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        trimmedBelow = Math.max(trimmedBelow, instance);
        store.dropExecutedBelow(instance);
        for (BatchId id : store.heldIds()) {
            out.persist(new DisseminationRecord.BodyRecord(id, store.body(id)), true);
        }
        out.persist(new DisseminationRecord.IncarnationRecord(incarnation), true);
        incarnationPersisted = true;
    }

    /**
     * A snapshot covering instances below {@code instance}, with executed ids {@code executed}, was
     * installed — or this replica restarted from its own snapshot (the composite must call this at
     * start too, so that watermarks cover what was executed and compacted away, rule 7). Those ids
     * count as executed and dropped; held bodies among them go at the next compaction. The record
     * is copied.
     */
    public void restore(ExecutedIds executed, long instance) {
        trimmedBelow = Math.max(trimmedBelow, instance);
        if (store.restore(executed, instance)) {
            version++;
        }
        executed.forEachStream((origin, inc, below) -> {
            StreamProgress p = progress(new OriginStream(origin, inc));
            p.raiseDecided(below);
            p.stableReported = Math.max(p.stableReported, below - 1);
        });
        completeRecovery();
    }

    /** Bodies held. */
    public int heldBodies() {
        return store.size();
    }

    /** Bytes of the bodies held. */
    public long heldBytes() {
        return store.bytes();
    }

    @Override
    public void reportEvents(ObjLongConsumer<String> sink) {
        sink.accept("forwards.sent", forwardsSent);
        sink.accept("forwards.received", forwardsReceived);
        sink.accept("forwards.refused", forwardsRefused);
        sink.accept("acks.sent", acksSent);
        sink.accept("resends.sent", resendsSent);
        sink.accept("resends.served", resendsServed);
        sink.accept("bodies.gone", bodiesGone);
        sink.accept("origin.blocked", originBlocked);
        sink.accept("dissemination.ignored", ignored);
        sink.accept("dissemination.recovered", recoveredEvents);
    }

    // ---- rules ----

    private boolean spanRoom() {
        return nextSn < progress(own).decidedBelow + span;
    }

    /** Rule 2: stores a body not held if it is in the receiver window or wanted; persisted with sync first. */
    private void receive(DisseminationMessage.Forward f, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        forwardsReceived++;
        BatchId id = f.id();
        if (store.known(id)) {
            return;
        }
        if (!fetcher.wanted(id) && !recovery.needs(id) && id.sn() >= progress(OriginStream.of(id)).decidedBelow + 2L * span) {
            forwardsRefused++;
            return;
        }
        out.persist(new DisseminationRecord.BodyRecord(id, f.body()), true);
        if (store.add(id, f.body())) {
            version++;
        }
        fetcher.arrived(id);
    }

    private void mergeAcks(int from, AckVector acks, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        List<OriginStream> raised = new ArrayList<>();
        tracker.merge(from, acks, raised::add);
        for (OriginStream s : raised) {
            checkStable(s, out);
        }
    }

    private void checkStable(OriginStream s, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        StreamProgress p = progress(s);
        long stable = tracker.stableWatermark(s, store.watermark(s), group.inEffectOrPending());
        if (stable <= p.stableReported) {
            return;
        }
        for (long sn = Math.max(p.stableReported + 1, stable - span + 1); sn <= stable; sn++) {
            if (!p.decided(sn)) {
                BatchId id = s.id(sn);
                out.decide(stableEvents++, new Batch(id, store.body(id)));
            }
        }
        p.stableReported = stable;
    }

    private void serve(int from, DisseminationMessage.ResendForward r, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        OriginStream s = new OriginStream(r.origin(), r.incarnation());
        long bytes = 0;
        boolean first = true;
        boolean goneSent = false;
        for (long sn = r.fromSn(); sn <= r.toSn(); sn++) {
            BatchId id = s.id(sn);
            ByteBuffer body = store.body(id);
            if (body != null) {
                if (!first && bytes + body.remaining() > config.resendMaxBytes()) {
                    break;
                }
                first = false;
                bytes += body.remaining();
                send(from, new DisseminationMessage.Forward(id, body, vector()), now, out);
                forwardsSent++;
                resendsServed++;
            } else if (!goneSent && sn >= 1 && store.dropped(id)) {
                goneSent = true;
                send(from, new DisseminationMessage.BodyGone(id, trimmedBelow), now, out);
            }
        }
    }

    /** Re-forwards, fetches and acks what is due, and asks to be woken for the next due time. */
    private void finish(long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        if (!reforward.isEmpty()) {
            for (BatchId id : reforward) {
                ByteBuffer body = store.body(id);
                if (body != null && !progress(OriginStream.of(id)).decided(id.sn())) {
                    sendToAll(new DisseminationMessage.Forward(id, body, vector()), now, out);
                }
            }
            reforward.clear();
        }
        List<Membership> under = group.inEffectOrPending();
        if (!under.equals(stableUnder)) {
            stableUnder = under;
            membershipChanged = true;
            checkStable(own, out);
            for (OriginStream s : List.copyOf(tracker.streams())) {
                checkStable(s, out);
            }
        }
        long wake = Math.min(fetch(now, out), flushAcks(now, out));
        completeRecovery();
        if (wake != Long.MAX_VALUE) {
            out.wakeAt(wake);
        }
    }

    private long fetch(long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        long delay = config.resendDelayNanos();
        long wake = Long.MAX_VALUE;
        for (Iterator<Map.Entry<BatchId, BodyFetcher.Ask>> it = fetcher.wantedIds().entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<BatchId, BodyFetcher.Ask> e = it.next();
            BatchId id = e.getKey();
            if (store.known(id)) {
                it.remove();
                continue;
            }
            BodyFetcher.Ask a = e.getValue();
            if (now >= a.dueAt) {
                int target = tracker.nextAcker(OriginStream.of(id), id.sn(), a.lastAsked);
                if (target < 0) {
                    target = nextPeer(a.lastAsked);
                }
                if (target >= 0) {
                    send(target, new DisseminationMessage.ResendForward(id.origin(), id.incarnation(), id.sn(), id.sn()), now, out);
                    resendsSent++;
                    a.lastAsked = target;
                }
                a.dueAt = now + delay;
            }
            wake = Math.min(wake, a.dueAt);
        }
        for (OriginStream s : tracker.streams()) {
            long watermark = store.watermark(s);
            long from = watermark + 1;
            long limit = Math.max(progress(s).decidedBelow + 2L * span - 1, recovery.target(s));
            if (tracker.maxAcked(s) <= watermark || from > limit) {
                fetcher.closeGap(s);
                continue;
            }
            BodyFetcher.Ask a = fetcher.gap(s, watermark, now, delay);
            if (now >= a.dueAt) {
                int target = tracker.nextAcker(s, from, a.lastAsked);
                long to = Math.min(Math.min(tracker.acked(target, s), store.nextHeldAbove(s) - 1),
                        Math.min(from + DisseminationWireBounds.MAX_RESEND_SPAN - 1, limit));
                send(target, new DisseminationMessage.ResendForward(s.origin(), s.incarnation(), from, to), now, out);
                resendsSent++;
                a.lastAsked = target;
                a.dueAt = now + delay;
            }
            wake = Math.min(wake, a.dueAt);
        }
        return wake;
    }

    private long flushAcks(long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        AckVector v = vector();
        if (v.size() == 0) {
            return Long.MAX_VALUE;
        }
        long wake = Long.MAX_VALUE;
        int to = group.recipients();
        for (int p = 0; p < Membership.ID_SPACE; p++) {
            if (p == self || (to & (1 << p)) == 0) {
                continue;
            }
            long due = sentVersion[p] != version ? lastSentAt[p] + config.ackIntervalNanos() : lastSentAt[p] + config.ackRefreshNanos();
            if (now >= due) {
                send(p, new DisseminationMessage.Ack(v), now, out);
                acksSent++;
                due = now + config.ackRefreshNanos();
            }
            wake = Math.min(wake, due);
        }
        return wake;
    }

    /** Rule 9: recovered once the target is fixed and every own watermark reaches it. */
    private void completeRecovery() {
        if (recovery.tryComplete(store::watermark, current)) {
            recoveredEvents++;
        }
    }

    // ---- helpers ----

    private void sendToAll(DisseminationMessage.Forward f, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        int to = group.recipients();
        for (int p = 0; p < Membership.ID_SPACE; p++) {
            if (p != self && (to & (1 << p)) != 0) {
                send(p, f, now, out);
                forwardsSent++;
            }
        }
    }

    private void send(int to, DisseminationMessage m, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        ensureIncarnation(out);
        out.send(to, m);
        lastSentAt[to] = now;
        if (m instanceof DisseminationMessage.Forward f && f.acks() == vector) {
            sentVersion[to] = vectorVersion;
        } else if (m instanceof DisseminationMessage.Ack a && a.acks() == vector) {
            sentVersion[to] = vectorVersion;
        }
    }

    private void ensureIncarnation(Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        if (!incarnationPersisted) {
            out.persist(new DisseminationRecord.IncarnationRecord(incarnation), true);
            incarnationPersisted = true;
        }
    }

    /** This replica's ack vector: per origin, its {@value DisseminationWireBounds#INCARNATIONS_PER_ORIGIN} newest streams. */
    private AckVector vector() {
        if (vector == null || vectorVersion != version) {
            List<AckVector.Entry> all = new ArrayList<>();
            store.forEachWatermark((origin, inc, watermark) -> all.add(new AckVector.Entry(origin, inc, watermark)));
            vector = AckVector.newest(all, DisseminationWireBounds.INCARNATIONS_PER_ORIGIN);
            vectorVersion = version;
        }
        return vector;
    }

    /** The next member after {@code after} in id order (cyclically), not this replica; -1 if none. */
    private int nextPeer(int after) {
        int members = group.recipients();
        for (int i = 1; i <= Membership.ID_SPACE; i++) {
            int p = Math.floorMod(after + i, Membership.ID_SPACE);
            if (p != self && (members & (1 << p)) != 0) {
                return p;
            }
        }
        return -1;
    }

    private StreamProgress progress(OriginStream s) {
        return progress.computeIfAbsent(s, k -> new StreamProgress());
    }
}
