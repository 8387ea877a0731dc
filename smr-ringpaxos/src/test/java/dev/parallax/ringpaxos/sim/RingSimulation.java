package dev.parallax.ringpaxos.sim;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.testkit.DatagramPlan;
import dev.parallax.core.testkit.FaultPlan;
import dev.parallax.core.testkit.ProcessFaults;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.SimulationStats;
import dev.parallax.core.testkit.smr.AmnesiaPlan;
import dev.parallax.core.testkit.smr.ClientWorkload;
import dev.parallax.core.testkit.smr.HealAndCheck;
import dev.parallax.core.testkit.smr.ProgressMonitor;
import dev.parallax.core.testkit.smr.ReplicaCounters;
import dev.parallax.core.testkit.smr.SafetyMonitor;
import dev.parallax.core.testkit.smr.SimClient;
import dev.parallax.core.testkit.smr.SnapshotShelf;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingValue;
import dev.parallax.ringpaxos.ValueId;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * One seeded Ring Paxos run, U-Ring or M-Ring (seed 003 (Ring Paxos) §3.3.2–§3.3.7): n
 * {@link RingSimReplica}s and closed-loop KV clients that keep the cluster loaded through the
 * fault window and a while after it, on a hostile network (delays 0.1–4 ms, 5% loss, 3%
 * duplication, reordering; for M-Ring also the datagram channel: 5% loss, 3% duplication,
 * 0.1–4 ms per receiver, packets capped at {@code mring.packet.bytes}); a nemesis that partitions
 * (two-sided, one-way cuts, bridges), crashes and restarts members and in a share of its actions
 * hunts the coordinator (and, with {@link ProcessFaults}, pauses members for seconds and crashes
 * every member at once); then faults stop. Clients reach any member (every member proposes,
 * {@code redirectHint() == ANY_REPLICA}) and fail over to the next one on silence.
 *
 * <p>Checked on every event: agreement and validity on (value id, body) and in-order delivery
 * ({@link SafetyMonitor}), one body per value id, the ring facts of {@link QuorumWitness}, the
 * bounds of {@link BoundsMonitor}, at-most-once application ({@code KvCommands}). After the heal:
 * every proposed command decided within a bound ({@link ProgressMonitor}), every client command
 * answered, the members converge to one decided prefix and one state, and the clients' history is
 * linearizable. This is the loop of smr-paxos' {@code PaxosSimulation.run}, over the moved harness
 * of smr-core's testkit ({@code dev.parallax.core.testkit.smr}); smr-ringpaxos cannot depend on
 * smr-paxos' tests (a protocol module depends on smr-core only).
 *
 * <p>Not thread-safe: one test thread per run.
 */
final class RingSimulation {
    static final long MS = 1_000_000L;
    /** Snapshots every this many instances in the snapshot scenarios. */
    static final int SNAPSHOT_EVERY = 5;
    /** A client's retry timeout: without an answer it resends to the next member. */
    static final long RETRY_TIMEOUT = 150 * MS;
    /** How long a client waits for an operation before it gives up (unknown outcome). */
    static final long INVOKE_TIMEOUT = 400 * MS;
    /** Commands a client keeps in flight at most (timed-out ones included). */
    static final int CLIENT_WINDOW = 3;
    /**
     * After the heal, the longest a command may wait for its decision: a coordinator deposed right
     * at the heal (suspect 200 ms, staggered by rank up to 2×), Phase 1 and a new ring over a lossy
     * network, a stalled ring re-formed (stall 400 ms) and the clients' retries all fit inside.
     */
    static final long PROGRESS_BOUND = 2_500 * MS;
    /** The linearizability check's budget per run, in search steps (as smr-paxos' simulations). */
    static final long CHECK_STEPS = 20_000_000;

    private RingSimulation() {
    }

