package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.paxos.MultiPaxosCore;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosRecord;
import dev.parallax.paxos.Value;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;

/**
 * One replica's S-Paxos (seed 002 (S-Paxos) §IV), as a deterministic step function: the
 * {@link DisseminationCore} (client batches made stable at f+1 replicas, §IV-A Alg. 1 l.9–15,
 * channel {@code spaxos-dissem}) and the unchanged {@link MultiPaxosCore} ordering batch ids
 * (channel {@code spaxos-order}), composed with the leader's id proposer ({@link LeaderProposals},
 * l.16–18, l.32–36) and the execution side ({@link Execution}, l.19–22).
 *
 * <p><b>Step.</b> Every input is routed to its sub-core ({@link DisseminationMessage} and client
 * batches to dissemination, {@link PaxosMessage} (unwrapped from its {@link SPaxosWire.Ordering})
 * and suspicions to ordering, ticks to both) through {@link Effects} adapters held in fields,
 * which forward sends (ordering's wrapped in {@link SPaxosWire.Ordering}), records (wrapped in
 * {@link SPaxosRecord}), timers and snapshot requests to the step's effects and collect the
 * sub-cores' notifications. Then the same pump runs:
 * <ol>
 *   <li>drain the notifications: ids that became stable (to the proposer), instances the ordering
 *       layer decided, in order (to execution; each id to {@code dissemination.decided} and the
 *       proposer);</li>
 *   <li>a completed Phase 1 ({@link MultiPaxosCore#takeReproposals}) starts a leadership of the
 *       proposer; not leading ends it;</li>
 *   <li>execute what has its bodies ({@link Executable}s are this core's decisions);</li>
 *   <li>propose id lists of at most {@code idsPerValue} pending ids: a partial one while the
 *       ordering core is eager ({@code canPropose}), a full one whenever its window takes it
 *       (natural batching, §IV-C, Table II).</li>
 * </ol>
 *
 * <p><b>Values.</b> A decided value that is not an id list (or names an id outside the id space,
 * or sn 0, which no origin numbers) executes nothing, identically everywhere, and is counted
 * ({@code malformed.values}); a no-op executes nothing; a configuration command executes nothing
 * and is emitted in its turn as a {@link MembershipDecided}, for the delivery side's history.
 *
 * <p><b>Membership.</b> The ordering core changes the membership (rules R1–R3 of
 * {@code MembershipHistory}); dissemination reads it from the ordering core at every step
 * ({@link DisseminationGroup}, rules M1–M5). An operator's change goes
 * through {@link #proposeMembership} and {@link #transferLeadership} on the driver thread.
 *
 * <p><b>Snapshots.</b> {@link #compact} compacts both sub-cores (bodies executed below the cut are
 * dropped, the rest re-persisted); {@link #skipTo(long, ByteBuffer)} installs the executed-id
 * record of the snapshot (the delivery state, {@link ExecutionMirror}), so that an installing
 * replica tells duplicates from new ids exactly as the others do.
 *
 * <p>Driver contract: {@link Effects} (persist, sync once, then send and decide).
 *
 * <p>Not thread-safe: one driver thread calls it; it never blocks.
 */
public final class SPaxosCore implements ProtocolCore<SPaxosWire, SPaxosRecord, SPaxosValue> {

    /**
     * What the core reports besides effects, for tests and the simulator's monitors. Called on the
     * driver thread during a step; must not call back into the core or block. Every method
     * defaults to nothing.
     */
    public interface Observer {
        /** The observer that ignores everything. */
        Observer NONE = new Observer() {
        };

        /** The ordering layer decided {@code ids} (an id list, the no-op, or a malformed value) at {@code instance}. */
        default void orderingDecided(long instance, Value ids) {
        }

        /** {@code id} became stable here (seed 002 §IV-A, Alg. 1 l.14–15). */
        default void stable(BatchId id) {
        }

