package dev.parallax.paxos.sim;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.testkit.FaultPlan;
import dev.parallax.core.testkit.Simulation;
import dev.parallax.paxos.PaxosConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * One seeded Multi-Paxos run: n replicas and a few closed-loop KV clients under a fault plan for a
 * while, then faults stop; checks liveness (every client operation completes in bounded virtual
 * time), convergence (replicas reach the same decided prefix and state) and linearizability of the
 * clients' history. Safety (agreement, validity, at-most-once execution, in-order delivery) is
 * checked on every decision as it happens.
 */
final class PaxosSimulation {
    static final long MS = 1_000_000L;

    /** Knobs of one scenario. */
    record Scenario(int replicas, int clients, int opsPerClient, long faultyFor, FaultPlan plan, PaxosConfig config,
                    int snapshotEvery) {
        static Scenario hostile(int replicas) {
            int f = (replicas - 1) / 2;
            PaxosConfig config = PaxosConfig.builder(replicas)
                    .window(4)
                    .batchBytes(160)
                    .batchTimeout(Duration.ofMillis(2))
                    .heartbeat(Duration.ofMillis(40))
                    .suspect(Duration.ofMillis(200))
                    .retransmit(Duration.ofMillis(60))
                    .catchUp(Duration.ofMillis(40))
                    .catchUpMaxInstances(16)
                    .build();
            FaultPlan plan = new FaultPlan(100_000, 4 * MS, 0.05, 0.03, 120 * MS, f, true, 5 * MS);
            return new Scenario(replicas, 3, 10, 1_500 * MS, plan, config, 0);
        }

        /** The hostile scenario where every replica snapshots and compacts its log every few instances. */
        static Scenario hostileWithSnapshots(int replicas) {
            Scenario h = hostile(replicas);
            return new Scenario(replicas, 3, 14, h.faultyFor(), h.plan(), h.config(), 3);
        }
    }

    /** What a run produced, for assertions and reports. */
    record Outcome(long seed, CheckResult linearizability, long decisions, int instances, long events, String stats,
                   long snapshotInstalls) {
    }

    private PaxosSimulation() {
    }

    static Outcome run(long seed, Scenario s) {
        Simulation<Object> sim = new Simulation<>(seed, s.plan());
        SafetyMonitor safety = new SafetyMonitor();
        SnapshotShelf shelf = new SnapshotShelf();
        for (int r = 0; r < s.replicas(); r++) {
            sim.addNode(r, ctx -> new SimReplica(ctx, s.config(), safety, shelf, s.snapshotEvery()), true);
        }
        HistoryRecorder<KvOp, String> history = new HistoryRecorder<>(sim::now);
        SplittableRandom workload = sim.random().split();
        List<Integer> clientIds = new ArrayList<>();
        for (int c = 0; c < s.clients(); c++) {
            int id = 100 + c;
            clientIds.add(id);
            List<KvOp> ops = randomOps(workload, id, s.opsPerClient());
            long clientSeed = workload.nextLong();
            sim.addNode(id, ctx -> new SimClient(ctx, s.replicas(), ops, history, 150 * MS, 10 * MS, clientSeed), false);
        }

        sim.runUntil(s.faultyFor());
        sim.stopFaults();
        long healedAt = sim.now();
        boolean clientsDone = sim.runUntil(() -> clientIds.stream().allMatch(id -> sim.isUp(id)
                && sim.<SimClient>node(id).done()), healedAt + 8_000 * MS);
        if (!clientsDone) {
            throw sim.failure("liveness: client operations still pending 8 s (virtual) after faults stopped; "
                    + sim.stats() + "; " + appliedCounts(sim, s.replicas()));
        }
        boolean converged = sim.runUntil(() -> converged(sim, s.replicas()), sim.now() + 3_000 * MS);
        if (!converged) {
            throw sim.failure("replicas did not converge to one decided prefix: " + appliedCounts(sim, s.replicas()));
        }
        Map<String, String> reference = sim.<SimReplica>node(0).state();
        for (int r = 1; r < s.replicas(); r++) {
            if (!Objects.equals(reference, sim.<SimReplica>node(r).state())) {
                throw new AssertionError("replica " + r + " state " + sim.<SimReplica>node(r).state()
                        + " differs from replica 0 state " + reference + " at the same applied index");
            }
        }
        CheckResult lin = LinearizabilityChecker.check(new KvModel(), history.history());
        if (!lin.isLinearizable()) {
            throw new AssertionError("history is not linearizable:\n" + lin);
        }
        return new Outcome(seed, lin, safety.decisions(), safety.instances(), sim.stats().events(), sim.stats().toString(),
                shelf.installs());
    }

    private static boolean converged(Simulation<Object> sim, int replicas) {
        long applied = sim.<SimReplica>node(0).applied();
        for (int r = 1; r < replicas; r++) {
            if (sim.<SimReplica>node(r).applied() != applied) {
                return false;
            }
        }
        return true;
    }

    private static String appliedCounts(Simulation<Object> sim, int replicas) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < replicas; r++) {
            sb.append(r).append(": applied ").append(sim.<SimReplica>node(r).applied())
                    .append(", view ").append(sim.<SimReplica>node(r).core().view()).append("; ");
        }
        return sb.toString();
    }

    private static List<KvOp> randomOps(SplittableRandom rnd, int client, int count) {
        String[] keys = {"a", "b", "c"};
        List<KvOp> ops = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            String key = keys[rnd.nextInt(keys.length)];
            int kind = rnd.nextInt(10);
            if (kind < 4) {
                ops.add(KvOp.get(key));
            } else if (kind < 6) {
                ops.add(KvOp.put(key, client + "." + k));
            } else {
                ops.add(KvOp.append(key, "," + client + "." + k));
            }
        }
        return ops;
    }
}