    /**
     * Knobs of one scenario.
     *
     * @param opsPerClient  operations each client issues at most ({@code Long.MAX_VALUE}: until its load stops)
     * @param faultyFor     how long the nemesis runs
     * @param loadAfterHeal how long after the heal clients keep starting operations
     * @param coordinatorShare share of nemesis actions that crash or isolate the current coordinator
     * @param progressBound after the heal, the longest a proposed command may wait for its decision
     * @param invokeTimeout how long a client waits for an operation ({@link SimClient#NEVER}: forever)
     * @param processFaults pauses and crashes of every member the nemesis adds (null: none)
     */
    record Scenario(int replicas, int clients, long opsPerClient, long faultyFor, long loadAfterHeal, FaultPlan plan,
                    RingConfig config, int snapshotEvery, double coordinatorShare, long progressBound,
                    long invokeTimeout, ProcessFaults processFaults) {

        /** The hostile scenario of {@code kind} with n = {@code replicas} and the simulations' settings ({@link #config}). */
        static Scenario hostile(Ring.Kind kind, int replicas) {
            return hostile(config(kind, replicas).build());
        }

        /**
         * The hostile scenario with {@code config} (its kind and members): delays 0.1–4 ms, 5% loss, 3%
         * duplication on links and on the datagram channel (whose packets are capped at
         * {@code mring.packet.bytes}), a nemesis action every 120 ms on average for 1.5 s that
         * partitions (also one way and by bridges) and crashes up to f = n − quorum members, 35% of them aimed at
         * the coordinator; four clients, load until 0.3 s after the heal.
         */
        static Scenario hostile(RingConfig config) {
            int replicas = config.members();
            int f = config.f();     // failures tolerated, n − quorum: a majority stays up (even n too)
            DatagramPlan datagrams = new DatagramPlan(100_000, 4 * MS, 0.05, 0.03, config.mringPacketBytes());
            FaultPlan plan = new FaultPlan(100_000, 4 * MS, 0.05, 0.03, 120 * MS, f, true, 5 * MS, datagrams)
                    .withPartialPartitions(true);
            return new Scenario(replicas, 4, Long.MAX_VALUE, 1_500 * MS, 300 * MS, plan, config, 0, 0.35,
                    PROGRESS_BOUND, INVOKE_TIMEOUT, null);
        }

        /**
         * The settings of the simulations, small so that runs reach the corners: windows of 4,
         * batches of at most 160 bytes, timeouts scaled to the network's few milliseconds (heartbeat
         * 40 ms, suspect 200 ms, retransmit 60 ms (M-Ring 2A: 20 ms), catch-up every 40 ms of at most
         * 16 instances, stall 400 ms, rejoin back-off 200 ms, proposal retry 300 ms), learner buffers
         * of 64 instances, flow-control threshold 16. The restart hold stays 2 s (default).
         */
        static RingConfig.Builder config(Ring.Kind kind, int replicas) {
            return RingConfig.builder(replicas, kind)
                    .window(4)
                    .batchBytes(160)
                    .batchTimeout(Duration.ofMillis(2))
                    .heartbeat(Duration.ofMillis(40))
                    .suspect(Duration.ofMillis(200))
                    .retransmit(Duration.ofMillis(60))
                    .catchUp(Duration.ofMillis(40))
                    .catchUpMaxInstances(16)
                    .stall(Duration.ofMillis(400))
                    .rejoinBackoff(Duration.ofMillis(200))
                    .proposalRetry(Duration.ofMillis(300))
                    .maxPending(16)
                    .mringRetransmit(Duration.ofMillis(20))
                    .mringLearnerBuffer(64)
                    .mringFcThreshold(16);
        }

        /**
         * The hostile scenario with skips (Multi-Ring Paxos; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5,
         * Alg. 1 l.13-20): {@code ring.lambda} = {@code lambda} instances per second, {@code ring.delta.ms} 5,
         * on the simulation's virtual clock (the shared clock stands for the epoch clock).
         */
        static Scenario hostileWithSkips(Ring.Kind kind, int replicas, long lambda) {
            return hostile(config(kind, replicas).lambda(lambda).skipInterval(Duration.ofMillis(5)).build());
        }

        /** The hostile scenario where every member snapshots and compacts its log every few instances. */
        static Scenario hostileWithSnapshots(Ring.Kind kind, int replicas) {
            return hostile(kind, replicas).withSnapshotEvery(SNAPSHOT_EVERY);
        }

        /**
         * The hostile scenario whose nemesis also pauses members for 0.5–5 s and now and then
         * crashes every member at once ({@link ProcessFaults#pausesAndCrashAll()}), for 4 s
         * (virtual), acting every 150 ms on average. The progress bound grows by the restart hold:
         * after a crash of every member nobody starts a round before it (C8 restart hold).
         */
        static Scenario hostileWithPausesAndCrashAll(Ring.Kind kind, int replicas) {
            Scenario h = hostile(kind, replicas);
            return h.withPlan(h.plan().withNemesis(150 * MS, h.plan().maxCrashed(), true)).withFaultyFor(4_000 * MS)
                    .withProcessFaults(ProcessFaults.pausesAndCrashAll())
                    .withProgressBound(PROGRESS_BOUND + h.config().restartHoldNanos());
        }

        /** The same network with no loss, no duplication and no nemesis. */
        Scenario calm() {
            return withPlan(plan.withLoss(0, 0).withDatagrams(plan.datagrams().withLoss(0, 0)).withNemesis(0, 0, false));
        }

        Scenario withSnapshotEvery(int every) {
            return new Scenario(replicas, clients, opsPerClient, faultyFor, loadAfterHeal, plan, config, every,
                    coordinatorShare, progressBound, invokeTimeout, processFaults);
        }

        Scenario withPlan(FaultPlan p) {
            return new Scenario(replicas, clients, opsPerClient, faultyFor, loadAfterHeal, p, config, snapshotEvery,
                    coordinatorShare, progressBound, invokeTimeout, processFaults);
        }

        Scenario withFaultyFor(long duration) {
            return new Scenario(replicas, clients, opsPerClient, duration, loadAfterHeal, plan, config, snapshotEvery,
                    coordinatorShare, progressBound, invokeTimeout, processFaults);
        }

        Scenario withLoadAfterHeal(long duration) {
            return new Scenario(replicas, clients, opsPerClient, faultyFor, duration, plan, config, snapshotEvery,
                    coordinatorShare, progressBound, invokeTimeout, processFaults);
        }

        Scenario withProgressBound(long bound) {
            return new Scenario(replicas, clients, opsPerClient, faultyFor, loadAfterHeal, plan, config, snapshotEvery,
                    coordinatorShare, bound, invokeTimeout, processFaults);
        }

        Scenario withClients(int count) {
            return new Scenario(replicas, count, opsPerClient, faultyFor, loadAfterHeal, plan, config, snapshotEvery,
                    coordinatorShare, progressBound, invokeTimeout, processFaults);
        }

        Scenario withInvokeTimeout(long timeout) {
            return new Scenario(replicas, clients, opsPerClient, faultyFor, loadAfterHeal, plan, config, snapshotEvery,
                    coordinatorShare, progressBound, timeout, processFaults);
        }

        Scenario withProcessFaults(ProcessFaults faults) {
            return new Scenario(replicas, clients, opsPerClient, faultyFor, loadAfterHeal, plan, config, snapshotEvery,
                    coordinatorShare, progressBound, invokeTimeout, faults);
        }
    }