        /** {@code ids} (new, in order) executed at {@code instance}. */
        default void executed(long instance, List<BatchId> ids) {
        }
    }

    private final SPaxosConfig config;
    private final int self;
    private final MultiPaxosCore ordering;
    private final DisseminationCore dissemination;
    private final LeaderProposals proposals = new LeaderProposals();
    private final Execution execution = new Execution();
    private final ExecutedReads reads = new ExecutedReads();
    /** The last instance handed to the driver as a decision, or -1: a read's delivery position is one past it. */
    private long lastDecided = -1;
    private final Observer observer;
    private ExecutedIds executed = new ExecutedIds();

    private final OrderingEffects orderingOut = new OrderingEffects();
    private final DisseminationEffects disseminationOut = new DisseminationEffects();
    private final BodySource bodies = new BodySource();
    private final Predicate<BatchId> decidedKnown = id -> executed.executed(id) || execution.queued(id);
    /** Decisions and stable ids the sub-cores reported in this step, not yet drained. */
    private final List<Long> decidedInstances = new ArrayList<>();
    private final List<Value> decidedValues = new ArrayList<>();
    private final List<BatchId> stableIds = new ArrayList<>();

    /** The step's effects and time, set at the start of every input. */
    private Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out;
    private long now;
    private long malformedValues;

    /**
     * @param config           the S-Paxos configuration (its {@code paxos()} part configures ordering)
     * @param self             this replica's id
     * @param recovered        every record of this replica's log, oldest first
     * @param amnesiac         the log may have lost records it acted on: ordering recovers from peers
     *                         before voting ({@link MultiPaxosCore}), dissemination fetches again the
     *                         bodies its peers may count it as a holder of ({@link DisseminationCore})
     * @param incarnationFloor the lowest incarnation this start may use (wall-clock milliseconds in
     *                         production, the virtual time in the simulator)
     * @param now              the driver's clock
     * @param observer         test hook, {@link Observer#NONE} in production
     * @throws IllegalArgumentException if {@code self} is not a member
     */
    public SPaxosCore(SPaxosConfig config, int self, List<SPaxosRecord> recovered, boolean amnesiac,
                      long incarnationFloor, long now, Observer observer) {
        this.config = Objects.requireNonNull(config, "config");
        this.self = self;
        this.observer = Objects.requireNonNull(observer, "observer");
        List<PaxosRecord> orderingRecords = new ArrayList<>();
        List<DisseminationRecord> disseminationRecords = new ArrayList<>();
        for (SPaxosRecord r : recovered) {
            if (r instanceof SPaxosRecord.Ordering o) {
                orderingRecords.add(o.record());
            } else {
                disseminationRecords.add(((SPaxosRecord.Dissemination) r).record());
            }
        }
        this.ordering = new MultiPaxosCore(config.paxos(), self, orderingRecords, amnesiac, now);
        this.dissemination = new DisseminationCore(config, self, disseminationRecords, amnesiac, incarnationFloor, now,
                new OrderingGroup());
    }

    /** The ordering core (gauges, failure detection); driver thread only. */
    public MultiPaxosCore ordering() {
        return ordering;
    }

    /** The dissemination core (gauges); driver thread only. */
    public DisseminationCore dissemination() {
        return dissemination;
    }

    /** The ids executed so far (live; read only, driver thread only). */
    public ExecutedIds executedIds() {
        return executed;
    }

    /** Decided instances waiting for execution (bodies missing, or behind one that waits). */
    public int executionWaiting() {
        return execution.waiting();
    }

    /** The next ordering instance to execute. */
    public long nextToExecute() {
        return execution.next();
    }

    /** Stable ids this replica would propose in the current leadership and has not yet. */
    public int pendingProposals() {
        return proposals.pending();
    }

