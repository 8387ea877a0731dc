package dev.parallax.core.testkit.smr;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.check.Verdict;
import dev.parallax.core.testkit.Simulation;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The second half of every replicated-KV simulation run (Multi-Paxos, S-Paxos, Ring Paxos): run
 * the faulty period, require a pending client operation at the heal, stop the faults, arm the
 * {@link ProgressMonitor}, then require every client answered within 8 s (virtual) and every
 * replica converged to one decided prefix within 3 s more, with equal states; finally the history
 * must be linearizable — and when anything before failed, a history that is already not
 * linearizable is reported first. The simulation's draws happen in the order the protocols' own
 * run loops made them (this is that loop, moved), so pinned seeds and trace hashes replay.
 *
 * <p>Threads: the test thread that drives the simulation; blocks only as long as the simulation
 * runs.
 */
public final class HealAndCheck {
    private static final long MS = 1_000_000L;
    private static final long LIVENESS_NANOS = 8_000 * MS;
    private static final long CONVERGENCE_NANOS = 3_000 * MS;

    /**
     * The protocol's view of its replicas, nodes {@code 0 .. count - 1} of the simulation.
     *
     * @param count     how many replicas
     * @param noun      what a replica is called in failure messages ("replica", "member")
     * @param converged whether every replica applied the same decided prefix and is settled
     * @param describe  each replica's progress, for failure messages
     * @param state     replica {@code r}'s state machine state
     * @param ids       the replicas whose states must agree once converged (the members at the end,
     *                  when a membership changes during the run)
     */
    public record Replicas(int count, String noun, BooleanSupplier converged, Supplier<String> describe,
                           IntFunction<Map<String, String>> state, Supplier<int[]> ids) {
        public Replicas {
            Objects.requireNonNull(noun);
            Objects.requireNonNull(converged);
            Objects.requireNonNull(describe);
            Objects.requireNonNull(state);
            Objects.requireNonNull(ids);
        }

        /** Replicas {@code 0 .. count - 1}, a membership that never changes. */
        public Replicas(int count, String noun, BooleanSupplier converged, Supplier<String> describe,
                        IntFunction<Map<String, String>> state) {
            this(count, noun, converged, describe, state, () -> java.util.stream.IntStream.range(0, count).toArray());
        }
    }

    /**
     * What the run found.
     *
     * @param pendingAtHeal client operations pending when the faults healed (at least 1)
     * @param lin           the linearizability check of the whole history (not NOT_LINEARIZABLE)
     */
    public record Result(int pendingAtHeal, CheckResult lin) {
    }

    private HealAndCheck() {
    }

    /**
     * Runs the simulation from now through the faulty period and the heal, and checks (see the
     * class comment).
     *
     * @param faultyFor     when the faults stop (virtual nanoseconds)
     * @param progressBound after the heal, the longest a proposed command may wait for its decision
     * @param checkSteps    the linearizability checker's step budget
     * @throws AssertionError on the first property violated
     */
    public static Result run(Simulation<Object> sim, List<Integer> clientIds, long faultyFor, ProgressMonitor progress,
                             long progressBound, Replicas replicas, HistoryRecorder<KvOp, String> history,
                             long checkSteps) {
        Objects.requireNonNull(replicas, "replicas");
        int pendingAtHeal;
        String noun = replicas.noun();
        try {
            sim.runUntil(faultyFor);
            pendingAtHeal = (int) clientIds.stream().filter(id -> sim.<SimClient>node(id).hasOutstanding()).count();
            if (pendingAtHeal == 0) {
                throw sim.failure("no client operation was pending when the faults healed: the faults hit an idle cluster");
            }
            sim.stopFaults();
            long healedAt = sim.now();
            progress.arm(healedAt, progressBound);
            boolean clientsDone = sim.runUntil(() -> clientIds.stream().allMatch(id -> sim.isUp(id)
                    && sim.<SimClient>node(id).done()), healedAt + LIVENESS_NANOS);
            if (!clientsDone) {
                throw sim.failure("liveness: client commands still unanswered 8 s (virtual) after faults stopped; "
                        + sim.stats() + "; " + replicas.describe().get() + clientIds.stream()
                        .map(id -> sim.<SimClient>node(id).toString()).toList());
            }
            boolean converged = sim.runUntil(replicas.converged(), sim.now() + CONVERGENCE_NANOS);
            if (!converged) {
                throw sim.failure(noun + "s did not converge to one decided prefix: " + replicas.describe().get());
            }
            int[] ids = replicas.ids().get();
            Map<String, String> reference = replicas.state().apply(ids[0]);
            for (int k = 1; k < ids.length; k++) {
                int r = ids[k];
                if (!Objects.equals(reference, replicas.state().apply(r))) {
                    throw new AssertionError(noun + " " + r + " state " + replicas.state().apply(r)
                            + " differs from " + noun + " " + ids[0] + " state " + reference + " at the same applied index");
                }
            }
        } catch (AssertionError failure) {
            // Whatever else failed (safety, progress, liveness), a history that is already not
            // linearizable is the first thing to report: the checker bites even in runs that
            // cannot reach the end (a broken replica may also break the clients' sessions).
            CheckResult partial = LinearizabilityChecker.check(new KvModel(), history.history(),
                    CheckBudget.ofSteps(checkSteps));
            if (partial.verdict() == Verdict.NOT_LINEARIZABLE) {
                throw new AssertionError("history is not linearizable (checked when the run failed: "
                        + failure.getMessage().lines().findFirst().orElse("") + "):\n" + partial, failure);
            }
            throw failure;
        }
        CheckResult lin = LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofSteps(checkSteps));
        if (lin.verdict() == Verdict.NOT_LINEARIZABLE) {
            throw new AssertionError("history is not linearizable:\n" + lin);
        }
        return new Result(pendingAtHeal, lin);
    }
}