    /**
     * Extra wiring of a run besides its scenario: what to install once the members exist (scripted
     * faults, observers; it must draw no random number from the simulation), clients spread
     * ({@code c mod n}) or placed at random, puts padded to {@code putBytes} (0: not), a member that
     * executes at most {@code slowPerTick} decided instances per tick ({@code slowMember} −1: none),
     * whether members run amnesia recovery (C10; off only to show the runs then fail), whether they
     * answer gets from their local state (on only to show the linearizability checker bites), whether
     * failure detection is the replica's runtime {@code MemberDetector} over arrival stamps
     * ({@link RingSimReplica}) instead of the core's own ticks, and how clients send gets
     * ({@code queries}: {@link #ORDERED_GETS}, {@link #QUERIES}, {@link #UNCONFIRMED_QUERIES}).
     */
    record Options(BiConsumer<Simulation<Object>, Shared> setup, boolean spreadClients, int putBytes, int slowMember,
                   int slowPerTick, boolean recoverAmnesia, boolean localReads, boolean runtimeDetector,
                   int queries, boolean answerEarly) {
        /** {@link #queries}: gets are ordered; gets are queries; gets are queries a coordinator answers unconfirmed. */
        static final int ORDERED_GETS = 0;
        static final int QUERIES = 1;
        static final int UNCONFIRMED_QUERIES = 2;

        static final Options NONE = new Options((sim, shared) -> { }, false, 0, -1, 0, true, false, false, 0, false);

        Options with(BiConsumer<Simulation<Object>, Shared> more) {
            return new Options(setup.andThen(more), spreadClients, putBytes, slowMember, slowPerTick, recoverAmnesia,
                    localReads, runtimeDetector, queries, answerEarly);
        }

        Options spreadingClients() {
            return new Options(setup, true, putBytes, slowMember, slowPerTick, recoverAmnesia, localReads, runtimeDetector, queries, answerEarly);
        }

        Options withPutBytes(int bytes) {
            return new Options(setup, spreadClients, bytes, slowMember, slowPerTick, recoverAmnesia, localReads, runtimeDetector, queries, answerEarly);
        }

        /** Member {@code member} executes at most {@code perTick} decided instances per tick ({@code slowExecution}). */
        Options slowExecution(int member, int perTick) {
            return new Options(setup, spreadClients, putBytes, member, perTick, recoverAmnesia, localReads, runtimeDetector, queries, answerEarly);
        }

        /** Members run no amnesia recovery (only to show that the runs then break agreement). */
        Options withoutAmnesiaRecovery() {
            return new Options(setup, spreadClients, putBytes, slowMember, slowPerTick, false, localReads, runtimeDetector, queries, answerEarly);
        }

        /**
         * Members answer a get with their state as the request arrives, not at the get's place in the
         * order ({@link dev.parallax.core.testkit.smr.SimService}'s mutation; only to show that the
         * linearizability checker bites).
         */
        Options withLocalReads() {
            return new Options(setup, spreadClients, putBytes, slowMember, slowPerTick, recoverAmnesia, true, runtimeDetector, queries, answerEarly);
        }

        /**
         * Clients send every get as a query to a member drawn for each, which answers it through
         * read-index ({@code RingReads}); puts and appends stay ordered.
         */
        Options readingByQueries() {
            return new Options(setup, spreadClients, putBytes, slowMember, slowPerTick, recoverAmnesia, localReads,
                    runtimeDetector, QUERIES, answerEarly);
        }

        /**
         * As {@link #readingByQueries}, but a coordinator answers queries from its state at once, without
         * confirming its round (rule Q2; only to show that the checker bites).
         */
        Options readingByUnconfirmedQueries() {
            return new Options(setup, spreadClients, putBytes, slowMember, slowPerTick, recoverAmnesia, localReads,
                    runtimeDetector, UNCONFIRMED_QUERIES, answerEarly);
        }

        /**
         * With {@code mring.speculation=on}: members answer a client as soon as its command ran
         * speculatively, before its position is decided (the mutation; only to show that the checks bite).
         */
        Options answeringEarly() {
            return new Options(setup, spreadClients, putBytes, slowMember, slowPerTick, recoverAmnesia, localReads,
                    runtimeDetector, queries, true);
        }

        /** Failure detection is the replica's runtime member detector over arrival stamps, not the core's ticks. */
        Options withRuntimeDetector() {
            return new Options(setup, spreadClients, putBytes, slowMember, slowPerTick, recoverAmnesia, localReads, true, queries, answerEarly);
        }
    }