    @Override
    public void onMessage(int from, SPaxosWire message, long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        if (message instanceof DisseminationMessage d) {
            dissemination.onMessage(from, d, now, disseminationOut);
        } else if (message instanceof SPaxosWire.Ordering o) {
            ordering.onMessage(from, o.message(), now, orderingOut);
        }
        pump();
    }

    @Override
    public void onTick(long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        ordering.onTick(now, orderingOut);
        dissemination.onTick(now, disseminationOut);
        pump();
    }

    /**
     * A local client batch: dissemination numbers, persists and forwards it (Alg. 1 l.9–10).
     *
     * @return {@code false} when the origin's span bound refuses it (back-pressure)
     * @throws IllegalArgumentException if {@code value} is not a {@link SPaxosValue.ClientBatch}
     */
    @Override
    public boolean onProposal(SPaxosValue value, long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        if (!(value instanceof SPaxosValue.ClientBatch batch)) {
            throw new IllegalArgumentException("only client batches are proposed, not " + value);
        }
        begin(now, out);
        boolean taken = dissemination.onProposal(Batch.unnumbered(batch.bytes()), now, disseminationOut);
        pump();
        return taken;
    }

    /**
     * Proposes a configuration command through the ordering core
     * ({@link MultiPaxosCore#proposeMembership}); its effects go to {@code out}.
     *
     * @return null if proposed, else why not
     */
    public String proposeMembership(MembershipChange change, long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        String refusal = ordering.proposeMembership(change, now, orderingOut);
        pump();
        return refusal;
    }

    /**
     * Starts a leadership transfer to {@code target} through the ordering core
     * ({@link MultiPaxosCore#transferLeadership}).
     *
     * @return null if started, else why not
     */
    public String transferLeadership(int target, long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        String refusal = ordering.transferLeadership(target, now, orderingOut);
        pump();
        return refusal;
    }

    @Override
    public void onSuspect(long view, long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        ordering.onSuspect(view, now, orderingOut);
        pump();
    }

    /** The batcher's hint is dissemination's: few own batches unstable. */
    @Override
    public boolean canPropose() {
        return dissemination.canPropose();
    }

    /**
     * Whether either layer still recovers from amnesia: ordering does not vote yet, or dissemination
     * does not yet hold again every body its peers count it for (docs/protocols/s-paxos.md "Recovery
     * from amnesia"). The runtime resolves the log's amnesia only once both are done, so a crash
     * before then starts amnesiac again.
     */
    @Override
    public boolean recovering() {
        return ordering.recovering() || dissemination.recovering();
    }

    /** Both layers compact below {@code instance}: ordering checkpoints, dissemination drops bodies executed below it. */
    @Override
    public void compact(long instance, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        ordering.compact(instance, orderingOut);
        dissemination.compact(instance, disseminationOut);
    }

    /** A snapshot without delivery state: the executed-id record restarts empty. */
    @Override
    public void skipTo(long instance) {
        skipTo(instance, ByteBuffer.allocate(0));
    }

    /**
     * A snapshot covering every instance below {@code instance} was installed, with
     * {@code deliveryState} the executed-id record as of it ({@link ExecutionMirror#state}):
     * ordering, execution and dissemination continue from there. A snapshot not beyond what this
     * core executed changes nothing here.
     *
     * @throws IllegalArgumentException if {@code deliveryState} is not an {@link ExecutedIds}
     *         record (nothing changes)
     */
    @Override
    public void skipTo(long instance, ByteBuffer deliveryState) {
        SPaxosDeliveryState state = SPaxosDeliveryState.fromBytes(deliveryState);
        if (state.membership() != null) {
            try {
                ordering.installMembership(state.membership());
            } catch (IllegalArgumentException malformed) {
                malformedValues++; // the log and catch-up still bring every change
            }
        }
        if (instance <= execution.next()) {
            ordering.skipTo(instance);
            return;
        }
        ExecutedIds restored = state.executed();
        ordering.skipTo(instance);
        execution.skipTo(instance);
        lastDecided = Math.max(lastDecided, instance - 1);
        executed = restored;
        dissemination.restore(restored, instance);
        proposals.prune(decidedKnown);
    }

