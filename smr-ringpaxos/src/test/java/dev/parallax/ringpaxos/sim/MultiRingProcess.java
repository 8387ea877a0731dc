package dev.parallax.ringpaxos.sim;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.SimNode;
import dev.parallax.core.testkit.multicast.LogicalMerge;
import dev.parallax.core.testkit.multicast.MulticastDeliveryChecker;
import dev.parallax.core.testkit.smr.PendingCompaction;
import dev.parallax.ringpaxos.RingWire;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingPaxosCore;
import dev.parallax.ringpaxos.RingRecord;
import dev.parallax.ringpaxos.RingRecordCodec;
import dev.parallax.ringpaxos.RingValue;
import dev.parallax.ringpaxos.ValueId;
import dev.parallax.ringpaxos.multiring.RingMulticast;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One process of a simulated Multi-Ring Paxos deployment (seed 003 (Ring Paxos / Multi-Ring /
 * P-SMR) ch. 5, Alg. 1): a member of every ring — groups {@code 0..k-1} and the global ring
 * {@code k} — or of those {@link MultiRingSimulation.Scenario#ringProcesses} gives it (§5.2:
 * learners join only the rings they need), with one {@link RingPaxosCore} per ring it runs, each over its own durable log (one per
 * ring, as the runtime gives each ring its own; they lose unsynced records when the process
 * crashes, like the node's own log), its own datagram group (M-Ring: group = ring, standing for
 * {@code mring.port + i}) and the members numbered rotated as {@link RingMulticast#ringMember}
 * does; its learners (several subscriptions, each merging the rings of its groups and the global
 * ring with a {@link LogicalMerge}), fed every ring's decided values in instance order; and an
 * origin that multicasts messages at the scenario's rates to one group (its ring) or several (the
 * global ring), proposing at its own core of that ring (every member proposes).
 *
 * <p>A ring may also be crashed alone ({@link #crashRing}), its core dropped and later recovered
 * from its log, while the process' other rings and learners stay up: "the coordinator of ring B
 * crashed" without touching ring A. Learners keep what they were fed; the recovered core delivers
 * from instance 0 again and the instances they already have are checked and passed over.
 *
 * <p>Everything but the logs is volatile: a restarted process starts new learner incarnations,
 * which merge from the beginning of every ring.
 *
 * <p>With membership changes ({@code ring.member.ids} set, {@link MultiRingMembershipNemesis}) a
 * process may also join later, with a new id p at or above n: it runs every ring as member p
 * ({@link #memberId}), from an empty log, and its learners merge every ring from instance 0 (or
 * from a snapshot, below). A process removed from the rings keeps running and stops multicasting
 * ({@link MultiRingSimulation.World#depart}).
 *
 * <p>With snapshots ({@link MultiRingSimulation.Scenario#snapshotEvery} k &gt; 0) the process has
 * one learner, a {@link SnapshotLearner} (every process the same subscription: replicas of one
 * state machine), and as a replica does: every k merged deliveries it stores a snapshot (the
 * learner's state, the merge position, each ring's resume instance, numbering and delivered
 * member history: {@link MultiRingSnapshots.Snap}; durable) and compacts each ring's core and log
 * at the instance the snapshot resumes that ring at ({@code compact} keeps the version floor); when
 * a ring's catch-up finds the instances it needs trimmed (the core's snapshot request) it fetches
 * the most advanced live peer's latest snapshot, if ahead of its learner, and installs it: each
 * ring it covers beyond what was decided here skips there with the ring's member history
 * ({@code skipTo(instance, state)}), and the learner moves to it. A restarted process resumes from
 * its own latest snapshot the same way. Rings are not crashed alone in these runs.
 *
 * <p>Owned by the simulation thread.
 */
final class MultiRingProcess implements SimNode<Object> {
    private static final RingRecordCodec CODEC = new RingRecordCodec();

    /** A ring's message on the simulated network: the ring it belongs to (a port per ring in production). */
    record RingMessage(int ring, RingWire message) {
        @Override
        public String toString() {
            return "r" + ring + " " + message;
        }
    }

    /** One learner: its merge, what it maps each ring to, and its record in the checker. */
    private static final class Learner {
        final LogicalMerge merge;
        final int[] streamOfRing;
        final MulticastDeliveryChecker.Learner record;
        final String name;

        Learner(LogicalMerge merge, int[] streamOfRing, MulticastDeliveryChecker.Learner record, String name) {
            this.merge = merge;
            this.streamOfRing = streamOfRing;
            this.record = record;
            this.name = name;
        }
    }

    private final NodeContext<Object> ctx;
    private final MultiRingSimulation.World world;
    private final MultiRingSimulation.Scenario scenario;
    private final int self;
    private final int rings;
    private final RingPaxosCore[] cores;
    private final List<EffectBuffer<RingWire, RingRecord, RingValue>> effects = new ArrayList<>();
    private final List<EffectApplier<RingWire, RingRecord, RingValue>> appliers = new ArrayList<>();
    private final InMemoryDurableLog[] logs;
    /** Per ring, the instances fed to the learners (this process incarnation). */
    private final long[] fed;
    /** Per ring, the instance the core was last told was delivered. */
    private final long[] told;
    private final List<Learner> learners = new ArrayList<>();
    /** The learner of a run with snapshots (then {@link #learners} is empty), else null. */
    private SnapshotLearner snapshots;
    private PendingCompaction[] compactions;
    /** Merged deliveries since the last snapshot. */
    private int sinceSnapshot;
    /** A ring asked for a snapshot (installed after the apply). */
    private boolean installWanted;
    private boolean housekeeping;
    private final SplittableRandom random;
    private final boolean[] applying;
    /** Per ring, each process' member id in it (-1: not a member), and each member's process. */
    private final int[][] memberOf;
    private final int[][] processOfMember;

    MultiRingProcess(NodeContext<Object> ctx, MultiRingSimulation.World world) {
        this.ctx = ctx;
        this.world = world;
        this.scenario = world.scenario;
        this.self = ctx.id();
        this.rings = scenario.groups() + 1;
        this.cores = new RingPaxosCore[rings];
        this.logs = new InMemoryDurableLog[rings];
        this.fed = new long[rings];
        this.told = new long[rings];
        this.applying = new boolean[rings];
        this.random = world.randomFor(self);
        this.memberOf = new int[rings][scenario.processes()];
        this.processOfMember = new int[rings][];
        for (int r = 0; r < rings; r++) {
            int[] procs = scenario.processesOf(r);
            java.util.Arrays.fill(memberOf[r], -1);
            processOfMember[r] = new int[procs.length];
            for (int p : procs) {
                int m = RingMulticast.ringMember(p, r, procs);
                memberOf[r][p] = m;
                processOfMember[r][m] = p;
            }
        }
        for (int r = 0; r < rings; r++) {
            effects.add(new EffectBuffer<>());
            appliers.add(null);
        }
    }

    @Override
    public void onStart() {
        for (int r = 0; r < rings; r++) {
            if (memberId(r, self) >= 0) {
                startRing(r);
            }
        }
        long[] subscriptions = world.subscriptions(self);
        if (scenario.snapshotEvery() > 0) {
            startWithSnapshots(subscriptions);
            return;
        }
        for (int j = 0; j < subscriptions.length; j++) {
            long bits = subscriptions[j];
            int[] streamOfRing = new int[rings];
            int streams = 0;
            for (int r = 0; r < rings; r++) {
                boolean merged = r == rings - 1 || (bits & (1L << r)) != 0;
                streamOfRing[r] = merged ? streams++ : -1;
            }
            String name = "learner " + self + "." + j + "#" + ctx.incarnation();
            LogicalMerge.Flaw flaw = scenario.flawedProcess() == self ? scenario.flaw() : LogicalMerge.Flaw.NONE;
            learners.add(new Learner(new LogicalMerge(streams, scenario.roundLength(), bits, flaw), streamOfRing,
                    world.checker.learner(name, bits), self + "." + j));
        }
        world.started(self, ctx.incarnation(), this);
    }

    /**
     * The learner of a run with snapshots, resumed from this process' own latest snapshot if it has
     * one (a restart), its rings skipped to where that snapshot resumes them.
     */
    private void startWithSnapshots(long[] subscriptions) {
        if (subscriptions.length != 1) {
            throw new IllegalArgumentException("a run with snapshots has one learner per process, not "
                    + subscriptions.length);
        }
        String name = "learner " + self + ".0#" + ctx.incarnation();
        LogicalMerge.Flaw flaw = scenario.flawedProcess() == self ? scenario.flaw() : LogicalMerge.Flaw.NONE;
        snapshots = new SnapshotLearner(world, scenario.configs(), scenario.roundLength(), subscriptions[0], flaw,
                world.checker.learner(name, subscriptions[0]));
        compactions = new PendingCompaction[rings];
        for (int r = 0; r < rings; r++) {
            compactions[r] = new PendingCompaction();
        }
        world.started(self, ctx.incarnation(), this);
        MultiRingSnapshots.Snap own = world.snapshots.own(self);
        if (own != null) {
            install(own);
            world.snapshots.restarts++;
        }
    }

    /**
     * Installs snapshot {@code s}: the learner moves to it, each ring it resumes beyond what was
     * decided here skips there, handed the ring's member history from the snapshot's delivery state
     * (none under the mutation {@link MultiRingSnapshots#dropStreamStates}).
     */
    private void install(MultiRingSnapshots.Snap s) {
        boolean drop = world.snapshots.dropStreamStates;
        long[] skip = snapshots.install(s, drop, ctx.now());
        for (int r = 0; r < rings; r++) {
            if (skip[r] < 0) {
                continue;
            }
            if (cores[r] != null) {
                if (drop) {
                    cores[r].skipTo(skip[r]);
                } else {
                    cores[r].skipTo(skip[r], ByteBuffer.wrap(s.states().get(r)).asReadOnlyBuffer());
                }
            }
            fed[r] = skip[r];
        }
    }

    /** A ring asked for a snapshot: the most advanced live peer's latest, if ahead of the learner, is installed. */
    private void installFromPeer() {
        MultiRingSnapshots.Snap s = world.snapshots.mostAdvancedPeer(self, world.processIds());
        if (s == null || s.delivered() <= snapshots.record().order().size()) {
            world.snapshots.noneAhead++;
            return;
        }
        install(s);
        world.snapshots.installed(self, s, self >= scenario.processes(), ctx.now());
    }

    /** Every k merged deliveries: a snapshot stored, each ring's compaction at the instance it resumes the ring at asked for. */
    private void maybeSnapshot(int deliveries) {
        sinceSnapshot += deliveries;
        if (sinceSnapshot < scenario.snapshotEvery()) {
            return;
        }
        sinceSnapshot = 0;
        MultiRingSnapshots.Snap s = snapshots.take(self, ctx.now());
        world.snapshots.put(self, s);
        for (int r = 0; r < rings; r++) {
            if (s.resume()[r] > 0) {
                compactions[r].request(s.resume()[r]);
            }
        }
    }

    /**
     * After an apply, never inside one: installs a snapshot a ring asked for, then runs the
     * compactions asked for (the core compacts, its effects are applied, the log is cut).
     */
    private void housekeep() {
        if (housekeeping) {
            return;
        }
        housekeeping = true;
        try {
            if (installWanted) {
                installWanted = false;
                installFromPeer();
                for (int r = 0; r < rings; r++) {
                    apply(r);
                }
            }
            for (int r = 0; r < rings; r++) {
                RingPaxosCore core = cores[r];
                if (core != null) {
                    var out = effects.get(r);
                    var applier = appliers.get(r);
                    compactions[r].runIfAsked(logs[r], i -> core.compact(i, out), () -> applier.apply(out));
                }
            }
        } finally {
            housekeeping = false;
        }
    }

    /** Opens ring {@code r}'s log (after a crash: losing its unsynced records first) and recovers its core. */
    private void startRing(int r) {
        InMemoryDurableLog.Storage storage = world.storage(self, r);
        logs[r] = InMemoryDurableLog.open(storage);
        int ring = r;
        appliers.set(r, new EffectApplier<>(logs[r], CODEC, (to, m) -> ctx.send(processOf(to, ring), new RingMessage(ring, m)),
                (group, m) -> ctx.sendDatagram(ring, new RingMessage(ring, m)), (i, v) -> decided(ring, i, v),
                (peer, instance) -> {
                    if (snapshots == null) {
                        throw new AssertionError("ring " + ring + ": no snapshots in this run, yet asked to install from "
                                + processOf(peer, ring) + " at " + instance);
                    }
                    installWanted = true;
                }));
        List<RingRecord> recovered = new ArrayList<>();
        logs[r].read(logs[r].firstIndex(), Integer.MAX_VALUE, (i, rec) -> recovered.add(CODEC.decode(rec)));
        cores[r] = new RingPaxosCore(scenario.configs()[r], memberId(r, self),
                recovered, logs[r].amnesiaPossible(), clock(), clock(), RingPaxosCore.Observer.NONE);
        told[r] = 0;
        if (scenario.configs()[r].kind() == Ring.Kind.M_RING) {
            ctx.joinGroup(r);
        }
    }

    /**
     * This process' clock, what its ring cores get as {@code now}: the simulated time plus the
     * offset the world gives this process ({@link MultiRingSimulation.World#clockOffset}; 0 unless a
     * test skews it). Learners and the checker keep the simulated time.
     */
    private long clock() {
        return ctx.now() + world.clockOffset(self);
    }

    /**
     * The process that is member {@code member} of ring {@code ring} (inverse of {@link #memberId}): one
     * of the ring's initial members as {@link RingMulticast#ringMember} numbers them, else a process that
     * joined, whose member id is its process id.
     */
    private int processOf(int member, int ring) {
        return member < processOfMember[ring].length ? processOfMember[ring][member] : member;
    }

    /**
     * Process {@code process}' member id in ring {@code r}, -1 if it runs no member of it
     * ({@link MultiRingSimulation.Scenario#memberId}; the first n cached).
     */
    private int memberId(int r, int process) {
        return process < scenario.processes() ? memberOf[r][process] : scenario.memberId(r, process);
    }

    /** Crashes ring {@code r}'s core alone: its volatile state is gone, its log loses what was not synced. */
    void crashRing(int r) {
        if (snapshots != null) {
            // The process's snapshots span its rings: one ring restarted alone would resume below them.
            throw new IllegalStateException("a run with snapshots crashes whole processes, not one ring");
        }
        if (cores[r] == null) {
            return;
        }
        cores[r] = null;
        world.crashStorage(self, r);
        world.ringCrashed(self, r);
        if (scenario.configs()[r].kind() == Ring.Kind.M_RING) {
            ctx.leaveGroup(r);
        }
    }

    /** Restarts ring {@code r}'s core from its log (no-op if it is up). */
    void restartRing(int r) {
        if (cores[r] == null && memberId(r, self) >= 0) {
            startRing(r);
            apply(r);
        }
    }

    /** Instances of ring {@code r} fed to the learners (this process incarnation). */
    long fed(int r) {
        return fed[r];
    }

    boolean ringUp(int r) {
        return cores[r] != null;
    }

    RingPaxosCore core(int r) {
        return cores[r];
    }

    private void apply(int r) {
        if (applying[r] || cores[r] == null) {
            return;
        }
        applying[r] = true;
        try {
            appliers.get(r).apply(effects.get(r));
            while (cores[r] != null && fed[r] > told[r]) {
                told[r] = fed[r];
                cores[r].onDelivered(told[r], clock(), effects.get(r));
                appliers.get(r).apply(effects.get(r));
            }
        } finally {
            applying[r] = false;
        }
        sharePaceLead();
        demandSkips();
        pollLearners();
        if (snapshots != null) {
            housekeep();
        }
    }

    /**
     * The largest pace lead of this process' rings handed to every one of them, as
     * {@link dev.parallax.ringpaxos.RingPaxosBroadcast.PaceShare} does between the rings of a {@link RingMulticast}.
     */
    private void sharePaceLead() {
        long lead = 0;
        for (RingPaxosCore c : cores) {
            if (c != null) {
                lead = Math.max(lead, c.paceLead());
            }
        }
        for (RingPaxosCore c : cores) {
            if (c != null && c.paceLead() < lead) {
                c.adoptPaceLead(lead);
            }
        }
    }

    /** Skips on demand between this process' rings: the runtime's own share, one slot per ring. */
    private final dev.parallax.ringpaxos.RingPaxosBroadcast.PaceShare demandShare =
            new dev.parallax.ringpaxos.RingPaxosBroadcast.PaceShare();
    private dev.parallax.ringpaxos.RingPaxosBroadcast.DemandSlot[] demandSlots;

    /**
     * Skips on demand ({@code ring.skip.demand}; the cores ignore demands when it is off) through
     * {@link dev.parallax.ringpaxos.RingPaxosBroadcast.PaceShare}, as a replica's rings share it: each
     * ring publishes after its step, and a poked ring's core takes the demand at once. A ring restarted
     * alone keeps its slot: its frontier counts from 0 again, so it demands (and is asked) again once it
     * passed what it had reached.
     */
    private void demandSkips() {
        if (demandSlots == null) {
            demandSlots = new dev.parallax.ringpaxos.RingPaxosBroadcast.DemandSlot[cores.length];
            for (int r = 0; r < cores.length; r++) {
                int ring = r;
                demandSlots[r] = demandShare.join(upTo -> {
                    RingPaxosCore c = cores[ring];
                    if (c != null) {
                        c.onSkipDemand(upTo, clock(), effects.get(ring));
                        apply(ring);
                    }
                });
            }
        }
        for (int r = 0; r < cores.length; r++) {
            RingPaxosCore c = cores[r];
            if (c != null) {
                demandShare.published(demandSlots[r], c.logicalNext(), c.valueFrontier(), c.isCoordinator());
            }
        }
    }

    /** Ring {@code r} decided {@code value} at {@code instance}: checked against the other processes, fed to the learners. */
    private void decided(int r, long instance, RingValue value) {
        if (!(value instanceof RingValue.Chosen chosen)) {
            throw new AssertionError("ring " + r + " at process " + self + " delivered " + value + ", not a Chosen value");
        }
        world.ringDecided(self, r, instance, chosen.vid());
        if (instance < fed[r]) {
            return; // a ring restarted alone delivers from instance 0 again
        }
        if (instance != fed[r]) {
            throw new AssertionError("ring " + r + " at process " + self + " delivered instance " + instance
                    + ", expected " + fed[r]);
        }
        fed[r]++;
        ValueId vid = chosen.vid();
        if (vid.isSkip()) {
            world.skipsFed++;
        }
        if (snapshots != null) {
            snapshots.decided(r, instance, chosen);
            return;
        }
        for (Learner l : learners) {
            int stream = l.streamOfRing[r];
            if (stream < 0) {
                continue;
            }
            if (vid.isSkip()) {
                l.merge.skip(stream, vid.upTo());
            } else if (vid.isNoop() || vid.isConfig()) {
                l.merge.noop(stream); // a membership change numbers as a NOOP (rule 1) and reaches no learner
            } else {
                ByteBuffer b = chosen.bytes();
                long id = b.getLong(b.position());
                long groups = b.getLong(b.position() + 8);
                l.merge.message(stream, id, groups);
            }
        }
    }

    private void pollLearners() {
        if (snapshots != null) {
            maybeSnapshot(snapshots.poll(ctx.now()));
            world.buffered(self + ".0", snapshots.buffered());
            return;
        }
        for (Learner l : learners) {
            for (long[] m = l.merge.poll(); m != null; m = l.merge.poll()) {
                world.checker.delivered(l.record, m[0], ctx.now());
            }
            world.buffered(l.name, l.merge.buffered());
        }
    }

    @Override
    public void onMessage(int from, Object message) {
        if (message instanceof RingMessage m && cores[m.ring()] != null) {
            cores[m.ring()].onMessage(memberId(m.ring(), from), m.message(), clock(), effects.get(m.ring()));
            apply(m.ring());
        }
    }

    @Override
    public void onDatagram(int from, int group, Object message) {
        if (from != self) {
            onMessage(from, message); // the runtime's datagram port drops its own (R1 contract)
        }
    }

    @Override
    public void onTick() {
        long now = ctx.now();
        for (int r = 0; r < rings; r++) {
            if (cores[r] != null) {
                cores[r].onTick(clock(), effects.get(r));
                apply(r);
            }
        }
        if (now < world.loadStops && !world.departed(self)) {
            double perTick = scenario.plan().tickInterval() / 1e9 / scenario.processes();
            for (int g = 0; g < scenario.groups(); g++) {
                if (random.nextDouble() < scenario.groupRates()[g] * perTick && memberId(g, self) >= 0) {
                    multicast(1L << g);
                }
            }
            if (scenario.groups() > 1 && random.nextDouble() < scenario.multiRate() * perTick) {
                long bits = 0;
                while (Long.bitCount(bits) < 2) {
                    bits |= 1L << random.nextInt(scenario.groups());
                }
                multicast(bits);
            }
        }
    }

    /**
     * Multicasts a new message to {@code groups}: proposed at this process' member of its ring, if it
     * takes it (it refuses beyond {@code ring.max.pending} own proposals undecided: back-pressure, the
     * message is then not multicast). Each message is one ring value (a batch of one).
     */
    private void multicast(long groups) {
        int r = Long.bitCount(groups) == 1 ? Long.numberOfTrailingZeros(groups) : rings - 1;
        RingPaxosCore core = cores[r];
        if (core == null) {
            world.refused++;
            return;
        }
        long id = world.nextMessageId();
        ByteBuffer body = ByteBuffer.allocate(16).putLong(id).putLong(groups).flip().asReadOnlyBuffer();
        world.checker.multicast(id, groups);
        if (core.onProposal(new RingValue.ClientBatch(body), clock(), effects.get(r))) {
            world.accepted(id, self, ctx.incarnation(), r, ctx.now());
        } else {
            world.refused++;
        }
        apply(r);
    }

    /**
     * An operator's membership change of ring {@code r} at this process' member
     * ({@code RingPaxosCore#proposeMembership}), its effects applied; why it was refused, or null.
     */
    String requestMembership(int r, MembershipChange change) {
        if (cores[r] == null) {
            return "ring " + r + " down here";
        }
        String refusal = cores[r].proposeMembership(change, clock(), effects.get(r));
        apply(r);
        return refusal;
    }

    /**
     * An operator's leadership transfer of ring {@code r} at this process' member to ring member
     * {@code member} ({@code RingPaxosCore#transferLeadership}, rules T1–T4), its effects applied;
     * why it was refused, or null.
     */
    String requestTransfer(int r, int member) {
        if (cores[r] == null) {
            return "ring " + r + " down here";
        }
        String refusal = cores[r].transferLeadership(member, clock());
        apply(r);
        return refusal;
    }

    /** Each ring's decided count and role here, for failure messages. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < rings; r++) {
            RingPaxosCore c = cores[r];
            sb.append(" r").append(r).append(c == null ? " down" : " fed " + fed[r] + " round " + c.round()
                    + (c.isCoordinator() ? " coord" : "") + (c.recovering() ? " recovering" : "")
                    + (scenario.configs()[r].membershipChanges() ? " members " + c.membershipHistory() : ""));
        }
        for (Learner l : learners) {
            sb.append(" | ").append(l.record).append(" buffered ").append(l.merge.buffered());
        }
        if (snapshots != null) {
            sb.append(" | ").append(snapshots);
        }
        return sb.toString();
    }

    /** This incarnation's learners' records in the checker. */
    List<MulticastDeliveryChecker.Learner> learnerRecords() {
        if (snapshots != null) {
            return List.of(snapshots.record());
        }
        return learners.stream().map(l -> l.record).toList();
    }
}