    /**
     * What a run's members share and report to, across crashes: the monitors, the snapshot shelf,
     * the session counters, the cores' event counts and re-formations summed over every incarnation,
     * the rounds led, the largest delivered position any member reached, and the most decided but
     * not yet executed instances any member held. Owned by the simulation thread.
     */
    static final class Shared {
        final Scenario scenario;
        final Options options;
        /**
         * Agreement on the decided sequence, skips and configuration commands included; NOOPs, skips
         * and configuration commands (the coordinator's own values, an operator's request) need no
         * proposer (validity).
         */
        final SafetyMonitor<RingValue.Chosen> safety = new SafetyMonitor<>(c -> c.vid().isBodiless() || c.vid().isConfig());
        final QuorumWitness quorum;
        final BoundsMonitor bounds;
        final ProgressMonitor progress = new ProgressMonitor();
        final SnapshotShelf shelf = new SnapshotShelf();
        final ReplicaCounters counters = new ReplicaCounters();
        final Map<String, Long> events = new TreeMap<>();
        private final Map<ValueId, ByteBuffer> bodies = new HashMap<>();
        /** When each value id was proposed (virtual time of its first proposal). */
        final Map<ValueId, Long> proposedAt = new HashMap<>();
        /** When each value id was first learned decided by its own proposer (commit latency). */
        final Map<ValueId, Long> committedAt = new HashMap<>();
        /** Bytes of client batches each member executed ({@code parallax.protocol.delivered.bytes}). */
        final long[] deliveredBytes;
        long reformations;
        long stepDowns;
        /** Whether openers of an instance must name one set for it ({@link MembershipPlan#witnessSets}). */
        boolean witnessSets = true;
        /** The membership nemesis, for failure messages (null: none). */
        RingMembershipNemesis nemesis;
        /** Gets answered through the query path, and gets a member told to ask again (read-index failures). */
        long queriesAnswered;
        long queriesRetried;
        /** What the membership nemesis did (null: no membership changes). */
        RingMembershipNemesis.Counts membership;
        long maxUndelivered;
        /** The most undelivered instances any member may hold after a step (0: not checked). */
        long undeliveredBound;
        /**
         * When each member's process first starts (virtual time; 0: with the run,
         * {@code Long.MAX_VALUE}: never); set before the members are added.
         */
        final long[] startAt;

