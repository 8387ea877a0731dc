package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * U-Ring's dissemination (seed 003 (Ring Paxos) §3.3.3, Alg. 3 Tasks 3–5): everything
 * travels along the ring, member to successor, in {@link UPacket}s that combine Phase 2A/2B,
 * decisions and piggy-backed proposals (§3.5.2).
 * <ul>
 * <li><b>U1</b> (Alg. 3 l.2–8): a member other than the coordinator appends its own and received
 *     proposals to its next packet to its successor and remembers "forwarded to the successor in
 *     round r"; off-ring or ringless, it sends a {@code Proposal} to the coordinator.</li>
 * <li><b>U2</b> (l.14–21): the coordinator's {@link #open} sends the 2A entries to its successor.</li>
 * <li><b>U3</b> (Task 4, l.22–32): an entry from the predecessor in the packet's ring, at position
 *     k ≤ a = quorum − 1 (the ring's a+1 acceptors, a majority): vote (C4); k &lt; a forwards it,
 *     k = a (the last acceptor) decides and starts the decision. Positions
 *     below k voted, since each forwards only after voting (Prop. 1); a packet not from the
 *     predecessor in its own ring is ignored ({@code packets.misrouted}).</li>
 * <li><b>U4</b> Send_Decision (l.33–41; l.37–41 are its body): forward each decision unless the
 *     successor is the round's last acceptor (l.35); carry the value unless the successor holds it
 *     — it is the value's origin, an acceptor of the round, or this member forwarded that proposal
 *     to it in the round (l.38's "until the predecessor of P(v)", decided locally; right for
 *     re-proposed values too). In a calm run each value crosses exactly n−1 links.</li>
 * <li><b>U5</b>: one packet per input per successor, at most {@code ring.packet.bytes} (a bigger
 *     single entry goes alone); TCP FIFO is not relied on.</li>
 * <li><b>U6</b>: open entries are re-sent after {@code ring.retransmit}; duplicates re-vote
 *     idempotently and re-decide.</li>
 * </ul>
 *
 * <p>Not thread-safe: the core's driver thread only; never blocks.
 */
public final class UnicastPath implements Variant {
    /** Bytes of a packet's fixed part (round, ring, three list counts), an upper bound. */
    private static final int PACKET_OVERHEAD = 64;

    private final Engine engine;
    private final RingConfig config;
    private final int self;
    private Ring ring;
    private long round = -1;
    private boolean leading;
    private long now;
    private long lastSeen = -1;
    /** The coordinator's open entries (U6), and when they were last sent. */
    private final LinkedHashMap<Long, Phase2Entry> open = new LinkedHashMap<>();
    private final Map<Long, Long> sentAt = new HashMap<>();
    /** Proposals this member forwarded to its successor in the current round, by id (U4). */
    private final Map<ValueId, Integer> forwarded = new HashMap<>();
    private long misrouted;
    private long retransmits;
    private long proposalsForwarded;
    private long packetsSent;

    public UnicastPath(Engine engine, RingConfig config, int self) {
        this.engine = engine;
        this.config = config;
        this.self = self;
    }

    @Override
    public Ring layout(long round, List<Integer> responders, List<Integer> live) {
        return layout(round, responders, live, config.othersInQuorum(), List.of());
    }

    @Override
    public Ring layout(long round, List<Integer> responders, List<Integer> live, int others, List<Integer> joining) {
        int n = config.idSpace();   // others: acceptors besides the coordinator, a majority in all
        List<Integer> acceptors = new ArrayList<>();
        List<Integer> learners = new ArrayList<>();
        for (int k = 1; k < n; k++) {
            int m = (self + k) % n;
            if (responders.contains(m) && acceptors.size() < others) {
                acceptors.add(m);
            }
        }
        for (int k = 1; k < n; k++) {
            int m = (self + k) % n;
            if (live.contains(m) && acceptors.size() < others) {
                acceptors.add(m);
            }
        }
        if (acceptors.size() < others) {
            return null;
        }
        for (int k = 1; k < n; k++) {
            int m = (self + k) % n;
            if ((responders.contains(m) || live.contains(m)) && !acceptors.contains(m)) {
                learners.add(m);
            }
        }
        for (int k = 1; k < n; k++) {
            int m = (self + k) % n;
            if (joining.contains(m) && !learners.contains(m) && !acceptors.contains(m)) {
                learners.add(m);    // G8: non-voting members ride after every voter
            }
        }
        int[] order = new int[1 + acceptors.size() + learners.size()];
        order[0] = self;
        int i = 1;
        for (int m : acceptors) {
            order[i++] = m;
        }
        for (int m : learners) {
            order[i++] = m;
        }
        return Ring.uRing(self, others, order);
    }

    @Override
    public void open(Ring ring, long round, List<Phase2Entry> entries, Effects<RingWire, RingRecord, RingValue> out) {
        for (Phase2Entry e : entries) {
            open.put(e.instance(), e);
            sentAt.put(e.instance(), now);
        }
        if (ring.acceptors() == 1) {
            // One acceptor (n = 1): the coordinator is the last acceptor; it decides at once (Alg. 3 l.29).
            List<DecisionEntry> decisions = new ArrayList<>();
            for (Phase2Entry e : entries) {
                engine.learn(e.instance(), e.vid(), e.value(), out);
                DecisionEntry d = decisionFor(ring, e.instance(), e.vid(), e.value());
                if (d != null) {
                    decisions.add(d);
                }
            }
            send(ring, round, List.of(), decisions, List.of(), out);
            return;
        }
        send(ring, round, entries, List.of(), List.of(), out);
    }

    @Override
    public void forwardProposal(ProposalEntry proposal, Effects<RingWire, RingRecord, RingValue> out) {
        long r = engine.rnd();
        Ring current = engine.ring();
        if (current != null && r == round && current.contains(self) && current.coordinator() != self
                && current.size() > 1) {
            forwarded.put(proposal.vid(), current.successor(self));
            proposalsForwarded++;
            send(current, r, List.of(), List.of(), List.of(proposal), out);
            return;
        }
        int c = r < 0 ? 0 : config.coordinatorOf(r);
        if (c != self) {
            proposalsForwarded++;
            out.send(c, new RingMessage.Proposal(Math.max(0, r), List.of(proposal)));
        }
    }

    @Override
    public boolean onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out) {
        if (!(m instanceof UPacket p)) {
            return false;
        }
        this.now = now;
        Ring pr = p.ring();
        long r = p.round();
        if (pr.kind() != Ring.Kind.U_RING || !pr.contains(self) || pr.predecessor(self) != from
                || pr.coordinator() != config.coordinatorOf(r) || !engine.plausibleAcceptors(pr.acceptors())) {
            misrouted++;
            return true;
        }
        int k = pr.position(self);
        int last = pr.acceptors() - 1;     // the last acceptor's position
        List<Phase2Entry> outPhase2 = new ArrayList<>();
        List<DecisionEntry> outDecisions = new ArrayList<>();
        List<ProposalEntry> outProposals = new ArrayList<>();
        for (Phase2Entry e : p.phase2()) {
            if (k == 0 || k > last) {
                misrouted++;
                continue;
            }
            if (!engine.vote(e.instance(), r, pr, e.vid(), e.value(), out)) {
                continue;
            }
            see(e.instance(), r);
            if (k < last) {
                outPhase2.add(e);
            } else {
                engine.learn(e.instance(), e.vid(), e.value(), out);
                DecisionEntry d = decisionFor(pr, e.instance(), e.vid(), e.value());
                if (d != null) {
                    outDecisions.add(d);
                }
            }
        }
        // Decisions are facts and proposals travel to whoever coordinates: both are passed on in
        // the packet's own ring even when this member moved to a later round (a learner position
        // need not vote); only votes need the round (C4).
        boolean current = true;
        for (DecisionEntry d : p.decisions()) {
            ByteBuffer body = d.value() != null ? d.value() : engine.valueOf(d.vid());
            engine.learn(d.instance(), d.vid(), body, out);
            see(d.instance(), r);
            if (current) {
                DecisionEntry next = decisionFor(pr, d.instance(), d.vid(), body);
                if (next != null) {
                    outDecisions.add(next);
                }
            }
        }
        for (ProposalEntry e : p.proposals()) {
            if (pr.coordinator() == self) {
                engine.proposalArrived(e, out);
            } else {
                engine.rememberValue(e.vid(), e.value());
                if (current) {
                    forwarded.put(e.vid(), pr.successor(self));
                    outProposals.add(e);
                }
            }
        }
        if (current) {
            send(pr, r, outPhase2, outDecisions, outProposals, out);
        }
        return true;
    }

    private void see(long instance, long r) {
        if (r == engine.rnd()) {
            lastSeen = Math.max(lastSeen, instance);
            engine.sawInstance(instance);
        }
    }

    /**
     * U4: the decision entry to pass to the successor in {@code ring}, or null if the successor
     * is the last acceptor (it decided; l.35). The value rides unless the successor holds it.
     */
    private DecisionEntry decisionFor(Ring ring, long instance, ValueId vid, ByteBuffer body) {
        int succ = ring.successor(self);
        if (succ == self || succ == ring.lastAcceptor()) {
            return null;
        }
        Integer forwardedTo = forwarded.remove(vid);
        boolean holds = vid.isBodiless() || succ == vid.origin() || ring.isAcceptor(succ)
                || Integer.valueOf(succ).equals(forwardedTo);
        return new DecisionEntry(instance, vid, holds ? null : body);
    }

    /** U5: packets to the successor of at most {@code ring.packet.bytes} each. */
    private void send(Ring ring, long round, List<Phase2Entry> phase2, List<DecisionEntry> decisions,
                      List<ProposalEntry> proposals, Effects<RingWire, RingRecord, RingValue> out) {
        if (phase2.isEmpty() && decisions.isEmpty() && proposals.isEmpty()) {
            return;
        }
        int succ = ring.successor(self);
        if (succ == self) {
            return;
        }
        int limit = config.packetBytes();
        List<Phase2Entry> p2 = new ArrayList<>();
        List<DecisionEntry> ds = new ArrayList<>();
        List<ProposalEntry> ps = new ArrayList<>();
        int size = PACKET_OVERHEAD + ring.wireBytes();
        int base = size;
        for (Phase2Entry e : phase2) {
            int s = 8 + ValueId.BYTES + 4 + e.value().remaining();
            if (size > base && size + s > limit) {
                flush(succ, ring, round, p2, ds, ps, out);
                size = base;
            }
            p2.add(e);
            size += s;
        }
        for (DecisionEntry d : decisions) {
            int s = 8 + ValueId.BYTES + 1 + (d.value() == null ? 0 : 4 + d.value().remaining());
            if (size > base && size + s > limit) {
                flush(succ, ring, round, p2, ds, ps, out);
                size = base;
            }
            ds.add(d);
            size += s;
        }
        for (ProposalEntry e : proposals) {
            int s = ValueId.BYTES + 4 + e.value().remaining();
            if (size > base && size + s > limit) {
                flush(succ, ring, round, p2, ds, ps, out);
                size = base;
            }
            ps.add(e);
            size += s;
        }
        flush(succ, ring, round, p2, ds, ps, out);
    }

    private void flush(int succ, Ring ring, long round, List<Phase2Entry> p2, List<DecisionEntry> ds,
                       List<ProposalEntry> ps, Effects<RingWire, RingRecord, RingValue> out) {
        if (p2.isEmpty() && ds.isEmpty() && ps.isEmpty()) {
            return;
        }
        packetsSent++;
        out.send(succ, new UPacket(round, ring, p2, ds, ps));
        p2.clear();
        ds.clear();
        ps.clear();
    }

    @Override
    public void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        if (!leading || ring == null) {
            return;
        }
        List<Phase2Entry> due = new ArrayList<>();
        var it = open.entrySet().iterator();
        while (it.hasNext()) {
            var e = it.next();
            long i = e.getKey();
            if (engine.isDecided(i)) {
                it.remove();
                sentAt.remove(i);
            } else if (now - sentAt.get(i) >= config.retransmitNanos()) {
                sentAt.put(i, now);
                due.add(e.getValue());
                retransmits++;
            }
        }
        if (!due.isEmpty()) {
            send(ring, round, due, List.of(), List.of(), out);
        }
    }

    @Override
    public void roundChanged(Ring ringOrNull, boolean leading, long now) {
        this.now = now;
        if (engine.rnd() != round) {
            forwarded.clear();
            lastSeen = -1;
        }
        this.ring = ringOrNull;
        this.round = engine.rnd();
        this.leading = leading;
        open.clear();
        sentAt.clear();
    }

    @Override
    public int window(long now) {
        return config.window();
    }

    @Override
    public int catchUpTarget(int attempt) {
        int n = config.idSpace();
        int start = ring != null && ring.contains(self) && ring.size() > 1 ? ring.predecessor(self)
                : (round < 0 ? 0 : config.coordinatorOf(round));
        if (start == self) {
            start = (self + n - 1) % n;
        }
        int target = start;
        for (int k = 0; k < attempt % Math.max(1, n - 1); k++) {
            target = (target + n - 1) % n;
            if (target == self) {
                target = (target + n - 1) % n;
            }
        }
        return target;
    }

    @Override
    public long lastSeen() {
        return lastSeen;
    }

    @Override
    public void alive(int member, RingMessage.Alive a, long now) {
    }

    @Override
    public void reportEvents(ObjLongConsumer<String> sink) {
        sink.accept("packets.misrouted", misrouted);
        sink.accept("retransmits", retransmits);
        sink.accept("proposals.forwarded", proposalsForwarded);
        sink.accept("packets.sent", packetsSent);
    }
}
