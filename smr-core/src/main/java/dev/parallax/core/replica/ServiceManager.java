package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The ServiceManager (seed 000 §V-D): takes decided batches in order, admits each command through
 * the replicated {@link ClientSessions} (exactly-once, in order per client and stream), hands the admitted
 * ones to the {@link Executor}, records results for duplicates and routes replies to the client's
 * connection.
 *
 * <p>Bad input never stops it: a command the executor cannot classify gets an error reply
 * ({@link #onUnclassifiable}, counted in {@code parallax.commands.unclassifiable}). An {@link Error}
 * from the state machine does ({@link #onFatal}): the replica's state can no longer be trusted equal
 * to the others', so it executes nothing more, logs at ERROR, sets {@code parallax.replica.healthy}
 * to 0, counts {@code parallax.replica.fatal} and asks the replica to stop (fail-stop: the other
 * replicas go on, as after a crash).
 *
 * <p>Threads: {@link #deliver} is called by the ordering protocol's delivery thread, one batch at
 * a time; {@link #onResult} by the executor (the same thread for the sequential executor);
 * {@link #onUnclassifiable} by the delivery thread; {@link #onFatal} by whichever thread hit the
 * error, without taking this object's lock.
 */
final class ServiceManager implements DeliveryListener, ResultSink {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceManager.class);

    private final ClientSessions sessions;
    private final Executor executor;
    private final ReplyRouter router;
    private final Counter executed;
    private final Counter rejected;
    private final Counter duplicates;
    private final Counter malformed;
    private final Counter unclassifiable;
    private final Counter fatalErrors;
    private final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
            new java.util.concurrent.atomic.AtomicReference<>();
    private final int replica;
    private volatile Runnable failStop = () -> { };
    private final dev.parallax.core.StateMachine stateMachine;
    private final dev.parallax.core.snapshot.SnapshotStore store;
    private final long snapshotEvery;
    private final long snapshotLogBytes;
    private dev.parallax.core.spi.AtomicBroadcast broadcast;
    private long nextSequence;
    private long lastSnapshot;
    private long bytesSinceSnapshot;
    private final Counter snapshots;
    private final Counter snapshotsFailed;
    private final Counter installs;

    ServiceManager(ClientSessions sessions, Executor executor, ReplyRouter router, MeterRegistry registry, int replica,
                   dev.parallax.core.StateMachine stateMachine, dev.parallax.core.snapshot.SnapshotStore store, long snapshotEvery,
                   long snapshotLogBytes) {
        this.stateMachine = stateMachine;
        this.store = store;
        this.snapshotEvery = snapshotEvery;
        this.snapshotLogBytes = snapshotLogBytes;
        this.snapshotsFailed = Counter.builder("parallax.snapshots.failed")
                .description("snapshots that could not be written; the log stays uncompacted until the next one")
                .tag("replica", Integer.toString(replica)).register(registry);
        this.snapshots = Counter.builder("parallax.snapshots.taken").tag("replica", Integer.toString(replica)).register(registry);
        this.installs = Counter.builder("parallax.snapshots.installed")
                .description("snapshots restored at start-up or received from a peer").tag("replica", Integer.toString(replica))
                .register(registry);
        this.sessions = sessions;
        this.executor = executor;
        this.router = router;
        String id = Integer.toString(replica);
        this.executed = Counter.builder("parallax.commands.executed").tag("replica", id).register(registry);
        this.rejected = Counter.builder("parallax.commands.rejected")
                .description("commands the state machine threw on").tag("replica", id).register(registry);
        this.duplicates = Counter.builder("parallax.commands.duplicate")
                .description("retried commands answered from the session cache").tag("replica", id).register(registry);
        this.malformed = Counter.builder("parallax.batches.malformed").tag("replica", id).register(registry);
        this.replica = replica;
        this.unclassifiable = Counter.builder("parallax.commands.unclassifiable")
                .description("commands the executor's classifier or conflict relation threw on; answered with an error")
                .tag("replica", id).register(registry);
        this.fatalErrors = Counter.builder("parallax.replica.fatal")
                .description("errors from the state machine that stopped this replica").tag("replica", id)
                .register(registry);
        io.micrometer.core.instrument.Gauge.builder("parallax.replica.healthy", failure, f -> f.get() == null ? 1 : 0)
                .description("1 while the replica executes commands, 0 once an error stopped it")
                .tag("replica", id).register(registry);
    }

    /** The broadcast to tell about snapshots (set once before delivery starts). */
    void broadcast(dev.parallax.core.spi.AtomicBroadcast b) {
        this.broadcast = b;
    }

    /** What to run (once, on the failing thread; must not block) when an error stops the replica. */
    void failStop(Runnable action) {
        this.failStop = java.util.Objects.requireNonNull(action);
    }

    /** The error that stopped this replica's execution, or {@code null} while it is healthy. */
    Throwable failure() {
        return failure.get();
    }

    @Override
    public synchronized void deliver(long sequence, ByteBuffer value) throws InterruptedException {
        if (sequence < nextSequence || failure.get() != null) {
            return; // covered by an installed snapshot, or this replica stopped executing
        }
        nextSequence = sequence + 1;
        bytesSinceSnapshot += value.remaining();
        try {
            apply(value, sequence);
        } finally {
            // Whichever comes first: the instance count or the bytes the log grew by.
            if (failure.get() == null && store != null
                    && (nextSequence - lastSnapshot >= snapshotEvery || bytesSinceSnapshot >= snapshotLogBytes)) {
                try {
                    takeSnapshot();
                } catch (IllegalStateException e) {
                    if (failure.get() == null) {
                        throw e;
                    } // the executor failed meanwhile: no snapshot of a state that may be wrong
                }
            }
        }
    }

    private void apply(ByteBuffer value, long sequence) throws InterruptedException {
        // The buffer is valid only during this call; executors may keep commands longer.
        ByteBuffer copy = ByteBuffer.allocate(value.remaining()).put(value.duplicate()).flip();
        List<Command> commands;
        try {
            commands = CommandBatch.decode(copy);
        } catch (IllegalArgumentException e) {
            malformed.increment();
            LOG.error("decided value {} is not a command batch; skipped on every replica alike: {}", sequence, e.getMessage());
            return;
        }
        for (Command c : commands) {
            switch (sessions.admit(c.id())) {
                case EXECUTE -> {
                    if (!execute(c)) {
                        return;
                    }
                }
                case DUPLICATE -> {
                    duplicates.increment();
                    CommandResult r = sessions.cached(c.id());
                    if (r != null) {
                        router.reply(c.id(), r);
                    }
                }
                case GAP -> router.retryFrom(c.id(), sessions.next(c.id().clientId(), c.groups()));
                case EXPIRED -> router.expired(c.id());
            }
        }
    }

    /** @return false if the executor failed (an error stopped the replica): nothing more runs */
    private boolean execute(Command c) throws InterruptedException {
        try {
            executor.execute(c);
            return true;
        } catch (IllegalStateException e) {
            if (failure.get() == null) {
                throw e; // not a fatal error: misuse or shutdown
            }
            return false;
        }
    }

    /** A command the executor could not classify: its error reply, the same on every replica. */
    @Override
    public void onUnclassifiable(Command command, CommandResult result) {
        unclassifiable.increment();
        LOG.debug("command {} could not be classified and was not executed: {}", command.id(), result.error());
        sessions.store(command.id(), result);
        router.reply(command.id(), result);
    }

    /**
     * The state machine threw an {@link Error} (or the result path failed): stop executing, loudly,
     * and have the replica stop. Idempotent.
     */
    @Override
    public void onFatal(Command command, Throwable error) {
        if (!failure.compareAndSet(null, error)) {
            return;
        }
        fatalErrors.increment();
        LOG.error("replica {} stops: {} while executing {}; its state can no longer be trusted equal to the "
                + "other replicas', so it executes nothing more (restart it to recover from its snapshot and "
                + "log, or from a peer)", replica, error, command == null ? "a result" : command.id(), error);
        failStop.run();
    }

    @Override
    public void onResult(Command command, CommandResult result) {
        executed.increment();
        if (result.isError()) {
            rejected.increment();
        }
        sessions.store(command.id(), result);
        router.reply(command.id(), result);
    }

    /**
     * Writes a snapshot of the state machine and the sessions at the current position (with the
     * executor quiescent), then lets the protocol compact its log below it. A failure is logged and
     * counted in {@code parallax.snapshots.failed}; the replica goes on with its log uncompacted
     * and tries again after another interval.
     */
    private void takeSnapshot() throws InterruptedException {
        executor.awaitQuiescence();
        long at = nextSequence;
        try {
            store.write(at, out -> {
                java.io.DataOutputStream d = new java.io.DataOutputStream(
                        new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(out), 64 * 1024));
                sessions.writeTo(d);
                d.flush();
                stateMachine.snapshot(out);
            });
            lastSnapshot = at;
            bytesSinceSnapshot = 0;
            snapshots.increment();
            if (broadcast != null) {
                broadcast.snapshotTaken(at);
            }
        } catch (java.io.IOException | RuntimeException e) {
            lastSnapshot = at; // retry after another interval, not on every delivery
            bytesSinceSnapshot = 0;
            snapshotsFailed.increment();
            LOG.error("snapshot at {} failed; the log is not compacted: {}", at, e.toString());
        }
    }

    /**
     * Replaces the state machine and sessions with {@code snapshot} (at start-up, or received from
     * a peer) and continues delivery after it. Blocks delivery while it runs.
     *
     * @throws java.io.IOException if the snapshot cannot be read or restored
     */
    synchronized void install(dev.parallax.core.snapshot.SnapshotStore.Snapshot snapshot) throws java.io.IOException,
            InterruptedException {
        if (snapshot.instance() <= nextSequence || failure.get() != null) {
            return;
        }
        executor.awaitQuiescence();
        try (java.nio.channels.ReadableByteChannel in = store.openBody(snapshot)) {
            sessions.readFrom(new java.io.DataInputStream(java.nio.channels.Channels.newInputStream(in)));
            stateMachine.restore(in);
        }
        nextSequence = snapshot.instance();
        lastSnapshot = snapshot.instance();
        bytesSinceSnapshot = 0;
        installs.increment();
        LOG.info("installed snapshot covering every instance below {}", snapshot.instance());
        if (broadcast != null) {
            broadcast.snapshotInstalled(snapshot.instance());
        }
    }


}