        Shared(Scenario scenario, Options options) {
            this.scenario = scenario;
            this.options = options;
            RingConfig config = scenario.config();
            this.quorum = new QuorumWitness(scenario.replicas(), config.idSpace(), config.membershipChanges());
            this.bounds = new BoundsMonitor(config);
            this.deliveredBytes = new long[config.idSpace()];
            this.startAt = new long[config.idSpace()];
        }

        /** When member {@code id}'s process first starts ({@link #startAt}). */
        long startAt(int id) {
            return startAt[id];
        }

        /** A proposer assigned {@code vid} to {@code body}: one body per id, ever (incarnations). */
        void proposed(int member, ValueId vid, ByteBuffer body, long now) {
            proposedAt.putIfAbsent(vid, now);
            ByteBuffer copy = ByteBuffer.allocate(body.remaining()).put(body.duplicate()).flip().asReadOnlyBuffer();
            ByteBuffer before = bodies.putIfAbsent(vid, copy);
            if (before != null && !before.equals(copy)) {
                throw new AssertionError("one body per id: member " + member + " proposed " + vid + " with "
                        + copy.remaining() + " bytes other than the body proposed under it before");
            }
            safety.proposed(new RingValue.Chosen(vid, copy));
        }

        /** {@code member} learned that {@code vid} is decided: its proposer's first time counts as the commit. */
        void decided(int member, ValueId vid, long now) {
            if (vid.origin() == member) {
                committedAt.putIfAbsent(vid, now);
            }
        }

        /** Commit latencies (proposal to its proposer learning the decision) of the ids proposed at or after {@code from}. */
        List<Long> commitLatencies(long from) {
            List<Long> out = new ArrayList<>();
            committedAt.forEach((vid, at) -> {
                Long proposed = proposedAt.get(vid);
                if (proposed != null && proposed >= from) {
                    out.add(at - proposed);
                }
            });
            out.sort(null);
            return out;
        }

        /** A member executes with {@code undelivered} decided instances still waiting. */
        void undelivered(int member, long undelivered) {
            maxUndelivered = Math.max(maxUndelivered, undelivered);
            if (undeliveredBound > 0 && undelivered > undeliveredBound) {
                throw new AssertionError("bounds: member " + member + " holds " + undelivered
                        + " decided instances not yet executed, above the bound " + undeliveredBound);
            }
        }

        /** The summed count of core event {@code name} over every member incarnation (as of its last tick). */
        long event(String name) {
            return events.getOrDefault(name, 0L);
        }