    @Override
    public void reportEvents(ObjLongConsumer<String> sink) {
        ordering.reportEvents(sink);
        dissemination.reportEvents(sink);
        sink.accept("duplicates", execution.duplicates());
        sink.accept("execution.waiting", execution.waits());
        sink.accept("malformed.values", malformedValues);
    }

    private void begin(long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        this.now = now;
        this.out = out;
    }

    /** Steps 1–4 of the class comment, until the sub-cores report nothing new. */
    private void pump() {
        do {
            drain();
            MultiPaxosCore.Reproposals r = ordering.takeReproposals();
            if (r != null) {
                List<BatchId> reproposed = new ArrayList<>();
                for (Value v : r.values()) {
                    reproposed.addAll(ids(v, false));
                }
                proposals.lead(reproposed);
            }
            if (proposals.leading() && !ordering.isLeader()) {
                proposals.clear();
            }
            execution.pump(executed, bodies, this::executed, c -> decide(c.instance(), c));
            propose();
        } while (!stableIds.isEmpty() || !decidedValues.isEmpty());
        reads.settle(execution.next(), lastDecided + 1, out);
    }

    /** Hands a decision to the driver, noting how far decisions go (a read's delivery position). */
    private void decide(long instance, SPaxosValue value) {
        lastDecided = Math.max(lastDecided, instance);
        out.decide(instance, value);
    }

    /**
     * Read-index ({@link ExecutedReads}): the ordering core confirms the read at an ordering
     * instance; it is answered once execution passed it.
     */
    @Override
    public void onReadIndex(long read, long now, Effects<SPaxosWire, SPaxosRecord, SPaxosValue> out) {
        begin(now, out);
        ordering.onReadIndex(read, now, orderingOut);
        pump();
    }

    private void drain() {
        for (int i = 0; i < stableIds.size(); i++) {
            BatchId id = stableIds.get(i);
            observer.stable(id);
            proposals.onStable(id, decidedKnown);
        }
        stableIds.clear();
        for (int i = 0; i < decidedValues.size(); i++) {
            long instance = decidedInstances.get(i);
            Value v = decidedValues.get(i);
            observer.orderingDecided(instance, v);
            List<BatchId> ids = ids(v, true);
            execution.add(instance, ids, v.isMembership() ? v.bytes() : null);
            for (BatchId id : ids) {
                dissemination.decided(id);
                proposals.onDecided(id);
            }
        }
        decidedInstances.clear();
        decidedValues.clear();
    }

    /** The ids {@code v} names: none for the no-op or a malformed value (counted if {@code count}). */
    private List<BatchId> ids(Value v, boolean count) {
        if (v.isNoop() || v.isMembership()) {
            return List.of();
        }
        try {
            List<BatchId> ids = IdList.decode(v);
            for (BatchId id : ids) {
                if (id.origin() > Membership.MAX_ID || id.sn() < 1) {
                    throw new IllegalArgumentException("id out of bounds: " + id);
                }
            }
            return ids;
        } catch (IllegalArgumentException e) {
            if (count) {
                malformedValues++;
            }
            return List.of();
        }
    }

    private void executed(Executable e) {
        observer.executed(e.instance(), e.ids());
        decide(e.instance(), e);
    }

    /** {@link #orderableNow}'s memo: the stream last asked about and its watermark, within one {@link #propose}. */
    private OriginStream memoStream;
    private long memoStable;

    /** Rule M2' of {@link DisseminationGroup}: {@code id} is stable under the memberships in effect or pending now. */
    private boolean orderableNow(BatchId id) {
        OriginStream s = OriginStream.of(id);
        if (!s.equals(memoStream)) {
            memoStream = s;
            memoStable = dissemination.stableNow(s);
        }
        return id.sn() <= memoStable;
    }

