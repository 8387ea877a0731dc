package dev.parallax.core.speculation;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.SpeculativeStateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.session.ClientSessions;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link SpeculationLedger.Host} of a replica's service (seed 003 (Marandi thesis) §4.2.1):
 * one position is a batch of commands ({@link CommandBatch}). Executing it speculatively guesses
 * each command's session verdict without touching the replicated {@link ClientSessions} (the
 * decided table, plus what speculated commands before it advanced), runs the commands guessed
 * {@code EXECUTE} through the {@link Runner} and keeps their replies and undos. Confirming admits
 * each command for real, in order: while the verdicts match the guesses the kept replies become the
 * results (stored, answered: never before the decision); at the first that does not (a session
 * evicted meanwhile), every later position and the rest of this batch are undone and the batch goes
 * on the plain path from there. Session verdicts and cached replies thus stay exactly those of a
 * replica that never speculates.
 *
 * <p>Not thread-safe: driven by the ledger's thread.
 */
public final class SpeculativeBatches implements SpeculationLedger.Host<SpeculativeBatches.Batch> {

    /** Runs one command speculatively ({@link SpeculativeStateMachine#executeSpeculatively} on its payload). */
    @FunctionalInterface
    public interface Runner {
        /**
         * @throws RuntimeException to reject the command (state unchanged): it is answered with the error
         */
        SpeculativeStateMachine.Execution run(Command command);
    }

    /** The plain (decided) path of the service. */
    public interface Service {
        /** Admits {@code command} through its session for real, acting on any verdict but EXECUTE; true to execute. */
        boolean admit(Command command);

        /** An admitted command's final result (kept from its speculative run): store, count, answer. */
        void executed(Command command, CommandResult result);

        /** Runs an admitted command plainly. */
        void execute(Command command);

        /** Delivers a whole decided batch plainly. */
        void deliver(long position, ByteBuffer batch);

        /**
         * Test-only (the mutation {@code answerEarly}): {@code command} was answered as soon as it ran
         * speculatively, before its position was decided.
         */
        default void answeredEarly(Command command, CommandResult result) {
        }
    }

    /** One command of a speculated batch: whether it was guessed to execute, and if so its result and undo. */
    private record Ran(Command command, boolean guessed, CommandResult result, Runnable undo) {
    }

    /** What ran at one position; {@code commands} null for bytes that are no batch (delivered plainly). */
    public static final class Batch {
        private final ByteBuffer bytes;
        private final List<Ran> commands;

        private Batch(ByteBuffer bytes, List<Ran> commands) {
            this.bytes = bytes;
            this.commands = commands;
        }

        /** How many commands of the batch ran speculatively. */
        public int ran() {
            int n = 0;
            if (commands != null) {
                for (Ran r : commands) {
                    n += r.guessed ? 1 : 0;
                }
            }
            return n;
        }
    }

    private record Stream(long clientId, long groups) {
    }

    private final ClientSessions sessions;
    private final Runner runner;
    private final Service service;
    private final boolean answerEarly;
    /** The next sequence of each stream as the speculated commands left it (over the decided table). */
    private final Map<Stream, Long> guessedNext = new HashMap<>();
    /** Speculated batches neither confirmed nor undone. */
    private int live;
    private long commandsRun;
    private long commandsConfirmed;
    private long commandsUndone;

    /**
     * @param answerEarly test-only mutation: answer each command as soon as it runs speculatively
     *                    (before the decision), to show that the simulation's checks bite; false in
     *                    production
     */
    public SpeculativeBatches(ClientSessions sessions, Runner runner, Service service, boolean answerEarly) {
        this.sessions = java.util.Objects.requireNonNull(sessions, "sessions");
        this.runner = java.util.Objects.requireNonNull(runner, "runner");
        this.service = java.util.Objects.requireNonNull(service, "service");
        this.answerEarly = answerEarly;
    }

    @Override
    public Batch execute(long position, ByteBuffer value) {
        List<Command> decoded;
        try {
            decoded = CommandBatch.decode(value.duplicate());
        } catch (IllegalArgumentException notABatch) {
            live++;
            return new Batch(value, null);
        }
        List<Ran> ran = new ArrayList<>(decoded.size());
        for (Command c : decoded) {
            Stream s = new Stream(c.id().clientId(), c.groups().bits());
            Long guessed = guessedNext.get(s);
            long next = guessed != null ? guessed : sessions.next(c.id().clientId(), c.groups());
            if (c.id().sequence() != next) {
                ran.add(new Ran(c, false, null, null));
                continue;
            }
            CommandResult result;
            Runnable undo;
            try {
                SpeculativeStateMachine.Execution e = runner.run(c);
                result = CommandResult.ok(e.reply());
                undo = e.undo();
            } catch (RuntimeException rejected) {
                result = CommandResult.failed(rejected);
                undo = SpeculativeStateMachine.Execution.NOTHING;
            }
            guessedNext.put(s, next + 1);
            ran.add(new Ran(c, true, result, undo));
            commandsRun++;
            if (answerEarly) {
                service.answeredEarly(c, result);
            }
        }
        live++;
        return new Batch(value, ran);
    }

    @Override
    public void undo(long position, Batch executed) {
        if (executed.commands != null) {
            undoFrom(executed.commands, 0);
        }
        settle();
    }

    @Override
    public void confirm(long position, Batch executed, Runnable rollbackLater) {
        if (executed.commands == null) {
            settle();
            service.deliver(position, executed.bytes.duplicate());
            return;
        }
        List<Ran> cs = executed.commands;
        for (int i = 0; i < cs.size(); i++) {
            Ran r = cs.get(i);
            boolean admitted = service.admit(r.command);
            if (admitted == r.guessed) {
                if (admitted) {
                    commandsConfirmed++;
                    service.executed(r.command, r.result);
                }
                continue;
            }
            // The guess did not hold: back to the decided state after command i's admission, then plain.
            rollbackLater.run();
            undoFrom(cs, i + 1);
            if (r.guessed) {
                undoOne(r);
            } else {
                service.execute(r.command);
            }
            for (int j = i + 1; j < cs.size(); j++) {
                Command c = cs.get(j).command;
                if (service.admit(c)) {
                    service.execute(c);
                }
            }
            break;
        }
        settle();
    }

    @Override
    public void deliver(long position, ByteBuffer value) {
        service.deliver(position, value);
    }

    /** Commands run speculatively, confirmed (their speculative result kept) and undone so far. */
    public long commandsRun() {
        return commandsRun;
    }

    /** Commands whose speculative result became final. */
    public long commandsConfirmed() {
        return commandsConfirmed;
    }

    /** Commands undone. */
    public long commandsUndone() {
        return commandsUndone;
    }

    /** Undoes the guessed commands of {@code cs} from the last down to index {@code from}. */
    private void undoFrom(List<Ran> cs, int from) {
        for (int i = cs.size() - 1; i >= from; i--) {
            Ran r = cs.get(i);
            if (r.guessed) {
                undoOne(r);
            }
        }
    }

    private void undoOne(Ran r) {
        r.undo.run();
        commandsUndone++;
        guessedNext.put(new Stream(r.command.id().clientId(), r.command.groups().bits()), r.command.id().sequence());
    }

    /** One batch left the speculated set: with none left, the decided table is the whole truth again. */
    private void settle() {
        live--;
        if (live <= 0) {
            live = 0;
            guessedNext.clear();
        }
    }
}