        /** The summed count of every core event whose name contains {@code part}. */
        long eventsContaining(String part) {
            return events.entrySet().stream().filter(e -> e.getKey().contains(part)).mapToLong(Map.Entry::getValue)
                    .sum();
        }
    }

    /** What a run produced, for assertions and reports. */
    record Outcome(long seed, CheckResult linearizability, long decisions, int instances, SimulationStats stats,
                   long snapshotInstalls, long operations, int pendingAtHeal, long roundChanges, long maxProgressNanos,
                   long timedOut, long sessionGaps, long sessionDuplicates, Shared shared) {
    }

    static Outcome run(long seed, Scenario s) {
        return run(seed, s, null, Options.NONE);
    }

    /**
     * A run of scenario {@code s}, whose members' storage loses synced records on crashes as
     * {@code amnesia} arranges (null: it does not), wired as {@code options} says.
     */
    static Outcome run(long seed, Scenario s, AmnesiaPlan amnesia, Options options) {
        return run(seed, s, amnesia, options, null);
    }

    /**
     * Membership changes during a run ({@link RingMembershipNemesis}): one operation every
     * {@code interval} on average during the fault window; {@code alpha} 0 for the ring's window
     * (correct), another value for the mutation; {@code witnessSets} whether the members that open
     * an instance must name one set for it ({@link QuorumWitness#openedUnder}; off only to show what
     * the mutation breaks beyond it).
     */
    record MembershipPlan(long interval, int alpha, boolean witnessSets) {
    }

    /** A run whose member set changes as {@code membership} says (null: it does not change). */
    static Outcome run(long seed, Scenario s, AmnesiaPlan amnesia, Options options, MembershipPlan membership) {
        Simulation<Object> sim = new Simulation<>(seed, s.plan());
        Shared shared = new Shared(s, options);
        shared.witnessSets = membership == null || membership.witnessSets();
        if (s.config().kind() == Ring.Kind.M_RING) {
            sim.measureDatagramsWith(RingSimReplica::datagramBytes);
        }
        for (int r = 0; r < s.replicas(); r++) {
            sim.addNode(r, ctx -> new RingSimReplica(ctx, shared), true);
        }
        if (amnesia != null) {
            amnesia.install(sim, s.replicas(), s.faultyFor());
        }
        options.setup().accept(sim, shared);
        CoordinatorWatch coordinators = new CoordinatorWatch(sim, s.replicas());
        sim.targetLeader(coordinators::current, s.coordinatorShare());
        sim.processFaults(s.processFaults());
        sim.addInvariant(coordinators::observe);
        sim.addInvariant(() -> {
            try {
                shared.progress.check(sim.now());
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; members: "
                        + describe(sim, coordinators.ids().stream().mapToInt(Integer::intValue).toArray())
                        + (shared.nemesis == null ? "" : shared.nemesis), e);
            }
        });
        sim.addInvariant(() -> shared.bounds.check(sim, s.replicas()));
        RingMembershipNemesis nemesis = null;
        if (membership != null) {
            nemesis = new RingMembershipNemesis(sim, coordinators, ctx -> new RingSimReplica(ctx, shared),
                    sim.random().split(), membership.interval(), s.faultyFor(),
                    membership.alpha() == 0 ? s.config().window() : membership.alpha(), s.replicas(), s.config().idSpace());
            nemesis.start();
            shared.nemesis = nemesis;
        }
        RingMembershipNemesis changes = nemesis;
        java.util.function.Supplier<int[]> members = changes == null
                ? () -> java.util.stream.IntStream.range(0, s.replicas()).toArray() : changes::members;
        HistoryRecorder<KvOp, String> history = new HistoryRecorder<>(sim::now);
        SplittableRandom workloads = sim.random().split();
        List<Integer> clientIds = new ArrayList<>();
        List<ClientWorkload> loads = new ArrayList<>();
        long loadStops = s.faultyFor() + s.loadAfterHeal();
        for (int c = 0; c < s.clients(); c++) {
            int id = 100 + c;
            clientIds.add(id);
            ClientWorkload load = new ClientWorkload(workloads.split(), id, s.opsPerClient(), loadStops, options.putBytes());
            loads.add(load);
            long clientSeed = workloads.nextLong();
            int startAt = options.spreadClients() ? c % s.replicas() : SimClient.RANDOM_REPLICA;
            sim.addNode(id, ctx -> {
                SimClient client = new SimClient(ctx, s.replicas(), load, history, RETRY_TIMEOUT, s.invokeTimeout(),
                        CLIENT_WINDOW, 0, clientSeed, startAt);
                return options.queries() == Options.ORDERED_GETS ? client : client.readingByQueries(clientSeed + 1);
            }, false);
        }