    /** Step 4: full values whenever the window takes them, a partial one while ordering is eager. */
    private void propose() {
        memoStream = null;
        if (!proposals.leading()) {
            return;
        }
        int max = config.idsPerValue();
        while (proposals.pending() > 0) {
            if (proposals.pending() < max && !ordering.canPropose()) {
                return;
            }
            List<BatchId> ids = proposals.peek(max, this::orderableNow);
            if (ids.isEmpty()) {
                return; // rule M2': stable under an older membership only; the new voters fetch them
            }
            if (!ordering.onProposal(IdList.encode(ids), now, orderingOut)) {
                return;
            }
            proposals.take(ids);
        }
    }

    /** The ordering core's effects: forwarded, messages and records wrapped, decisions collected. */
    private final class OrderingEffects implements Effects<PaxosMessage, PaxosRecord, Value> {
        @Override
        public void send(int to, PaxosMessage message) {
            out.send(to, new SPaxosWire.Ordering(message));
        }

        @Override
        public void persist(PaxosRecord record, boolean sync) {
            out.persist(new SPaxosRecord.Ordering(record), sync);
        }

        @Override
        public void decide(long instance, Value value) {
            decidedInstances.add(instance);
            decidedValues.add(value);
        }

        @Override
        public void wakeAt(long nanos) {
            out.wakeAt(nanos);
        }

        @Override
        public void snapshotNeeded(int peer, long instance) {
            out.snapshotNeeded(peer, instance);
        }

        @Override
        public void readReady(long read, long position) {
            reads.confirmed(read, position);
        }

        @Override
        public void readFailed(long read, int leaderHint) {
            out.readFailed(read, leaderHint);
        }

        /** Two different decisions for one ordering instance: forwarded, the driver stops the replica. */
        @Override
        public void safetyViolation(dev.parallax.core.protocol.SafetyViolation violation) {
            out.safetyViolation(violation);
        }
    }

    /** The dissemination core's effects: forwarded, records wrapped, stable ids collected. */
    private final class DisseminationEffects implements Effects<DisseminationMessage, DisseminationRecord, Batch> {
        @Override
        public void send(int to, DisseminationMessage message) {
            out.send(to, message);
        }

        @Override
        public void persist(DisseminationRecord record, boolean sync) {
            out.persist(new SPaxosRecord.Dissemination(record), sync);
        }

        @Override
        public void decide(long k, Batch batch) {
            stableIds.add(batch.id());
        }

        @Override
        public void wakeAt(long nanos) {
            out.wakeAt(nanos);
        }

        @Override
        public void snapshotNeeded(int peer, long instance) {
            out.snapshotNeeded(peer, instance);
        }
    }

    /**
     * Dissemination's view of the members: the ordering core's membership in effect at its first
     * undecided instance and the pending ones, read at every call.
     */
    private final class OrderingGroup implements DisseminationGroup {
        @Override
        public Membership current() {
            return ordering.membership();
        }

        @Override
        public List<Membership> inEffectOrPending() {
            MembershipHistory h = ordering.membershipHistory();
            long from = ordering.firstUndecided();
            List<Membership> all = new ArrayList<>(2);
            all.add(h.at(from));
            for (long next = h.pending(from); next >= 0; next = h.pending(next)) {
                all.add(h.at(next));
            }
            return all;
        }

        @Override
        public int recipients() {
            return ordering.membershipHistory().recipients(ordering.firstUndecided());
        }
    }

    /** Execution's view of the dissemination core. */
    private final class BodySource implements Execution.Bodies {
        @Override
        public ByteBuffer body(BatchId id) {
            return dissemination.body(id);
        }

        @Override
        public void want(BatchId id) {
            dissemination.want(id, now, disseminationOut);
        }

        @Override
        public void executed(BatchId id, long instance) {
            dissemination.executed(id, instance);
        }
    }
}
