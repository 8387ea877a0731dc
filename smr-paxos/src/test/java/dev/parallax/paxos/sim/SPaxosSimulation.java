package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.core.testkit.smr.AmnesiaPlan;
import dev.parallax.core.testkit.smr.WireBytes;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosMessageCodec;
import dev.parallax.paxos.spaxos.BatchId;
import dev.parallax.paxos.spaxos.DisseminationCodec;
import dev.parallax.paxos.spaxos.DisseminationMessage;
import dev.parallax.paxos.spaxos.SPaxosConfig;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * One seeded S-Paxos run (seed 002 (S-Paxos) §IV): the Multi-Paxos harness ({@link PaxosSimulation}:
 * the same scenarios, nemesis, clients, liveness, convergence and linearizability checks) over
 * {@link SPaxosSimReplica}s, plus the S-Paxos monitors shared by the run's replicas
 * ({@link Shared}: {@link ExecutionMonitor}, {@link BodyMonitor}, the stable ids for validity, the
 * body store's high-water mark and bound, the cores' event counts).
 *
 * <p>The S-Paxos settings are small so that the runs reach the corners: client batches of at most
 * 160 bytes (a few commands), at most 4 ids per ordered value, B = 16 undecided batches per origin
 * (receivers keep 2B per origin and incarnation), Δ = 50 ms, explicit acks after 1 ms quiet and
 * every 100 ms when idle; ordering uses the scenario's Multi-Paxos settings.
 *
 * <p>Not thread-safe: one test thread per run.
 */
final class SPaxosSimulation {
    static final int MAX_UNDECIDED = 16;
    static final int IDS_PER_VALUE = 4;

    private SPaxosSimulation() {
    }

    /** The S-Paxos configuration of a scenario: its Multi-Paxos settings order the ids. */
    static SPaxosConfig config(PaxosSimulation.Scenario s) {
        return SPaxosConfig.builder(s.replicas())
                .paxos(s.config())
                .batchBytes(160)
                .batchTimeout(Duration.ofMillis(2))
                .idsPerValue(IDS_PER_VALUE)
                .maxUndecidedPerOrigin(MAX_UNDECIDED)
                .resendDelay(Duration.ofMillis(50))
                .ackInterval(Duration.ofMillis(1))
                .ackRefresh(Duration.ofMillis(100))
                .build();
    }

    /**
     * What a run's replicas share and report to, across crashes: the S-Paxos monitors, the event
     * counts of every core incarnation, the body store's high-water mark (checked against
     * {@code bodyBound} on every step when it is set), a hook for FORWARD arrivals, and the
     * delivery-state mutation switch. Owned by the simulation thread.
     */
    static final class Shared {
        final ExecutionMonitor<BatchId> execution = new ExecutionMonitor<>();
        final BodyMonitor<BatchId> bodies = new BodyMonitor<>();
        final Set<BatchId> stable = new HashSet<>();
        final Map<String, Long> events = new TreeMap<>();
        /** Mutation: snapshots are installed without their delivery state (a runtime without R2). */
        boolean emptyDeliveryStateOnInstall;
        /** The most bodies any replica may hold after a step (0: not checked). */
        long bodyBound;
        long maxHeldBodies;
        long maxHeldBytes;
        /** Called when a FORWARD arrives: (from, to, id). */
        ForwardListener onForward;

        /** A FORWARD arrival, for scripted faults. */
        @FunctionalInterface
        interface ForwardListener {
            void arrived(int from, int to, BatchId id);
        }

        void held(int heldBodies, long heldBytes) {
            maxHeldBodies = Math.max(maxHeldBodies, heldBodies);
            maxHeldBytes = Math.max(maxHeldBytes, heldBytes);
            if (bodyBound > 0 && heldBodies > bodyBound) {
                throw new AssertionError("body store: a replica holds " + heldBodies + " bodies, above the bound "
                        + bodyBound);
            }
        }

        void forwardArrived(int from, int to, BatchId id) {
            if (onForward != null) {
                onForward.arrived(from, to, id);
            }
        }

        /** The summed count of core event {@code name} over every replica incarnation (as of its last tick). */
        long event(String name) {
            return events.getOrDefault(name, 0L);
        }
    }

    /** A run's outcome and what its S-Paxos monitors saw. */
    record Result(PaxosSimulation.Outcome outcome, Shared shared) {
    }

    /**
     * Extra wiring of a run: scripted faults and checks with access to the shared monitors; clients
     * spread or not; puts padded or not ({@link PaxosSimulation.Wiring}).
     */
    record Options(BiConsumer<Simulation<Object>, Shared> setup, boolean spreadClients, int putBytes, boolean queries) {
        static final Options NONE = new Options((sim, shared) -> { }, false, 0, false);

        Options with(BiConsumer<Simulation<Object>, Shared> more) {
            return new Options(setup.andThen(more), spreadClients, putBytes, queries);
        }

        Options spreadingClients() {
            return new Options(setup, true, putBytes, queries);
        }

        Options withPutBytes(int bytes) {
            return new Options(setup, spreadClients, bytes, queries);
        }

        /** Clients send their gets as queries (read-index) to a replica drawn for each. */
        Options readingByQueries() {
            return new Options(setup, spreadClients, putBytes, true);
        }
    }

    static Result run(long seed, PaxosSimulation.Scenario s) {
        return run(seed, s, null, Options.NONE);
    }

    static Result run(long seed, PaxosSimulation.Scenario s, AmnesiaPlan amnesia, Options options) {
        return run(seed, s, amnesia, options, null);
    }

    /** A run whose membership changes as {@code membership} says ({@link MembershipNemesis}; null: it does not). */
    static Result run(long seed, PaxosSimulation.Scenario s, AmnesiaPlan amnesia, Options options,
                      PaxosSimulation.MembershipPlan membership) {
        Shared shared = new Shared();
        SPaxosConfig config = config(s);
        PaxosSimulation.Wiring wiring = new PaxosSimulation.Wiring(
                (ctx, sc, m) -> new SPaxosSimReplica(ctx, config, m, shared, sc.snapshotEvery()),
                sim -> options.setup().accept(sim, shared), options.spreadClients(), options.putBytes(), options.queries());
        PaxosSimulation.Outcome o = PaxosSimulation.run(seed, s, amnesia, wiring, membership);
        return new Result(o, shared);
    }

    /** Bytes on the wire of a replica-to-replica S-Paxos or Multi-Paxos message (codec size). */
    static WireBytes wireBytes(int replicas) {
        DisseminationCodec dissemination = new DisseminationCodec(replicas);
        PaxosMessageCodec paxos = new PaxosMessageCodec();
        return new WireBytes(replicas, m -> m instanceof DisseminationMessage d ? WireBytes.codecSize(dissemination, d)
                : WireBytes.codecSize(paxos, (PaxosMessage) m));
    }
}