        HealAndCheck.Result checked = HealAndCheck.run(sim, clientIds, s.faultyFor(), shared.progress, s.progressBound(),
                new HealAndCheck.Replicas(s.replicas(), "member",
                        () -> (changes == null || changes.idle()) && converged(sim, members.get()),
                        () -> describe(sim, members.get()) + (changes == null ? "" : changes + "; "),
                        r -> sim.<RingSimReplica>node(r).state(), members), history, CHECK_STEPS);
        int pendingAtHeal = checked.pendingAtHeal();
        CheckResult lin = checked.lin();
        if (s.snapshotEvery() == 0) {
            sameLogicalNext(sim, members.get());
        }
        for (int r : coordinators.ids()) {
            if (sim.isUp(r)) {
                sim.<RingSimReplica>node(r).reportTotals();
            }
        }
        if (changes != null) {
            shared.membership = changes.counts();
        }
        long operations = loads.stream().mapToLong(ClientWorkload::issued).sum();
        long timedOut = clientIds.stream().mapToLong(id -> sim.<SimClient>node(id).timedOut()).sum();
        shared.queriesAnswered = clientIds.stream().mapToLong(id -> sim.<SimClient>node(id).queriesAnswered()).sum();
        shared.queriesRetried = clientIds.stream().mapToLong(id -> sim.<SimClient>node(id).queriesRetried()).sum();
        return new Outcome(seed, lin, shared.safety.decisions(), shared.safety.instances(), sim.stats(),
                shared.shelf.installs(), operations, pendingAtHeal, coordinators.roundChanges(),
                shared.progress.maxLatency(), timedOut, shared.counters.gaps(), shared.counters.duplicates(), shared);
    }

    /**
     * Rule 1 of the Multi-Ring plan: members that handed out the same decided sequence from instance 0
     * (no snapshot installed) have the same logical next (each member also checks its core against its
     * own replay after every step, {@link RingSimReplica}).
     */
    private static void sameLogicalNext(Simulation<Object> sim, int[] replicas) {
        long expected = -1;
        for (int r : replicas) {
            if (!sim.isUp(r)) {
                continue;
            }
            long next = sim.<RingSimReplica>node(r).core().logicalNext();
            if (expected >= 0 && next != expected) {
                throw new AssertionError("logical numbering: member " + r + " has logical next " + next + ", another "
                        + expected + " at the same decided prefix; members: " + describe(sim, replicas));
            }
            expected = next;
        }
    }

    private static boolean converged(Simulation<Object> sim, int[] replicas) {
        long applied = -1;
        for (int r : replicas) {
            if (!sim.isUp(r)) {
                return false;
            }
            RingSimReplica replica = sim.node(r);
            applied = applied < 0 ? replica.applied() : applied;
            if (replica.applied() != applied || !replica.settled()) {
                return false;
            }
        }
        return true;
    }

    /** Each member's applied position, round, ring and role, for failure messages. */
    static String describe(Simulation<Object> sim, int replicas) {
        return describe(sim, java.util.stream.IntStream.range(0, replicas).toArray());
    }

    /** {@link #describe(Simulation, int)} of the members {@code replicas}. */
    static String describe(Simulation<Object> sim, int[] replicas) {
        StringBuilder sb = new StringBuilder();
        for (int r : replicas) {
            if (!sim.isUp(r)) {
                sb.append(r).append(": down; ");
                continue;
            }
            RingSimReplica replica = sim.node(r);
            sb.append(r).append(": ").append(replica.describe()).append("; ");
        }
        return sb.toString();
    }
}
