package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The leader role of one view: Phase 1 once for every open instance when the view starts, then
 * pipelined Phase 2 with at most WND undecided instances in flight (seed 000 §III-A, batching and
 * pipelining). The new leader re-proposes the highest-view value reported for each instance and
 * fills the gaps with no-ops ("Paxos Made Simple" §3). Unanswered Prepares and undecided Proposes
 * are retransmitted after the retransmit timeout, because messages are lost when connections
 * break (seed 000 §V-C4).
 *
 * <p>Phase 1 is paged: an acceptor's {@link PaxosMessage.PrepareOk} carries a bounded slice of its
 * votes and says where to continue, and we ask that acceptor again from there. Phase 1 completes once
 * a majority answered completely. Re-proposals after Phase 1 respect the window too: at most WND
 * are in flight, the rest follow as decisions free the window, before any new value.
 *
 * <p>When Phase 1 completes, the values it will re-propose (every reported value at or above the
 * first open instance, no-ops aside) are kept for one {@link #takeReproposals()}: a layer ordering
 * ids (S-Paxos, seed 002 (S-Paxos) §IV-A, Alg. 1 l.32–36) learns which ids the new leader already
 * proposes again. Recording them emits nothing.
 *
 * <p>Not thread-safe; owned by {@link MultiPaxosCore}.
 */
final class Proposer {
    private long retransmittedPrepares;
    private long retransmittedProposes;
    enum State { FOLLOWER, PREPARING, LEADING }

    private static final class InFlight {
        final Value value;
        long sentAt;

        InFlight(Value value, long sentAt) {
            this.value = value;
            this.sentAt = sentAt;
        }
    }

    private final PaxosConfig config;
    private State state = State.FOLLOWER;
    private long view = -1;

    private long prepareFrom;
    /** Acceptors whose Phase 1 answer is complete (every vote from prepareFrom on reported). */
    private int completeFrom;
    /** Per acceptor: the instance its next Phase 1 page starts at. */
    private long[] askFrom;
    private long highestTrim;
    private long prepareSentAt;
    private final TreeMap<Long, PaxosMessage.Accepted> reported = new TreeMap<>();

    private long nextInstance;
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();
    /** Re-proposals Phase 1 left, {@code [reproposeNext, reproposeEnd)}: they go before any new value. */
    private long reproposeNext;
    private long reproposeEnd;
    /** What the last completed Phase 1 re-proposes, until taken; null if taken or none. */
    private MultiPaxosCore.Reproposals reproposals;

    Proposer(PaxosConfig config) {
        this.config = config;
    }

    State state() {
        return state;
    }

    boolean isLeading() {
        return state == State.LEADING;
    }

    /** Undecided proposals in flight (what the batcher reads to decide how eagerly to close batches). */
    int inFlight() {
        return inFlight.size();
    }

    /** Whether a new proposal would be taken now. */
    boolean hasRoom() {
        return state == State.LEADING && reproposeNext >= reproposeEnd && inFlight.size() < config.window();
    }

    /**
     * Starts Phase 1 of {@code newView} (we are its leader). The caller has made our own promise of
     * {@code newView} durable in this step, so a restart never reuses the view.
     */
    void startView(long newView, long fromInstance, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        state = State.PREPARING;
        view = newView;
        prepareFrom = fromInstance;
        completeFrom = 0;
        askFrom = new long[config.members()];
        Arrays.fill(askFrom, fromInstance);
        highestTrim = fromInstance;
        reported.clear();
        inFlight.clear();
        reproposals = null;
        prepareSentAt = now;
        broadcast(new PaxosMessage.Prepare(view, prepareFrom), out);
    }

    /** Another view took over: stop leading; proposals in flight are left to the new leader. */
    void stepDown() {
        state = State.FOLLOWER;
        reported.clear();
        inFlight.clear();
        reproposals = null;
    }

    /**
     * The values the last completed Phase 1 of this leadership re-proposes, once; null if already
     * taken, or if no Phase 1 completed since this replica last started a view or stepped down.
     */
    MultiPaxosCore.Reproposals takeReproposals() {
        MultiPaxosCore.Reproposals r = reproposals;
        reproposals = null;
        return r;
    }

    /**
     * Phase 1b answer (one page of it). A partial answer is followed by a Prepare to the same
     * acceptor from where it stopped; once a majority answered completely, becomes leader and starts
     * re-proposing what Phase 1 found.
     */
    void onPrepareOk(int from, PaxosMessage.PrepareOk ok, Learner learner, long now,
                     Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (state != State.PREPARING || ok.view() != view) {
            return;
        }
        highestTrim = Math.max(highestTrim, ok.trimmedBelow());
        for (PaxosMessage.Accepted a : ok.accepted()) {
            PaxosMessage.Accepted old = reported.get(a.instance());
            if (old == null || old.view() < a.view()) {
                reported.put(a.instance(), a);
            }
        }
        if (ok.isComplete()) {
            completeFrom |= 1 << from;
        } else if ((completeFrom & (1 << from)) == 0 && ok.continueFrom() > askFrom[from]) {
            // A page newer than the last one asked for; a duplicate or stale page asks nothing again.
            askFrom[from] = ok.continueFrom();
            out.send(from, new PaxosMessage.Prepare(view, ok.continueFrom()));
        }
        if (Integer.bitCount(completeFrom) >= config.quorum()) {
            lead(learner, now, out);
        }
    }

    private void lead(Learner learner, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        state = State.LEADING;
        // Instances below some acceptor's trim point are decided and covered by its snapshot: never
        // re-propose or no-op them (their votes are gone); we learn them through catch-up or a
        // snapshot. Above it, every vote of the quorum is reported, so the highest-view one is safe.
        long start = Math.max(Math.max(prepareFrom, highestTrim), learner.firstUndecided());
        learner.noteDecidedUpTo(start - 1);
        long end = reported.isEmpty() ? start - 1 : Math.max(start - 1, reported.lastKey());
        reported.headMap(start, false).clear();
        List<Value> values = new ArrayList<>(reported.size());
        for (PaxosMessage.Accepted a : reported.values()) {
            if (!a.value().isNoop()) {
                values.add(a.value());
            }
        }
        reproposals = new MultiPaxosCore.Reproposals(view, values);
        reproposeNext = start;
        reproposeEnd = end + 1;
        nextInstance = end + 1;
        refill(learner, now, out);
    }

    /**
     * Re-proposes instances Phase 1 left open while the window has room: the highest-view reported
     * value, or a no-op for a gap; instances meanwhile decided are skipped.
     *
     * @return whether anything was sent
     */
    boolean refill(Learner learner, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        boolean sent = false;
        while (state == State.LEADING && reproposeNext < reproposeEnd && inFlight.size() < config.window()) {
            long i = reproposeNext++;
            PaxosMessage.Accepted a = reported.remove(i);
            if (!learner.isDecided(i)) {
                send(i, a == null ? Value.NOOP : a.value(), now, out);
                sent = true;
            }
        }
        return sent;
    }

    /** Phase 2a for a new value. @return false if not leading or the window is full */
    boolean propose(Value value, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        if (!hasRoom()) {
            return false;
        }
        send(nextInstance++, value, now, out);
        return true;
    }

    /**
     * Every instance below {@code instance} is decided (delivered, or covered by an installed
     * snapshot): release them from the window, and never assign an instance number below it.
     */
    void decidedBelow(long instance) {
        if (!inFlight.isEmpty() && inFlight.firstKey() < instance) {
            inFlight.headMap(instance, false).clear();
        }
        if (state == State.LEADING && nextInstance < instance) {
            nextInstance = instance;
        }
        if (reproposeNext < instance) {
            reported.headMap(instance, false).clear();
            reproposeNext = instance;
        }
    }

    /** {@code instance} was decided: it no longer occupies the window. */
    void onDecided(long instance) {
        inFlight.remove(instance);
    }

    /** Retransmits overdue Prepares and Proposes. */
    void tick(long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        long timeout = config.retransmitNanos();
        if (state == State.PREPARING && now - prepareSentAt >= timeout) {
            prepareSentAt = now;
            for (int r = 0; r < config.members(); r++) {
                if ((completeFrom & (1 << r)) == 0) {
                    retransmittedPrepares++;
                    out.send(r, new PaxosMessage.Prepare(view, askFrom[r]));
                }
            }
        } else if (state == State.LEADING) {
            for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
                InFlight f = e.getValue();
                if (now - f.sentAt >= timeout) {
                    f.sentAt = now;
                    retransmittedProposes++;
                    broadcast(new PaxosMessage.Propose(view, e.getKey(), f.value), out);
                }
            }
        }
    }

    private void send(long instance, Value value, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
        inFlight.put(instance, new InFlight(value, now));
        broadcast(new PaxosMessage.Propose(view, instance, value), out);
    }

    private void broadcast(PaxosMessage m, Effects<PaxosMessage, PaxosRecord, Value> out) {
        for (int r = 0; r < config.members(); r++) {
            out.send(r, m);
        }
    }

    long view() {
        return view;
    }

    /** Prepares sent again because an acceptor had not answered within the retransmit timeout. */
    long retransmittedPrepares() {
        return retransmittedPrepares;
    }

    /** Proposes sent again because the instance was still undecided after the retransmit timeout. */
    long retransmittedProposes() {
        return retransmittedProposes;
    }
}
