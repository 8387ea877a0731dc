package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.SpeculativeStateMachine;
import dev.parallax.core.StateMachine;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.session.ClientSessions;
import dev.parallax.core.speculation.SpeculationLedger;
import dev.parallax.core.speculation.SpeculativeBatches;
import dev.parallax.core.spi.Executor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.ByteBuffer;

/**
 * The {@link ServiceManager}'s speculative execution (seed 003 (Marandi thesis) §4.2.1): a
 * {@link SpeculationLedger} over {@link SpeculativeBatches}, fed the broadcast's tentative
 * positions, revocations and decisions. It exists only for a state machine that opts in
 * ({@link SpeculativeStateMachine}) run by the sequential executor on one total order; any other
 * replica delivers plainly ({@link #create} returns null) whatever the protocol sends.
 *
 * <p>Meters (commands, tagged {@code replica}): {@code parallax.speculation.executed} (run
 * speculatively, re-runs included), {@code parallax.speculation.confirmed} (their speculative
 * result became final), {@code parallax.speculation.rolledback} (undone).
 *
 * <p>Threads: every method on the delivery thread (or the query thread), under the
 * ServiceManager's lock; never blocks by itself.
 */
final class ReplicaSpeculation {
    private final SpeculationLedger<SpeculativeBatches.Batch> ledger;
    private final SpeculativeBatches batches;

    private final Plain fatal;

    private ReplicaSpeculation(SpeculativeBatches batches, long frontier, Plain fatal) {
        this.fatal = fatal;
        this.batches = batches;
        this.ledger = new SpeculationLedger<>(batches, frontier);
    }

    /**
     * The speculation of a replica whose {@code stateMachine} opts in and whose {@code executor} is
     * sequential over one total order ({@code perWorker} false); null otherwise (plain delivery).
     */
    static ReplicaSpeculation create(StateMachine stateMachine, Executor executor, boolean perWorker,
                                     ClientSessions sessions, Plain manager, MeterRegistry registry, int replica) {
        if (!(stateMachine instanceof SpeculativeStateMachine s) || !(executor instanceof SequentialExecutor) || perWorker) {
            return null;
        }
        SpeculativeBatches batches = new SpeculativeBatches(sessions, c -> s.executeSpeculatively(c.payload()),
                serviceOf(manager), false);
        ReplicaSpeculation r = new ReplicaSpeculation(batches, 0, manager);
        String id = Integer.toString(replica);
        FunctionCounter.builder("parallax.speculation.executed", batches, SpeculativeBatches::commandsRun)
                .description("commands executed speculatively on their Phase 2A position (re-executions included)")
                .tag("replica", id).register(registry);
        FunctionCounter.builder("parallax.speculation.confirmed", batches, SpeculativeBatches::commandsConfirmed)
                .description("speculatively executed commands whose position was decided as guessed: answered from "
                        + "the speculative run").tag("replica", id).register(registry);
        FunctionCounter.builder("parallax.speculation.rolledback", batches, SpeculativeBatches::commandsUndone)
                .description("speculatively executed commands undone (coordinator change, another decision, a "
                        + "snapshot or query needing decided state)").tag("replica", id).register(registry);
        return r;
    }

    /** A tentative value at {@code position} (null: a no-op). */
    void tentative(long position, ByteBuffer value) {
        step(() -> ledger.tentative(position, value));
    }

    /** Tentatives at or past {@code from} may be decided otherwise. */
    void revoked(long from) {
        step(() -> ledger.revoke(from));
    }

    /** {@code position} decided as {@code value} (null: a no-op): confirmed, or delivered plainly. */
    void decided(long position, ByteBuffer value) {
        step(() -> ledger.decided(position, value));
    }

    /** Undo every speculative command (before a snapshot capture or a query). */
    void suspend() {
        step(ledger::suspend);
    }

    /** Re-execute what {@link #suspend} undid. */
    void resume() {
        step(ledger::resume);
    }

    /** A snapshot covering every position below {@code instance} is about to be restored. */
    void reset(long instance) {
        step(() -> ledger.reset(instance));
    }

    /**
     * An {@link Error} from the state machine stops the replica, as in plain execution; so does a
     * {@link RuntimeException} that escapes (an undo that threw breaks the contract): the state can
     * no longer be trusted equal to the other replicas'.
     */
    private void step(Runnable step) {
        try {
            step.run();
        } catch (Error | RuntimeException e) {
            fatal.onFatal(null, e);
        }
    }

    /** Commands run speculatively (tests). */
    long executed() {
        return batches.commandsRun();
    }

    /** The plain path of {@code manager} as the batches' {@link SpeculativeBatches.Service}. */
    private static SpeculativeBatches.Service serviceOf(Plain manager) {
        return new SpeculativeBatches.Service() {
            @Override
            public boolean admit(Command command) {
                return manager.admit(command);
            }

            @Override
            public void executed(Command command, CommandResult result) {
                manager.onResult(command, result);
            }

            @Override
            public void execute(Command command) {
                try {
                    manager.execute(command);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void deliver(long position, ByteBuffer batch) {
                try {
                    manager.apply(batch, position);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** What the ServiceManager offers the speculation: its plain path, and its fail-stop. */
    interface Plain {
        boolean admit(Command command);

        void onResult(Command command, CommandResult result);

        boolean execute(Command command) throws InterruptedException;

        void apply(ByteBuffer batch, long position) throws InterruptedException;

        void onFatal(Command command, Throwable error);
    }
}
