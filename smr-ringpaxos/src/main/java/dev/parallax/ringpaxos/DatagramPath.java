package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.ringpaxos.MRingMessage.Phase2AUnicast;
import dev.parallax.ringpaxos.MRingMessage.Phase2B;
import dev.parallax.ringpaxos.RingMessage.Alive;
import dev.parallax.ringpaxos.RingMessage.Proposal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * M-Ring's dissemination (seed 003 (Ring Paxos) §3.3.2, Alg. 2 Tasks 3–5; §3.3.4; §3.3.6): Phase 2A
 * and decisions by ip-multicast to every member, the Phase 2B votes along a ring of a quorum of
 * acceptors ({@link RingConfig#ringAcceptors()}: f+1 of 2f+1, a majority for any n) that ends at
 * the coordinator. The shared rules (Phase 1, the acceptor's vote, the learner,
 * catch-up, proposers, failures) are the {@link Engine}'s; this class holds rules M1–M8 of the
 * plan:
 * <ul>
 *   <li><b>M1 2A</b> (Alg. 2 l.17–18): {@link #open} packs the entries into {@link MPacket}s of at
 *       most {@code mring.packet.bytes − 16} (the datagram header), the pending decisions first
 *       (§3.3.2 last ¶, "the message sent by Task 5 of consensus instance i is ip-multicast
 *       together with the message sent by Task 3 of consensus instance i + 1"), and sends them as datagrams
 *       to group 0. An entry too big for any datagram goes as {@link Phase2AUnicast} to the other
 *       ring acceptors; learners fetch its body by catch-up (C6).</li>
 *   <li><b>M2 vote on 2A</b> (l.19–25): a ring acceptor of the packet's round votes on
 *       ip-delivery; spares and learners only remember the body. A packet not from
 *       {@code coordinator(round)}, or whose ring is not an M-Ring led by it, is ignored
 *       ({@code packets.misrouted}); so is one from this member itself.</li>
 *   <li><b>M3 2B chain</b> (l.26–33): {@code first()} sends {@code Phase2B} (one per input) to its
 *       successor; any other acceptor forwards the entries it voted for with the same id (l.30:
 *       "the acceptor can only vote if it has received the value"), and holds the others in a
 *       {@link Phase2BChain} (≤ window) until their 2A arrives. A duplicate 2A of an instance
 *       {@code first()} already voted makes it send the 2B again: this repairs a chain that lost a
 *       2B.</li>
 *   <li><b>M4 decision</b> (l.34): the coordinator, on entries from {@code predecessor(c)} that
 *       match its own vote, learns them and queues the id-only decision for the next
 *       {@code MPacket}; if no 2A follows in the same step, the decisions go alone.</li>
 *   <li><b>M5 retransmission</b> (§3.3.4 ¶2): a {@link Retransmitter} re-sends 2As open longer than
 *       {@code mring.retransmit}, at most {@code mring.retransmit.max.bytes} per tick.</li>
 *   <li><b>M6 flow control</b> (§3.3.6): {@link #window} is a {@link FlowControl} AIMD window fed
 *       by the members' {@code Alive.backlog}: each member's latest report is kept, a high one
 *       halves the window and holds it until that member reports a low one (or falls silent for
 *       two heartbeats).</li>
 *   <li><b>M7 spares</b> (§3.3.2, "the remaining acceptors are spares, used only when an acceptor
 *       in the ring fails"): {@link #layout} takes {@code quorum − 1} Phase 1 responders cyclically after the
 *       coordinator; every other member is a spare and a learner, in the group from the start.</li>
 *   <li><b>M8</b> (§3.3.4, "M-Ring Paxos assigns each learner to a preferential acceptor in the
 *       ring"): {@link #catchUpTarget} asks {@code ring.order[self mod ring.size()]} first (the next one
 *       if that is this member), then the coordinator, then the others in turn.</li>
 * </ul>
 *
 * <p>Events ({@link #reportEvents}): {@code mring.packets.sent}, {@code mring.decisions.alone},
 * {@code mring.2a.unicast} (values too big for a datagram), {@code mring.2a.retransmits},
 * {@code mring.2b.sent}, {@code mring.2b.held}, {@code mring.2b.beyond.window},
 * {@code packets.misrouted}, {@code fc.decreases}, {@code fc.increases}.
 *
 * <p>Not thread-safe: owned by the core, called on its single thread. Pure: no clock, I/O or
 * randomness; time comes in as arguments.
 */
final class DatagramPath implements Variant {
    /** Bytes a datagram header takes from {@code mring.packet.bytes} (R4's header, rounded up). */
    static final int DATAGRAM_HEADER_BYTES = 16;
    /** The datagram group of the M-Ring channel {@code mring-mcast}. */
    static final int GROUP = 0;

    private final Engine engine;
    private final RingConfig config;
    private final int self;
    private final FlowControl flow;
    private final Retransmitter retransmitter = new Retransmitter();
    private final Phase2BChain chain = new Phase2BChain();
    /** Tentative positions for speculative execution ({@code mring.speculation}). */
    private final RingTentatives tentatives;
    /** Decided at this coordinator, not yet sent (M4). */
    private final List<InstanceVid> pendingDecisions = new ArrayList<>();
    /** The round and ring decisions in {@link #pendingDecisions} were reached in. */
    private long decisionsRound = -1;
    private Ring decisionsRing;
    private Ring ring;
    private boolean leading;
    /** The latest ring seen in a 2A, by round: lets a 2B be checked against its round's ring. */
    private long seenRound = -1;
    private Ring seenRing;
    private long now;
    private long lastSeen = -1;
    private long lastSeenRound = -1;
    private long packetsSent;
    private long decisionsAlone;
    private long unicast2a;
    private long sent2b;
    private long held2b;
    private long misrouted;

    /**
     * @param engine the shared rules this variant calls
     * @param config the configuration ({@code mring.*} keys and {@code ring.window})
     * @param self   this member's id
     */
    DatagramPath(Engine engine, RingConfig config, int self) {
        this.engine = engine;
        this.config = config;
        this.self = self;
        this.tentatives = new RingTentatives(config);
        this.flow = new FlowControl(config.idSpace(), config.mringWindowMin(), config.window(),
                config.mringFcThreshold(), config.mringFcDecreaseNanos(), config.mringFcIncreaseNanos(),
                Math.min(2 * config.heartbeatNanos(), config.suspectNanos()), 0);
    }

    // ---------------------------------------------------------------- layout (C2, M7)

    /**
     * M7: {@code [q−1 responders cyclically after c, c]} (q = {@link RingConfig#ringAcceptors()}, a
     * majority), completed from live members if fewer than q−1 responded; every other member is a
     * spare. Null if fewer than q−1 others are eligible.
     */
    @Override
    public Ring layout(long round, List<Integer> responders, List<Integer> live) {
        return layout(round, responders, live, config.othersInQuorum(), List.of());
    }

    /** M7 over a decided set: learners stay off the ring and hear the decisions as datagram learners (G8). */
    @Override
    public Ring layout(long round, List<Integer> responders, List<Integer> live, int others, List<Integer> learners) {
        int n = config.idSpace();
        int c = config.coordinatorOf(round);
        int[] before = new int[others];
        int k = 0;
        for (List<Integer> pool : List.of(responders, live)) {
            for (int step = 1; step < n && k < others; step++) {
                int m = (c + step) % n;
                if (pool.contains(m) && !contains(before, k, m)) {
                    before[k++] = m;
                }
            }
        }
        return k < others ? null : Ring.mRing(c, before);
    }

    private static boolean contains(int[] a, int len, int m) {
        for (int i = 0; i < len; i++) {
            if (a[i] == m) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- coordinator: M1, M4, M5

    @Override
    public void open(Ring ring, long round, List<Phase2Entry> entries, Effects<RingWire, RingRecord, RingValue> out) {
        tentatives.fixed(round, engine.rnd(), entries, engine.firstUndecided(), out);
        List<Phase2Entry> datagram = new ArrayList<>(entries.size());
        for (Phase2Entry e : entries) {
            boolean fits = MPacketCodec.emptySize(ring) + MPacketCodec.proposalSize(e) <= budget();
            retransmitter.opened(e, round, ring, !fits, now);
            if (fits) {
                datagram.add(e);
            } else {
                sendUnicast(ring, round, List.of(e), out);
            }
        }
        if (ring.acceptors() == 1) {
            // One acceptor (n = 1): the coordinator is the whole ring; its own vote decides.
            for (Phase2Entry e : entries) {
                decide(round, ring, new InstanceVid(e.instance(), e.vid()), out);
            }
        }
        sendPackets(round, ring, datagram, out);
    }

    /** The coordinator decides {@code d}, reached in {@code round} on {@code ring} (M4). */
    private void decide(long round, Ring ring, InstanceVid d, Effects<RingWire, RingRecord, RingValue> out) {
        retransmitter.closed(d.instance());
        if (engine.isDecided(d.instance())) {
            // Learned already (a decision datagram or a catch-up reply came first): the same value is
            // nothing new; another one means a quorum accepted a value other than the decision kept,
            // which Paxos never allows, so the learner records the conflict and the core raises the
            // safety alarm instead of keeping the first decision silently.
            engine.learn(d.instance(), d.vid(), null, out);
            return;
        }
        if (decisionsRound != round || !ring.equals(decisionsRing)) {
            flushDecisions(out);
            decisionsRound = round;
            decisionsRing = ring;
        }
        // Queued before learning: learning frees the window and the engine may open (and so
        // send) the next instances at once, with this decision in front (M1).
        pendingDecisions.add(d);
        engine.learn(d.instance(), d.vid(), engine.valueOf(d.vid()), out);
    }

    /** Sends {@code entries} of {@code round}, after the pending decisions, in as few packets as fit. */
    private void sendPackets(long round, Ring ring, List<Phase2Entry> entries, Effects<RingWire, RingRecord, RingValue> out) {
        if (!pendingDecisions.isEmpty() && (decisionsRound != round || !ring.equals(decisionsRing))) {
            flushDecisions(out);
        }
        List<InstanceVid> decisions = new ArrayList<>(pendingDecisions);
        pendingDecisions.clear();
        int empty = MPacketCodec.emptySize(ring);
        List<InstanceVid> ds = new ArrayList<>();
        List<Phase2Entry> ps = new ArrayList<>();
        int size = empty;
        int di = 0;
        int pi = 0;
        while (di < decisions.size() || pi < entries.size()) {
            boolean decision = di < decisions.size();
            int add = decision ? MPacketCodec.DECISION_BYTES : MPacketCodec.proposalSize(entries.get(pi));
            if (size + add > budget() && !(ds.isEmpty() && ps.isEmpty())) {
                send(new MPacket(round, ring, ds, ps), out);
                ds = new ArrayList<>();
                ps = new ArrayList<>();
                size = empty;
                continue;
            }
            size += add;
            if (decision) {
                ds.add(decisions.get(di++));
            } else {
                ps.add(entries.get(pi++));
            }
        }
        if (!ds.isEmpty() || !ps.isEmpty()) {
            send(new MPacket(round, ring, ds, ps), out);
        }
    }

    /** Sends the pending decisions alone (no 2A followed in this step). */
    private void flushDecisions(Effects<RingWire, RingRecord, RingValue> out) {
        if (!pendingDecisions.isEmpty()) {
            sendPackets(decisionsRound, decisionsRing, List.of(), out);
        }
    }

    private void send(MPacket p, Effects<RingWire, RingRecord, RingValue> out) {
        if (config.idSpace() == 1) {
            return; // nobody to hear it
        }
        packetsSent++;
        if (p.proposals().isEmpty()) {
            decisionsAlone++;
        }
        out.sendDatagram(GROUP, p);
    }

    private void sendUnicast(Ring ring, long round, List<Phase2Entry> entries, Effects<RingWire, RingRecord, RingValue> out) {
        unicast2a += entries.size();
        Phase2AUnicast m = new Phase2AUnicast(round, ring, entries);
        for (int member : ring.order()) {
            if (member != self && ring.isAcceptor(member)) {
                out.send(member, m);
            }
        }
    }

    private int budget() {
        return config.mringPacketBytes() - DATAGRAM_HEADER_BYTES;
    }

    // ---------------------------------------------------------------- messages: M2, M3, M4

    @Override
    public boolean onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        if (m instanceof MPacket p) {
            if (from == self) {
                return true; // R1: never delivered to its sender; a loop-back copy is ignored
            }
            if (!fromCoordinator(from, p.round(), p.ring())) {
                return true;
            }
            onPhase2A(p.round(), p.ring(), p.proposals(), out);
            for (InstanceVid d : p.decisions()) {
                if (!engine.isDecided(d.instance())) {
                    engine.learn(d.instance(), d.vid(), engine.valueOf(d.vid()), out);
                }
            }
            return true;
        }
        if (m instanceof Phase2AUnicast u) {
            if (from != self && fromCoordinator(from, u.round(), u.ring())) {
                onPhase2A(u.round(), u.ring(), u.values(), out);
            }
            return true;
        }
        if (m instanceof Phase2B b) {
            onPhase2B(from, b, out);
            return true;
        }
        return false;
    }

    private boolean fromCoordinator(int from, long round, Ring ring) {
        if (ring.kind() != Ring.Kind.M_RING || ring.coordinator() != from
                || config.coordinatorOf(round) != from) {
            misrouted++;
            return false;
        }
        return true;
    }

    /** M2: vote (ring acceptor) or remember (spare, learner); M3: {@code first()} starts the chain. */
    private void onPhase2A(long round, Ring ring, List<Phase2Entry> entries, Effects<RingWire, RingRecord, RingValue> out) {
        if (entries.isEmpty()) {
            return;
        }
        if (round >= seenRound) {
            seenRound = round;
            seenRing = ring;
        }
        tentatives.fixed(round, engine.rnd(), entries, engine.firstUndecided(), out);
        boolean acceptor = ring.isAcceptor(self) && ring.coordinator() != self;
        List<InstanceVid> forward = new ArrayList<>();
        for (Phase2Entry e : entries) {
            if (!acceptor) {
                engine.rememberValue(e.vid(), e.value());
                continue;
            }
            engine.vote(e.instance(), round, ring, e.vid(), e.value(), out);
            if (!e.vid().equals(engine.votedVid(e.instance(), round))) {
                engine.rememberValue(e.vid(), e.value());
                continue;
            }
            InstanceVid v = new InstanceVid(e.instance(), e.vid());
            if (ring.first() == self) {
                forward.add(v);
            } else if (chain.release(e.instance(), round, e.vid())) {
                forward.add(v);
            }
        }
        sendPhase2B(round, ring, forward, out);
    }

    /** M3 (acceptor) and M4 (coordinator). */
    private void onPhase2B(int from, Phase2B b, Effects<RingWire, RingRecord, RingValue> out) {
        long round = b.round();
        Ring ring = ringOf(round);
        if (ring == null || !ring.isAcceptor(self) || ring.first() == self || ring.predecessor(self) != from) {
            misrouted++;
            return;
        }
        if (ring.coordinator() == self) {
            for (InstanceVid v : b.votes()) {
                if (v.vid().equals(engine.votedVid(v.instance(), round))) {
                    decide(round, ring, v, out);
                }
            }
            engine.openMore(out);
            flushDecisions(out);
            return;
        }
        List<InstanceVid> forward = new ArrayList<>();
        for (InstanceVid v : b.votes()) {
            if (v.vid().equals(engine.votedVid(v.instance(), round))) {
                forward.add(v);
            } else if (!engine.isDecided(v.instance())) {
                if (chain.hold(v.instance(), round, v.vid(), flow.window(now))) {
                    held2b++;
                }
            }
        }
        sendPhase2B(round, ring, forward, out);
    }

    /** The ring of {@code round}: the current one, or the latest seen in a 2A of that round; null if unknown. */
    private Ring ringOf(long round) {
        if (round == seenRound) {
            return seenRing;
        }
        Ring current = ring != null ? ring : engine.ring();
        if (current != null && round == engine.rnd() && current.coordinator() == config.coordinatorOf(round)) {
            return current;
        }
        return null;
    }

    private void sendPhase2B(long round, Ring ring, List<InstanceVid> votes, Effects<RingWire, RingRecord, RingValue> out) {
        if (votes.isEmpty()) {
            return;
        }
        if (round != lastSeenRound) {
            lastSeenRound = round;
            lastSeen = -1;
        }
        for (InstanceVid v : votes) {
            lastSeen = Math.max(lastSeen, v.instance());
            engine.sawInstance(v.instance());
        }
        sent2b++;
        out.send(ring.successor(self), new Phase2B(round, votes));
    }

    // ---------------------------------------------------------------- proposals, time, round

    /** Alg. 2 Task 1: a proposer sends its value to the coordinator (over TCP). */
    @Override
    public void forwardProposal(ProposalEntry p, Effects<RingWire, RingRecord, RingValue> out) {
        long round = Math.max(0, engine.rnd());
        int c = config.coordinatorOf(round);
        if (c != self) {
            out.send(c, new Proposal(round, List.of(p)));
        }
    }

    /** M5: re-sends the 2As open longer than {@code mring.retransmit}; drops held 2Bs of decided instances. */
    @Override
    public void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        this.now = now;
        chain.forget(engine.firstUndecided(), engine.rnd());
        if (!leading || ring == null) {
            return;
        }
        List<Retransmitter.Open> due = retransmitter.due(now, config.mringRetransmitNanos(),
                config.mringRetransmitMaxBytes(), engine::isDecided);
        if (due.isEmpty()) {
            flushDecisions(out);
            return;
        }
        long round = engine.rnd();
        List<Phase2Entry> datagram = new ArrayList<>();
        for (Retransmitter.Open o : due) {
            if (o.round() != round || !o.ring().equals(ring)) {
                continue;
            }
            if (o.unicast()) {
                sendUnicast(ring, round, List.of(o.entry()), out);
            } else {
                datagram.add(o.entry());
            }
        }
        sendPackets(round, ring, datagram, out);
    }

    @Override
    public void roundChanged(Ring ringOrNull, boolean leading, long now) {
        this.now = now;
        this.ring = ringOrNull;
        this.leading = leading;
        retransmitter.clear();
        chain.forget(engine.firstUndecided(), engine.rnd());
        if (!leading) {
            pendingDecisions.clear();
            decisionsRound = -1;
            decisionsRing = null;
        }
    }

    /** M6: the AIMD window. */
    @Override
    public int window(long now) {
        this.now = now;
        return flow.window(now);
    }

    /**
     * M8: the preferential acceptor {@code ring.order[self mod ring.size()]} (the next one if that is
     * this member), then the coordinator, then every other member in turn.
     */
    @Override
    public int catchUpTarget(int attempt) {
        int n = config.idSpace();
        Ring r = ring != null ? ring : seenRing;
        if (r != null && attempt == 0) {
            int[] order = r.order();
            int p = order[self % order.length];
            if (p == self) {
                p = order[(self + 1) % order.length];
            }
            if (p != self) {
                return p;
            }
        }
        if (r != null && attempt == 1 && r.coordinator() != self) {
            return r.coordinator();
        }
        int others = Math.max(1, n - 1);
        int k = Math.floorMod(attempt, others);
        return (self + 1 + k) % n;
    }

    /** M8: the highest instance this member voted and sent a 2B for in the current round, -1 if none. */
    @Override
    public long lastSeen() {
        return lastSeenRound == engine.rnd() ? lastSeen : -1;
    }

    /**
     * M6: a member's backlog report; it replaces the member's previous one and holds the window
     * for two heartbeats (at most {@code ring.suspect}) if it is at or above the threshold.
     */
    @Override
    public void alive(int member, Alive a, long now) {
        this.now = now;
        flow.report(member, a.backlog(), now);
    }

    @Override
    public void reportEvents(ObjLongConsumer<String> sink) {
        sink.accept("mring.packets.sent", packetsSent);
        sink.accept("mring.decisions.alone", decisionsAlone);
        sink.accept("mring.2a.unicast", unicast2a);
        sink.accept("mring.2a.retransmits", retransmitter.retransmitted());
        sink.accept("mring.2b.sent", sent2b);
        sink.accept("mring.2b.held", held2b);
        sink.accept("mring.2b.beyond.window", chain.refused());
        sink.accept("packets.misrouted", misrouted);
        sink.accept("fc.decreases", flow.decreases());
        sink.accept("fc.increases", flow.increases());
        tentatives.reportEvents(sink);
    }

    /** T2 ({@link RingTentatives}): called at the end of every step with the member's round. */
    void roundIs(long round, Effects<RingWire, RingRecord, RingValue> out) {
        tentatives.roundIs(round, engine.firstUndecided(), out);
    }
}
