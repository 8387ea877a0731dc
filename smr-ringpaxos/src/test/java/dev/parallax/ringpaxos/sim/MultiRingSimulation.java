package dev.parallax.ringpaxos.sim;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.testkit.DatagramPlan;
import dev.parallax.core.testkit.FaultPlan;
import dev.parallax.core.testkit.NodeFactory;
import dev.parallax.core.testkit.ProcessFaults;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.SimulationStats;
import dev.parallax.core.testkit.multicast.LogicalMerge;
import dev.parallax.core.testkit.multicast.MulticastDeliveryChecker;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.ValueId;
import dev.parallax.ringpaxos.multiring.RingMulticast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * One seeded run of Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1;
 * logical numbering, skips at λ, the cap): {@code n} {@link MultiRingProcess}es, each a member of every ring (k group rings
 * and the global ring; {@link Scenario#partitioned}: S-SMR's rings over subsets), U-Ring or M-Ring per ring, whose coordinators skip at rate λ every Δ; learners
 * with random subscriptions merging by (⌊l/M⌋, stream); messages multicast from random processes to
 * one group (its ring) or several (the global ring). The world is the ring simulations' hostile one
 * ({@link RingSimulation.Scenario#hostile}): delays 0.1–4 ms, 5% loss, 3% duplication, reordering,
 * the datagram channel's own loss, duplication and delays for M-Ring rings, a nemesis that
 * partitions (two-sided, one-way, bridges), crashes and restarts processes and hunts the rings'
 * coordinators; then the faults heal. With {@code ring.member.ids} set, the processes themselves
 * may change as the run goes ({@link MultiRingMembershipNemesis}, installed by the setup of
 * {@link #run(long, Scenario, BiConsumer)}): processes join with new ids, are removed, retired.
 *
 * <p>Checked ({@link MulticastDeliveryChecker}): on every delivery exactly-once and integrity, and
 * agreement of learners with the same subscription; per ring, one value per instance at every
 * process; at the end the union of every learner's delivery order is acyclic, and — once the
 * faults healed and the load stopped, within {@link Scenario#progressBound} — every live learner
 * delivered every message of its groups that a live origin multicast or any learner delivered,
 * learners with the same subscription the same sequence (learners of processes that joined too; not
 * those of a removed process, nor what it multicast), and the membership change under way at the
 * heal went through.
 *
 * <p>Not thread-safe: one test thread per run.
 */
final class MultiRingSimulation {
    static final long MS = 1_000_000L;

    private MultiRingSimulation() {
    }

    /**
     * One run's world.
     *
     * @param processes     n, every one a member of every ring
     * @param groups        k group rings (ring k is the global ring)
     * @param configs       per ring its configuration (kind, λ, Δ; the ring simulations' small settings)
     * @param roundLength   M of the merge
     * @param groupRates    per group, messages per second multicast to that group alone
     * @param multiRate     messages per second multicast to two groups or more
     * @param subscriptions per process, its learners' group bits
     * @param faultyFor     how long the nemesis runs
     * @param loadAfterHeal how long after the heal processes keep multicasting
     * @param progressBound after the load stops, how long until every live learner must have everything
     * @param flaw          a deliberate merge bug of the learners of {@code flawedProcess} (checker tests)
     * @param ringProcesses per ring (groups' rings, then the global ring) its processes in increasing
     *                      id; null: every process runs every ring
     * @param snapshotEvery 0, or every process snapshots every this many merged deliveries and
     *                      compacts its rings ({@link MultiRingProcess}; one learner per process)
     */
    record Scenario(int processes, int groups, RingConfig[] configs, int roundLength, double[] groupRates,
                    double multiRate, long[][] subscriptions, FaultPlan plan, long faultyFor, long loadAfterHeal,
                    double coordinatorShare, long progressBound, LogicalMerge.Flaw flaw, int flawedProcess,
                    ProcessFaults processFaults, int[][] ringProcesses, int snapshotEvery) {

        /**
         * The hostile scenario of {@code seed}: n = 3 (a fifth of the seeds n = 5), k ∈ {2, 3}, each
         * ring U-Ring or M-Ring, λ ∈ [300, 1000] /s, Δ ∈ [2, 12] ms, M ∈ [1, 4], each process 1–3
         * learners of random non-empty group sets, 20–60 messages/s per group and 10–40 /s to
         * several groups; the nemesis (every 120 ms on average, at most f processes down, a third of
         * its actions at a ring's coordinator; in a quarter of the seeds also pauses of 0.5–5 s and
         * crashes of every process) for 1.5 s, load until 0.3 s after the heal, everything delivered
         * within 3 s after that (plus the 2 s restart hold with crashes of every process).
         */
        static Scenario hostile(long seed) {
            SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
            int n = r.nextInt(5) == 0 ? 5 : 3;
            int k = 2 + r.nextInt(2);
            long lambda = 300 + r.nextInt(701);
            int deltaMs = 2 + r.nextInt(11);
            RingConfig[] configs = new RingConfig[k + 1];
            int packet = 0;
            for (int i = 0; i <= k; i++) {
                Ring.Kind kind = r.nextBoolean() ? Ring.Kind.M_RING : Ring.Kind.U_RING;
                configs[i] = ringConfig(kind, n, lambda, deltaMs);
                packet = configs[i].mringPacketBytes();
            }
            double[] rates = new double[k];
            for (int g = 0; g < k; g++) {
                rates[g] = 20 + r.nextInt(41);
            }
            long[][] subs = new long[n][];
            for (int p = 0; p < n; p++) {
                subs[p] = new long[1 + r.nextInt(3)];
                for (int j = 0; j < subs[p].length; j++) {
                    subs[p][j] = 1 + r.nextLong((1L << k) - 1);
                }
            }
            DatagramPlan datagrams = new DatagramPlan(100_000, 4 * MS, 0.05, 0.03, packet);
            FaultPlan plan = new FaultPlan(100_000, 4 * MS, 0.05, 0.03, 120 * MS, (n - 1) / 2, true, 5 * MS, datagrams)
                    .withPartialPartitions(true);
            // A quarter of the seeds: the nemesis also pauses processes for 0.5-5 s and crashes all of
            // them at once; every ring then holds its first round for ring.restart.hold (2 s, C8).
            boolean processFaults = r.nextInt(4) == 0;
            long bound = 3_000 * MS + (processFaults ? configs[0].restartHoldNanos() : 0);
            return new Scenario(n, k, configs, 1 + r.nextInt(4), rates, 10 + r.nextInt(31), subs, plan, 1_500 * MS,
                    300 * MS, 0.35, bound, LogicalMerge.Flaw.NONE, -1,
                    processFaults ? ProcessFaults.pausesAndCrashAll() : null, null, 0);
        }

        /**
         * The sceptic's world (calm: delays 0.1–1 ms, no loss, no nemesis): n = 3, groups A = 0 and
         * B = 1 and the global ring, every ring of {@code kind} with λ and Δ = {@code deltaMs}, M = 1;
         * {@code rates} messages per second to A and to B alone, none to both; process 0 has learners
         * {A} and {A,B}, process 1 {A,B} and {B}, process 2 {A} and {A,B}. Load for {@code loadFor},
         * no faults.
         */
        static Scenario sceptic(Ring.Kind kind, long lambda, int deltaMs, double[] rates, long loadFor) {
            int n = 3;
            RingConfig[] configs = new RingConfig[3];
            for (int i = 0; i < 3; i++) {
                configs[i] = ringConfig(kind, n, lambda, deltaMs);
            }
            long a = 1;
            long ab = 3;
            long[][] subs = {{a, ab}, {ab, 2}, {a, ab}};
            DatagramPlan datagrams = new DatagramPlan(100_000, MS, 0, 0, configs[0].mringPacketBytes());
            FaultPlan plan = new FaultPlan(100_000, MS, 0, 0, 0, 0, false, 5 * MS, datagrams);
            return new Scenario(n, 2, configs, 1, rates, 0, subs, plan, loadFor, 0, 0, 3_000 * MS,
                    LogicalMerge.Flaw.NONE, -1, null, null, 0);
        }

        /**
         * S-SMR's deployment (seed 004 (S-SMR) §IV, §VI; seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5
         * §5.2): two partitions of three processes, ring 0 on {0, 1, 2} and ring 1 on {3, 4, 5}, the
         * global ring on all six (even: quorum 4, seed 003 §3.2); each process runs only its
         * partition's ring and the global ring, and its one or two learners subscribe to its own group
         * only; it multicasts to its own group alone or to both (the global ring). Kinds, λ, Δ, M,
         * rates and the hostile world as {@link #hostile}, but at most one process down at a time (each
         * partition's ring tolerates one failure).
         */
        static Scenario partitioned(long seed) {
            SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 29);
            int n = 6;
            int k = 2;
            int[][] procs = {{0, 1, 2}, {3, 4, 5}, {0, 1, 2, 3, 4, 5}};
            long lambda = 300 + r.nextInt(701);
            int deltaMs = 2 + r.nextInt(11);
            RingConfig[] configs = new RingConfig[k + 1];
            for (int i = 0; i <= k; i++) {
                Ring.Kind kind = r.nextBoolean() ? Ring.Kind.M_RING : Ring.Kind.U_RING;
                configs[i] = ringConfig(kind, procs[i].length, lambda, deltaMs);
            }
            double[] rates = new double[k];
            for (int g = 0; g < k; g++) {
                rates[g] = 20 + r.nextInt(41);
            }
            long[][] subs = new long[n][];
            for (int p = 0; p < n; p++) {
                subs[p] = new long[1 + r.nextInt(2)];
                java.util.Arrays.fill(subs[p], 1L << (p / 3));
            }
            DatagramPlan datagrams = new DatagramPlan(100_000, 4 * MS, 0.05, 0.03, configs[0].mringPacketBytes());
            FaultPlan plan = new FaultPlan(100_000, 4 * MS, 0.05, 0.03, 120 * MS, 1, true, 5 * MS, datagrams)
                    .withPartialPartitions(true);
            return new Scenario(n, k, configs, 1 + r.nextInt(4), rates, 10 + r.nextInt(31), subs, plan, 1_500 * MS,
                    300 * MS, 0.35, 3_000 * MS, LogicalMerge.Flaw.NONE, -1, null, procs, 0);
        }

        /** A ring's configuration: the ring simulations' small settings with λ and Δ. */
        /** A ring of the scenarios, with skips on demand on (opt-in in a replica): every scenario runs them. */
        static RingConfig ringConfig(Ring.Kind kind, int n, long lambda, int deltaMs) {
            return RingSimulation.Scenario.config(kind, n).lambda(lambda).skipInterval(Duration.ofMillis(deltaMs))
                    .set(dev.parallax.ringpaxos.RingKeys.SKIP_DEMAND, "on").build();
        }

        /** The same network with no loss, no duplication and no nemesis. */
        Scenario calm() {
            return withPlan(plan.withLoss(0, 0).withDatagrams(plan.datagrams().withLoss(0, 0)).withNemesis(0, 0, false));
        }

        Scenario withPlan(FaultPlan p) {
            return new Scenario(processes, groups, configs, roundLength, groupRates, multiRate, subscriptions, p,
                    faultyFor, loadAfterHeal, coordinatorShare, progressBound, flaw, flawedProcess, processFaults,
                    ringProcesses, snapshotEvery);
        }

        /** Every ring with {@code ring.skip.demand} on or off. */
        Scenario withSkipDemand(boolean on) {
            RingConfig[] changed = new RingConfig[configs.length];
            for (int i = 0; i < configs.length; i++) {
                changed[i] = configs[i].toBuilder().set(dev.parallax.ringpaxos.RingKeys.SKIP_DEMAND, on ? "on" : "off").build();
            }
            return new Scenario(processes, groups, changed, roundLength, groupRates, multiRate, subscriptions, plan,
                    faultyFor, loadAfterHeal, coordinatorShare, progressBound, flaw, flawedProcess, processFaults,
                    ringProcesses, snapshotEvery);
        }

        /** The learners of {@code process} merge with {@code f}. */
        Scenario withFlaw(LogicalMerge.Flaw f, int process) {
            return new Scenario(processes, groups, configs, roundLength, groupRates, multiRate, subscriptions, plan,
                    faultyFor, loadAfterHeal, coordinatorShare, progressBound, f, process, processFaults, ringProcesses,
                    snapshotEvery);
        }

        Scenario withRoundLength(int m) {
            return new Scenario(processes, groups, configs, m, groupRates, multiRate, subscriptions, plan,
                    faultyFor, loadAfterHeal, coordinatorShare, progressBound, flaw, flawedProcess, processFaults,
                    ringProcesses, snapshotEvery);
        }

        /**
         * Every process (those that join too) snapshots every {@code every} merged deliveries,
         * compacts its rings there and catches up by a peer's snapshot when a ring's log is trimmed
         * ({@link MultiRingProcess}). A snapshot is a replica's, so every process has the same single
         * learner, of every group (every ring merged, so every ring compacted).
         */
        Scenario withSnapshotEvery(int every) {
            if (every < 1) {
                throw new IllegalArgumentException("snapshots every " + every + " deliveries");
            }
            long[][] one = new long[processes][];
            for (int p = 0; p < processes; p++) {
                one[p] = new long[] {(1L << groups) - 1};
            }
            return new Scenario(processes, groups, configs, roundLength, groupRates, multiRate, one, plan,
                    faultyFor, loadAfterHeal, coordinatorShare, progressBound, flaw, flawedProcess, processFaults,
                    ringProcesses, every);
        }

        /**
         * How many process ids the world has room for: n, or every ring's {@code ring.member.ids} when
         * that is larger (processes that join by a membership change take the ids from n on).
         */
        int idSpace() {
            int ids = processes;
            for (RingConfig c : configs) {
                ids = Math.max(ids, c.idSpace());
            }
            return ids;
        }

        /**
         * Process {@code process}' member id in ring {@code r}, -1 if it runs no member of it. The
         * runtime's rule with membership changes on: process P[j] of the ring's initial processes P (in
         * increasing id) is member (j + r) mod |P| ({@link RingMulticast#ringMember}); a process id p of
         * n or above (a replica that joined later) is member p of every ring whose members may change.
         */
        int memberId(int r, int process) {
            if (process >= processes) {
                return configs[r].membershipChanges() && process < configs[r].idSpace() ? process : -1;
            }
            int[] procs = processesOf(r);
            boolean runs = java.util.Arrays.stream(procs).anyMatch(p -> p == process);
            return runs ? RingMulticast.ringMember(process, r, procs) : -1;
        }

        /** Ring {@code r}'s processes in increasing id (every process unless {@link #ringProcesses} says otherwise). */
        int[] processesOf(int r) {
            if (ringProcesses != null) {
                return ringProcesses[r];
            }
            int[] all = new int[processes];
            for (int p = 0; p < processes; p++) {
                all[p] = p;
            }
            return all;
        }
    }

    /** What a message's acceptance recorded: its origin incarnation and ring incarnation, and when. */
    record Accepted(int origin, int incarnation, int ring, long ringEpoch, long at) {
    }

    /**
     * What the processes share and report to across crashes: the storages of every ring's log, the
     * checker, the message registry, each ring's decided value ids, the learners' largest buffers;
     * with membership changes also the processes that joined (their ids and subscriptions), those
     * that departed, and whether a change is still under way. Owned by the simulation thread.
     */
    static final class World {
        final Scenario scenario;
        final MulticastDeliveryChecker checker = new MulticastDeliveryChecker();
        /** The processes' snapshots (a run with {@link Scenario#snapshotEvery}). */
        final MultiRingSnapshots snapshots = new MultiRingSnapshots();
        final Map<Long, Accepted> accepted = new TreeMap<>();
        final Map<String, Integer> maxBuffered = new TreeMap<>();
        final long loadStops;
        private final SplittableRandom random;
        private final InMemoryDurableLog.Storage[][] storages;
        private final long[][] ringEpochs;
        private final List<Map<Long, ValueId>> ringValues = new ArrayList<>();
        private final int[] incarnations;
        private final long[] clockOffsets;
        /** Every process of the run: the first n, then those that joined, in the order they joined. */
        private final List<Integer> processIds = new ArrayList<>();
        private final Map<Integer, long[]> joinedSubscriptions = new HashMap<>();
        private final java.util.Set<Integer> departed = new java.util.TreeSet<>();
        /** Whether a membership change is under way (the end waits for it); never without membership changes. */
        java.util.function.BooleanSupplier changing = () -> false;
        /** The membership changes' state, for failure messages. */
        java.util.function.Supplier<String> changes = () -> "";
        private long nextId;
        long refused;
        long skipsFed;
        long ringCrashes;

        World(Scenario scenario, SplittableRandom random) {
            this.scenario = scenario;
            this.random = random;
            int rings = scenario.groups() + 1;
            int ids = scenario.idSpace();
            this.storages = new InMemoryDurableLog.Storage[ids][rings];
            this.ringEpochs = new long[ids][rings];
            for (int p = 0; p < ids; p++) {
                for (int r = 0; r < rings; r++) {
                    storages[p][r] = new InMemoryDurableLog.Storage();
                }
            }
            for (int r = 0; r < rings; r++) {
                ringValues.add(new HashMap<>());
            }
            this.incarnations = new int[ids];
            this.clockOffsets = new long[ids];
            for (int p = 0; p < scenario.processes(); p++) {
                processIds.add(p);
            }
            this.loadStops = scenario.faultyFor() + scenario.loadAfterHeal();
        }

        /** How far {@code process}' clock runs ahead of the simulated time (its ring cores' {@code now}); 0 by default. */
        long clockOffset(int process) {
            return clockOffsets[process];
        }

        /**
         * From now on {@code process}' clock runs {@code offset} ahead of the simulated time (a clock
         * set wrong at start, or stepped forward by an operator or a time daemon).
         *
         * @throws IllegalArgumentException if that would move the process' clock backwards
         */
        void skewClock(int process, long offset) {
            if (offset < clockOffsets[process]) {
                throw new IllegalArgumentException("a clock that goes back: " + offset + " < " + clockOffsets[process]);
            }
            clockOffsets[process] = offset;
        }

        /** Every process of the run, the first n and then those that joined, in the order they joined. */
        List<Integer> processIds() {
            return java.util.Collections.unmodifiableList(processIds);
        }

        /**
         * Process {@code process} joins the run (a membership change's new replica, before it starts)
         * with learners of {@code subscriptions}.
         */
        void joined(int process, long[] subscriptions) {
            if (process < scenario.processes() || process >= scenario.idSpace() || processIds.contains(process)) {
                throw new IllegalArgumentException("process " + process + " cannot join");
            }
            processIds.add(process);
            joinedSubscriptions.put(process, subscriptions.clone());
        }

        /** The group bits of {@code process}' learners (with snapshots, those of the first process: one state machine). */
        long[] subscriptions(int process) {
            if (scenario.snapshotEvery() > 0) {
                return scenario.subscriptions()[0];
            }
            return process < scenario.processes() ? scenario.subscriptions()[process] : joinedSubscriptions.get(process);
        }

        /**
         * {@code process} leaves every ring and keeps running (a removal): from now on it multicasts
         * nothing, what it multicast is owed to nobody, and its learners are not required to progress
         * (they stay checked for what they deliver).
         */
        void depart(int process) {
            departed.add(process);
        }

        boolean departed(int process) {
            return departed.contains(process);
        }

        /** A random stream of its own for a process incarnation's workload (split in start order: deterministic). */
        SplittableRandom randomFor(int process) {
            return random.split();
        }

        /** Ring {@code r}'s log storage at {@code process} (survives crashes; {@link #crashed} makes it lose unsynced records). */
        InMemoryDurableLog.Storage storage(int process, int r) {
            return storages[process][r];
        }

        /** Ring {@code r}'s log at {@code process} crashes: it keeps its synced records and a random number of the others. */
        void crashStorage(int process, int r) {
            InMemoryDurableLog.Storage s = storages[process][r];
            s.crash(random.nextInt(s.unsyncedCount() + 1));
        }

        /** Process {@code process} started incarnation {@code incarnation}. */
        void started(int process, int incarnation, MultiRingProcess node) {
            incarnations[process] = incarnation;
        }

        /** The process restarts: each ring's log loses what a crash may lose (the simulator crashed only the node's own log). */
        void crashed(int process) {
            for (int r = 0; r <= scenario.groups(); r++) {
                crashStorage(process, r);
                ringEpochs[process][r]++;
            }
        }

        void ringCrashed(int process, int r) {
            ringEpochs[process][r]++;
            ringCrashes++;
        }

        long nextMessageId() {
            return nextId++;
        }

        void accepted(long id, int origin, int incarnation, int ring, long now) {
            accepted.put(id, new Accepted(origin, incarnation, ring, ringEpochs[origin][ring], now));
        }

        /** One value per (ring, instance) at every process. */
        void ringDecided(int process, int r, long instance, ValueId vid) {
            ValueId before = ringValues.get(r).putIfAbsent(instance, vid);
            if (before != null && !before.equals(vid)) {
                throw new AssertionError("ring " + r + " agreement: process " + process + " decided " + vid + " at "
                        + instance + ", another process " + before);
            }
        }

        void buffered(String learner, int buffered) {
            maxBuffered.merge(learner, buffered, Math::max);
        }

        /** Messages whose origin incarnation (and its ring) is still up: they must be delivered. */
        List<Long> required(Simulation<Object> sim) {
            List<Long> out = new ArrayList<>();
            accepted.forEach((id, a) -> {
                if (sim.isUp(a.origin()) && !departed(a.origin()) && incarnations[a.origin()] == a.incarnation()
                        && ringEpochs[a.origin()][a.ring()] == a.ringEpoch()) {
                    out.add(id);
                }
            });
            return out;
        }

        /** The learners of the processes up now (but those that departed). */
        List<MulticastDeliveryChecker.Learner> liveLearners(Simulation<Object> sim) {
            List<MulticastDeliveryChecker.Learner> out = new ArrayList<>();
            for (int p : processIds) {
                if (sim.isUp(p) && !departed(p)) {
                    out.addAll(sim.<MultiRingProcess>node(p).learnerRecords());
                }
            }
            return out;
        }

        /** The up process that coordinates ring {@code r} in the highest round, or -1. */
        int coordinatorOf(Simulation<Object> sim, int r) {
            int coordinator = -1;
            long round = -1;
            for (int p : processIds) {
                if (sim.isUp(p) && sim.<MultiRingProcess>node(p).ringUp(r)) {
                    var core = sim.<MultiRingProcess>node(p).core(r);
                    if (core.isCoordinator() && core.round() > round) {
                        round = core.round();
                        coordinator = p;
                    }
                }
            }
            return coordinator;
        }

        String describe(Simulation<Object> sim) {
            StringBuilder sb = new StringBuilder();
            for (int p : processIds) {
                sb.append("\n  process ").append(p).append(departed(p) ? " (departed)" : "").append(':');
                sb.append(sim.isUp(p) ? sim.<MultiRingProcess>node(p).describe() : " down");
            }
            return sb.toString();
        }
    }

    /** What a run produced. */
    record Outcome(long seed, World world, SimulationStats stats, int multicasts, int required, long delivered,
                   long traceHash) {
    }

    static Outcome run(long seed, Scenario s) {
        return run(seed, s, (sim, world) -> { });
    }

    /**
     * A run of {@code s}; {@code setup} may add scripted faults and observers once the processes
     * exist (drawing no random number from the simulation).
     */
    static Outcome run(long seed, Scenario s, BiConsumer<Simulation<Object>, World> setup) {
        return start(seed, s, setup).finish();
    }

    /** The processes of {@code s} started (time 0), {@code setup} applied; drive it with {@link Run}. */
    static Run start(long seed, Scenario s, BiConsumer<Simulation<Object>, World> setup) {
        return start(seed, s, new long[s.processes()], setup);
    }

    /**
     * As {@link #start(long, Scenario, BiConsumer)}, with process {@code p}'s clock running
     * {@code clockOffsets[p]} ahead of the simulated time from its start ({@link World#skewClock}).
     */
    static Run start(long seed, Scenario s, long[] clockOffsets, BiConsumer<Simulation<Object>, World> setup) {
        Simulation<Object> sim = new Simulation<>(seed, s.plan());
        World world = new World(s, sim.random().split());
        world.snapshots.liveness(sim::isUp);
        for (int p = 0; p < s.processes(); p++) {
            world.skewClock(p, clockOffsets[p]);
        }
        sim.measureDatagramsWith(m -> RingSimReplica.datagramBytes(((MultiRingProcess.RingMessage) m).message()));
        for (int p = 0; p < s.processes(); p++) {
            sim.addNode(p, processes(world), true);
        }
        setup.accept(sim, world);
        int[] hunted = {0};
        sim.targetLeader(() -> world.coordinatorOf(sim, hunted[0]++ % (s.groups() + 1)), s.coordinatorShare());
        sim.processFaults(s.processFaults());
        return new Run(seed, sim, world);
    }

    /**
     * What starts a process of {@code world} (a restart first makes each of its rings' logs lose what
     * a crash may lose), for the first n and for those that join ({@link World#joined}).
     */
    static NodeFactory<Object> processes(World world) {
        return ctx -> {
            if (ctx.incarnation() > 0) {
                world.crashed(ctx.id());
            }
            return new MultiRingProcess(ctx, world);
        };
    }

    /** A started run: its simulation and world, and the end of the run with every check. */
    record Run(long seed, Simulation<Object> sim, World world) {

        /**
         * Runs to the end of the faulty period, heals, runs until the load stops, then requires every
         * live learner to have every message it must deliver, and any membership change under way to
         * be carried through ({@link World#changing}), within the progress bound; checks the acyclic
         * order and agreement.
         */
        Outcome finish() {
            Scenario s = world.scenario;
            sim.runUntil(s.faultyFor());
            sim.stopFaults();
            sim.runUntil(world.loadStops);
            long deadline = world.loadStops + s.progressBound();
            long[] lastCheck = {-1};
            boolean done = sim.runUntil(() -> {
                if (sim.now() - lastCheck[0] < 5 * MS) {
                    return false;
                }
                lastCheck[0] = sim.now();
                if (world.changing.getAsBoolean()) {
                    return false;
                }
                List<Long> required = world.required(sim);
                return world.liveLearners(sim).stream().allMatch(l -> world.checker.missing(l, required).isEmpty());
            }, deadline);
            List<Long> required = world.required(sim);
            if (!done) {
                world.checker.assertAcyclic();
                if (world.changing.getAsBoolean()) {
                    throw sim.failure("membership: a change still under way " + (s.progressBound() / MS)
                            + " ms after the load stopped; " + world.changes.get() + "; " + sim.stats() + world.describe(sim));
                }
                for (MulticastDeliveryChecker.Learner l : world.liveLearners(sim)) {
                    List<Long> missing = world.checker.missing(l, required);
                    if (!missing.isEmpty()) {
                        throw sim.failure("validity: " + (s.progressBound() / MS) + " ms after the load stopped " + l
                                + " still misses " + missing.size() + " messages of its groups (first "
                                + missing.subList(0, Math.min(5, missing.size())) + ", accepted "
                                + world.accepted.get(missing.get(0)) + "); " + sim.stats() + world.describe(sim)
                                + world.changes.get());
                    }
                }
            }
            world.checker.assertAcyclic();
            world.checker.assertComplete(world.liveLearners(sim), required);
            long delivered = world.checker.learners().stream().mapToLong(l -> l.order().size()).sum();
            return new Outcome(seed, world, sim.stats(), world.checker.multicasts(), required.size(), delivered,
                    sim.traceHash());
        }
    }
}
