package dev.parallax.core.testkit.smr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.session.ClientSessions;
import dev.parallax.core.testkit.NodeContext;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The service half of a simulated replica, shared by every protocol's simulated replica
 * (smr-paxos' Multi-Paxos and S-Paxos replicas, and others): the production session layer
 * ({@link ClientSessions}: exactly once and in order per client, with a reply cache), a KV state
 * machine that independently counts how often each command is applied ({@link KvCommands#apply}),
 * and the client-facing logic — answer the client whose request this replica took (only that
 * replica answers), answer a resent command from the reply cache, ask a client to resend from a
 * gap in its session as the production replica's {@code RETRY_FROM} does — and its snapshot and
 * restore. Volatile: a crash loses it; the replica restores it from the {@link SnapshotShelf}.
 *
 * <p>Owned by the simulation thread (one replica incarnation).
 */
public final class SimService {
    /** Replies kept per client: at least the most commands a simulated client has outstanding. */
    public static final int REPLY_WINDOW = 4;
    /** Sessions kept: far more than the simulations' clients, so none is ever evicted. */
    private static final int MAX_SESSIONS = 1024;

    private final NodeContext<Object> ctx;
    private final boolean dedup;
    private final boolean localReads;
    private final ReplicaCounters counters;
    private KvCommands kv = new KvCommands();
    private final ClientSessions sessions = new ClientSessions(REPLY_WINDOW, MAX_SESSIONS);
    private final Map<CommandId, Integer> owners = new HashMap<>();
    private final Map<CommandId, String> readAtArrival = new HashMap<>();
    /** The speculation whose commands queries must not see (null: none). */
    private dev.parallax.core.speculation.SpeculationLedger<?> speculating;

    /**
     * @param dedup      whether the session layer's duplicate verdicts are obeyed ({@code false}
     *                   only to show that the at-most-once audit bites)
     * @param localReads whether a get is answered from the state as it is when the request arrives
     *                   ({@code true} only to show that the linearizability checker bites)
     */
    public SimService(NodeContext<Object> ctx, boolean dedup, boolean localReads, ReplicaCounters counters) {
        this.ctx = ctx;
        this.dedup = dedup;
        this.localReads = localReads;
        this.counters = counters;
    }

    /**
     * Whether {@code c} was already executed here (its sequence is below the session's next one):
     * then it is answered from the reply cache, if the reply is still there, and must not be
     * ordered again.
     */
    public boolean answeredFromCache(int client, Command c) {
        if (c.id().sequence() >= sessions.next(c.id().clientId())) {
            return false;
        }
        CommandResult cached = sessions.cached(c.id());
        if (cached != null) {
            ctx.send(client, new ClientMessage.Reply(c.id(), text(cached)));
        }
        return true;
    }

    /** This replica took {@code c} from {@code client} to order it: it answers {@code c} when it executes. */
    public void accept(int client, Command c) {
        owners.put(c.id(), client);
        if (localReads) {
            String local = kv.readLocally(c.payload());
            if (local != null) {
                readAtArrival.putIfAbsent(c.id(), local);
            }
        }
    }

    /**
     * The read-only {@code command} answered from the state as it is now (a query: no session, no
     * application counted); null if it is not a get.
     */
    public String query(String command) {
        dev.parallax.core.speculation.SpeculationLedger<?> l = speculating;
        if (l == null || l.speculating() == 0) {
            return kv.readLocally(ByteBuffer.wrap(command.getBytes(StandardCharsets.UTF_8)));
        }
        l.suspend();   // a query sees decided state only
        try {
            return kv.readLocally(ByteBuffer.wrap(command.getBytes(StandardCharsets.UTF_8)));
        } finally {
            l.resume();
        }
    }

    /** Queries undo {@code ledger}'s speculative commands first (and re-run them after): decided state only. */
    public void queriesSeeDecidedState(dev.parallax.core.speculation.SpeculationLedger<?> ledger) {
        this.speculating = ledger;
    }

    /** Executes a decided command through the session layer: execute, answer a duplicate from the cache, or report a gap. */
    public void execute(Command c) {
        if (admit(c)) {
            run(c);
        }
    }

    /**
     * Admits {@code c} through its session: true to execute it; a duplicate is answered from the
     * cache, a gap reported to the client.
     */
    private boolean admit(Command c) {
        ClientSessions.Verdict verdict = sessions.admit(c.id());
        if (verdict == ClientSessions.Verdict.DUPLICATE && !dedup) {
            verdict = ClientSessions.Verdict.EXECUTE;
        }
        switch (verdict) {
            case EXECUTE -> {
                return true;
            }
            case DUPLICATE -> {
                counters.duplicate();
                CommandResult cached = sessions.cached(c.id());
                if (cached != null) {
                    reply(c.id(), text(cached));
                }
            }
            // A client that gave up on command k sends k+1 while k is still in flight: k+1 may be
            // decided first (or k lost with a deposed leader). Not executed; the client resends
            // from the session's next sequence, in order.
            case GAP -> {
                counters.gap();
                Integer owner = owners.remove(c.id());
                if (owner != null) {
                    ctx.send(owner, new ClientMessage.RetryFrom(c.id(), sessions.next(c.id().clientId())));
                }
            }
            // The replicas keep far more sessions than there are clients: none is ever evicted.
            case EXPIRED -> throw new AssertionError("replica " + ctx.id() + ": session verdict " + verdict
                    + " for " + c.id() + " (next expected " + sessions.next(c.id().clientId()) + ")");
        }
        return false;
    }

    private void run(Command c) {
        String out = kv.apply(c.id(), c.payload());
        executed(c, CommandResult.ok(ByteBuffer.wrap(out.getBytes(StandardCharsets.UTF_8))));
    }

    private void executed(Command c, CommandResult result) {
        sessions.store(c.id(), result);
        reply(c.id(), text(result));
    }

    /**
     * Speculative execution over this service (seed 003 (Marandi thesis) §4.2.1): the host of a
     * {@link dev.parallax.core.speculation.SpeculationLedger}, running commands on the KV state with
     * an undo ({@link KvCommands#applyUndoably}) and answering them on confirmation.
     *
     * @param answerEarly the mutation: answer each command when it runs speculatively (before its
     *                    decision); false in a correct run
     */
    public dev.parallax.core.speculation.SpeculativeBatches speculation(boolean answerEarly) {
        return new dev.parallax.core.speculation.SpeculativeBatches(sessions, c -> kv.applyUndoably(c.id(), c.payload()),
                new dev.parallax.core.speculation.SpeculativeBatches.Service() {
                    @Override
                    public boolean admit(Command command) {
                        return SimService.this.admit(command);
                    }

                    @Override
                    public void executed(Command command, CommandResult result) {
                        SimService.this.executed(command, result);
                    }

                    @Override
                    public void execute(Command command) {
                        run(command);
                    }

                    @Override
                    public void deliver(long position, ByteBuffer batch) {
                        for (Command command : dev.parallax.core.batch.CommandBatch.decode(batch.duplicate())) {
                            SimService.this.execute(command);
                        }
                    }

                    @Override
                    public void answeredEarly(Command command, CommandResult result) {
                        reply(command.id(), text(result));
                    }
                }, answerEarly);
    }

    /** The service state after every instance below {@code instance}, with the ordering layer's {@code deliveryState}. */
    public SnapshotShelf.Snap snapshot(long instance, byte[] deliveryState) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            sessions.writeTo(new DataOutputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SnapshotShelf.Snap(instance, kv.data(), kv.applications(), bytes.toByteArray(), deliveryState);
    }

    /** Replaces the KV state and the sessions with the snapshot's. */
    public void restore(SnapshotShelf.Snap s) {
        kv = new KvCommands(s.kv(), s.applications());
        try {
            sessions.readFrom(new DataInputStream(new ByteArrayInputStream(s.sessions())));
        } catch (IOException e) {
            throw new UncheckedIOException("replica " + ctx.id() + " could not read the sessions of a snapshot", e);
        }
    }

    /** The KV data (live view). */
    public Map<String, String> state() {
        return kv.data();
    }

    private void reply(CommandId id, String out) {
        Integer owner = owners.remove(id);
        String early = readAtArrival.remove(id); // only with the local-reads mutation
        if (owner != null) {
            ctx.send(owner, new ClientMessage.Reply(id, early != null ? early : out));
        }
    }

    private static String text(CommandResult r) {
        ByteBuffer b = r.reply();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
