package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

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
 * <p><b>Snapshots: a quiescent hand-off.</b> Every {@code snapshotEvery} instances or
 * {@code snapshotLogBytes} decided bytes, whichever comes first, or at the first delivery after an
 * operator's {@link #requestSnapshot} (any thread), {@link #deliver} waits until the
 * executor is quiescent and captures the replicated state at the next position on the delivery
 * thread: the client sessions serialized into memory (they are small) and
 * {@link dev.parallax.core.StateMachine#capture} (by default the state machine's snapshot
 * serialized into memory; O(1) for a state machine with a copy-on-write view). No disk IO and no
 * fsync happen there: the {@link SnapshotWriter} streams both captures into the snapshot store on
 * its own thread and only once the file is durable tells the broadcast
 * ({@link dev.parallax.core.spi.AtomicBroadcast#snapshotTaken}), which may then compact its log.
 * Meanwhile commands go on being ordered, executed and answered. The sessions' part ends with the
 * broadcast's delivery state ({@link dev.parallax.core.spi.AtomicBroadcast#deliveryState}, read
 * there too: {@code len:4 | state}), which {@link #install} hands back through
 * {@link dev.parallax.core.spi.AtomicBroadcast#snapshotInstalled(long, byte[])} (empty for a
 * version 1 snapshot, which has none). At most one write is in flight:
 * a snapshot due while one is being written is deferred to the first delivery after that write
 * ends (counted once per write it waited for in {@code parallax.snapshots.deferred}). The capture
 * time is the timer {@code parallax.snapshots.capture}.
 *
 * <p>Threads: {@link #deliver} is called by the ordering protocol's delivery thread, one batch at
 * a time; {@link #onResult} by the executor (the same thread for the sequential executor);
 * {@link #onUnclassifiable} by the delivery thread; {@link #onFatal} by whichever thread hit the
 * error, without taking this object's lock. {@link #install} comes from the replica's start or its
 * snapshot transfer thread; it abandons a snapshot write in flight and waits for it to end first.
 * {@link #close} from the replica's owner, after delivery stopped.
 *
 * <p><b>Speculative execution</b> (seed 003 (Marandi thesis) §4.2.1): with a state machine that
 * opts in ({@link dev.parallax.core.SpeculativeStateMachine}) and the sequential executor, the
 * broadcast's tentative positions ({@link #tentative}, {@link #revoked}) run through a
 * {@link ReplicaSpeculation}; decisions confirm them (clients are answered then, never before) or
 * undo them. Snapshots and queries see decided state only. Without it, tentatives are ignored.
 *
 * <p><b>Per worker</b> (P-SMR: a {@link dev.parallax.core.spi.WorkerExecutor} over a broadcast that
 * delivers per worker): {@link #deliver} is not used; the broadcast delivers to {@link #lanes()}
 * ({@link WorkerLanes}), one lane per worker on that worker's stream thread, with one session table
 * per executing worker, snapshots at g_all barriers and installs that pause every lane. Then
 * {@link #onResult} comes from the executing worker's thread.
 */
final class ServiceManager implements DeliveryListener, ResultSink, AutoCloseable, ReplicaSpeculation.Plain {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceManager.class);
    /** The first word of the sessions' part of a per-worker snapshot (then the count of tables, then each). */
    static final int PER_WORKER_SESSIONS = -100;

    /** The session tables: one, or with per-worker execution one per worker (the streams it executes). */
    private final ClientSessions[] sessions;
    private final Executor executor;
    /** Non-null with per-worker execution ({@link WorkerLanes}). */
    private final dev.parallax.core.spi.WorkerExecutor perWorker;
    private WorkerLanes lanes;
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
    private volatile dev.parallax.core.spi.AtomicBroadcast broadcast;
    private final MeterRegistry registry;
    private long nextSequence;
    /** {@link #nextSequence} for readers on other threads ({@link #executedBelow}). */
    private volatile long executedBelow;
    /** An operator asked for a snapshot at the next delivery ({@link #requestSnapshot}); cleared when one is captured. */
    private volatile boolean snapshotRequested;
    private long lastSnapshot;
    private long bytesSinceSnapshot;
    private final SnapshotWriter snapshotWriter;
    /** A snapshot is due but waits for the write in flight (counted once per such write). */
    private boolean deferring;
    private final Counter deferred;
    private final io.micrometer.core.instrument.Timer captureTime;
    private final Counter installs;
    /** Speculative execution (a state machine that opts in, sequential executor), else null. */
    private final ReplicaSpeculation speculation;

    ServiceManager(ClientSessions sessions, Executor executor, ReplyRouter router, MeterRegistry registry, int replica,
                   dev.parallax.core.StateMachine stateMachine, dev.parallax.core.snapshot.SnapshotStore store, long snapshotEvery,
                   long snapshotLogBytes) {
        this(new ClientSessions[] {sessions}, executor, null, router, registry, replica, stateMachine, store, snapshotEvery,
                snapshotLogBytes);
    }

    /**
     * With per-worker execution (P-SMR): {@code sessions} has one table per worker of
     * {@code perWorker}; {@link #lanes()} is then the broadcast's per-worker listener.
     */
    ServiceManager(ClientSessions[] sessions, Executor executor, dev.parallax.core.spi.WorkerExecutor perWorker,
                   ReplyRouter router, MeterRegistry registry, int replica, dev.parallax.core.StateMachine stateMachine,
                   dev.parallax.core.snapshot.SnapshotStore store, long snapshotEvery, long snapshotLogBytes) {
        if (perWorker == null ? sessions.length != 1 : sessions.length != perWorker.workers()) {
            throw new IllegalArgumentException(sessions.length + " session tables for "
                    + (perWorker == null ? "one total order" : perWorker.workers() + " workers"));
        }
        this.perWorker = perWorker;
        this.stateMachine = stateMachine;
        this.store = store;
        this.snapshotEvery = snapshotEvery;
        this.snapshotLogBytes = snapshotLogBytes;
        this.registry = registry;
        this.snapshotWriter = new SnapshotWriter(replica, store, registry, this::snapshotDurable);
        this.deferred = Counter.builder("parallax.snapshots.deferred")
                .description("snapshots that came due while the previous one was still being written; each is taken "
                        + "at the first delivery after that write ends")
                .tag("replica", Integer.toString(replica)).register(registry);
        this.captureTime = io.micrometer.core.instrument.Timer.builder("parallax.snapshots.capture")
                .description("time the delivery thread spent capturing the sessions and the state for a snapshot "
                        + "(quiescence wait excluded)")
                .tag("replica", Integer.toString(replica)).register(registry);
        this.installs = Counter.builder("parallax.snapshots.installed")
                .description("snapshots restored at start-up or received from a peer").tag("replica", Integer.toString(replica))
                .register(registry);
        this.sessions = sessions.clone();
        this.executor = executor;
        this.router = router;
        String id = Integer.toString(replica);
        this.executed = Counter.builder("parallax.commands.executed")
                .description("commands this replica's state machine executed").tag("replica", id).register(registry);
        this.rejected = Counter.builder("parallax.commands.rejected")
                .description("commands the state machine threw on").tag("replica", id).register(registry);
        this.duplicates = Counter.builder("parallax.commands.duplicate")
                .description("retried commands answered from the session cache").tag("replica", id).register(registry);
        this.malformed = Counter.builder("parallax.batches.malformed")
                .description("decided batches this replica could not decode; their commands were not executed").tag("replica", id).register(registry);
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
        if (perWorker != null) {
            this.lanes = new WorkerLanes(this, perWorker, store != null, snapshotEvery, snapshotLogBytes);
        }
        this.speculation = ReplicaSpeculation.create(stateMachine, executor, perWorker != null, this.sessions[0], this,
                registry, replica);
    }

    /** The per-worker delivery lanes (with a {@link dev.parallax.core.spi.WorkerExecutor}), else null. */
    WorkerLanes lanes() {
        return lanes;
    }

    /** The broadcast set by {@link #broadcast(dev.parallax.core.spi.AtomicBroadcast)}. */
    dev.parallax.core.spi.AtomicBroadcast broadcast() {
        return broadcast;
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
            if (speculation != null) {
                speculation.decided(sequence, value);
            } else {
                apply(value, sequence);
            }
        } finally {
            executedBelow = nextSequence;
            // Whichever comes first: the instance count, the bytes the log grew by, or an operator's request.
            if (failure.get() == null && store != null && (snapshotRequested
                    || nextSequence - lastSnapshot >= snapshotEvery || bytesSinceSnapshot >= snapshotLogBytes)) {
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

    /** A decided no-op: the speculation's frontier passes it. */
    @Override
    public synchronized void skipped(long sequence) {
        if (speculation != null && failure.get() == null) {
            speculation.decided(sequence, null);
        }
    }

    /** Speculative execution ({@link ReplicaSpeculation}): a tentative value; ignored without it. */
    @Override
    public synchronized void tentative(long sequence, ByteBuffer value) {
        if (speculation != null && failure.get() == null && sequence >= nextSequence) {
            speculation.tentative(sequence, value);
        }
    }

    /** Speculative execution: the coordinator changed; undo what ran at or past {@code fromSequence}. */
    @Override
    public synchronized void revoked(long fromSequence) {
        if (speculation != null && failure.get() == null) {
            speculation.revoked(fromSequence);
        }
    }

    @Override
    public void apply(ByteBuffer value, long sequence) throws InterruptedException {
        List<Command> commands = decode(value, sequence);
        if (commands == null) {
            return;
        }
        for (Command c : commands) {
            if (admit(c) && !execute(c)) {
                return;
            }
        }
    }

    /**
     * The commands of a decided batch, copied out of {@code value} (valid only during delivery;
     * executors may keep commands longer); null, counted and logged, if it is not a batch (skipped
     * on every replica alike).
     */
    List<Command> decode(ByteBuffer value, long sequence) {
        ByteBuffer copy = ByteBuffer.allocate(value.remaining()).put(value.duplicate()).flip();
        try {
            return CommandBatch.decode(copy);
        } catch (IllegalArgumentException e) {
            malformed.increment();
            LOG.error("decided value {} is not a command batch; skipped on every replica alike: {}", sequence, e.getMessage());
            return null;
        }
    }

    /**
     * Admits {@code c} through its stream's session table: {@code true} to execute it; a duplicate
     * is answered from the cache, a gap with where to resume, an expired session as such.
     */
    @Override
    public boolean admit(Command c) {
        ClientSessions table = sessionsOf(c.groups());
        switch (table.admit(c.id())) {
            case EXECUTE -> {
                return true;
            }
            case DUPLICATE -> {
                duplicates.increment();
                CommandResult r = table.cached(c.id());
                if (r != null) {
                    router.reply(c.id(), r);
                }
            }
            case GAP -> router.retryFrom(c.id(), table.next(c.id().clientId(), c.groups()));
            case EXPIRED -> router.expired(c.id());
        }
        return false;
    }

    /** The session table of a command to {@code groups}: that of the worker executing it. */
    private ClientSessions sessionsOf(dev.parallax.core.GroupSet groups) {
        return perWorker == null ? sessions[0] : sessions[perWorker.executorOf(groups)];
    }

    /** @return false if the executor failed (an error stopped the replica): nothing more runs */
    @Override
    public boolean execute(Command c) throws InterruptedException {
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

    /**
     * Runs the read-only {@code queries} on the state machine between two deliveries (this object's
     * lock keeps {@link #deliver} out), once every command handed to the executor executed; each
     * one's answer, or the {@link RuntimeException} it threw ({@link UnsupportedOperationException}:
     * the state machine answers it only through the order), goes to {@code answers} in order.
     * Called by the query thread ({@link QueryPath}) once the reads' positions were delivered.
     *
     * @throws UnsupportedOperationException if execution is per worker (P-SMR)
     * @throws IllegalStateException         if this replica stopped executing (a fatal error)
     */
    synchronized void query(List<ByteBuffer> queries, java.util.function.Consumer<Object> answers) throws InterruptedException {
        if (failure.get() != null) {
            throw new IllegalStateException("this replica stopped executing", failure.get());
        }
        if (perWorker != null) {
            throw new UnsupportedOperationException("per-worker execution answers reads through the order");
        }
        executor.awaitQuiescence();
        if (speculation != null) {
            speculation.suspend();  // a query sees decided state only
        }
        try {
            answer(queries, answers);
        } finally {
            if (speculation != null && failure.get() == null) {
                speculation.resume();
            }
        }
    }

    private void answer(List<ByteBuffer> queries, java.util.function.Consumer<Object> answers) {
        for (ByteBuffer q : queries) {
            Object answer;
            try {
                answer = stateMachine.query(q);
            } catch (RuntimeException e) {
                answer = e;
            }
            answers.accept(answer);
        }
    }

    /** A command the executor could not classify: its error reply, the same on every replica. */
    @Override
    public void onUnclassifiable(Command command, CommandResult result) {
        unclassifiable.increment();
        LOG.debug("command {} could not be classified and was not executed: {}", command.id(), result.error());
        sessionsOf(command.groups()).store(command.id(), result);
        router.reply(command.id(), result);
    }

    /**
     * A safety alarm stopped the replica (protocol thread): execute nothing more, and read unhealthy,
     * as after a fatal error; the replica closes itself. Not counted as a state-machine error. Idempotent.
     */
    void stopOnSafetyAlarm(Throwable alarm) {
        failure.compareAndSet(null, alarm);
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
        sessionsOf(command.groups()).store(command.id(), result);
        router.reply(command.id(), result);
    }

    /**
     * Captures the state machine and the sessions at the current position (with the executor
     * quiescent) and hands them to the {@link SnapshotWriter}; defers while a write is in flight.
     * A failed capture (an exception, or running out of heap for the in-memory copy) is logged and
     * counted in {@code parallax.snapshots.failed}, like a failed write; either way the next attempt
     * comes after another interval, not on every delivery.
     */
    private void takeSnapshot() throws InterruptedException {
        if (deferredByWrite()) {
            return;
        }
        executor.awaitQuiescence();
        lastSnapshot = nextSequence;
        bytesSinceSnapshot = 0;
        snapshotRequested = false;
        if (speculation == null) {
            captureAt(nextSequence);
            return;
        }
        speculation.suspend();  // never a snapshot of speculative state
        try {
            captureAt(nextSequence);
        } finally {
            if (failure.get() == null) {
                speculation.resume();
            }
        }
    }

    /**
     * Asks for a snapshot at the next safe point: the delivery thread takes it after the next
     * decided batch it executes, as if the interval had come due (deferred likewise while a write
     * is in flight). Any thread; returns at once. Without traffic nothing is taken until the next
     * delivery.
     *
     * @throws IllegalStateException if this replica keeps no snapshots (no data directory) or
     *                               executes per worker (P-SMR snapshots at barriers only)
     */
    void requestSnapshot() {
        if (store == null) {
            throw new IllegalStateException("replica " + replica + " keeps no snapshots: it has no data directory (data.dir)");
        }
        if (perWorker != null) {
            throw new IllegalStateException("replica " + replica + " executes per worker (p-smr): its snapshots are taken "
                    + "at g_all barriers every snapshot.every deliveries, not on request");
        }
        snapshotRequested = true;
    }

    /**
     * Every decided position below this one has been executed (or skipped, being covered by an
     * installed snapshot): the last executed position plus one; 0 before the first. Any thread;
     * with per-worker execution the lanes' position.
     */
    long executedBelow() {
        WorkerLanes l = lanes;
        return l != null ? l.position() : executedBelow;
    }

    /**
     * Whether a snapshot due now must wait for the write in flight (counted once per such write).
     * Called by one thread at a time: the delivery thread, or the lane at a barrier.
     */
    boolean deferredByWrite() {
        if (snapshotWriter.busy()) {
            if (!deferring) {
                deferring = true;
                deferred.increment();
            }
            return true;
        }
        deferring = false;
        return false;
    }

    /**
     * Captures the sessions, the broadcast's delivery state and the state machine as of position
     * {@code at}, with nothing executing, and hands them to the {@link SnapshotWriter}. Runs on the
     * delivery thread (with the executor quiescent), or on a lane at a barrier (every worker
     * waiting inside it).
     */
    void captureAt(long at) {
        io.micrometer.core.instrument.Timer.Sample sample = io.micrometer.core.instrument.Timer.start(registry);
        dev.parallax.core.SnapshotCapture sessionBytes = null;
        try {
            sessionBytes = dev.parallax.core.SnapshotCapture.inMemory(
                    out -> SnapshotSessions.write(out, sessions, perWorker != null, broadcast));
            dev.parallax.core.SnapshotCapture state = java.util.Objects.requireNonNull(stateMachine.capture(),
                    "StateMachine.capture() returned null");
            sample.stop(captureTime);
            snapshotWriter.start(at, sessionBytes, state);
        } catch (java.io.IOException | RuntimeException e) {
            if (sessionBytes != null) {
                sessionBytes.close();
            }
            snapshotWriter.captureFailed(at, e);
        } catch (OutOfMemoryError e) {
            // Most likely the in-memory copy of the default capture: dropping it frees the heap it took.
            if (sessionBytes != null) {
                sessionBytes.close();
            }
            snapshotWriter.captureFailed(at, new java.io.IOException("out of memory while capturing the state (the "
                    + "default capture holds one serialized copy: raise the heap or override StateMachine.capture)", e));
        }
    }

    /** The writer thread: the snapshot at {@code at} is durable, so the protocol may compact below it. */
    private void snapshotDurable(long at) {
        dev.parallax.core.spi.AtomicBroadcast b = broadcast;
        if (b != null) {
            b.snapshotTaken(at);
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
        if (failure.get() != null) {
            return;
        }
        if (lanes != null) {
            lanes.install(snapshot);
            return;
        }
        if (snapshot.instance() <= nextSequence) {
            return;
        }
        // An older snapshot still being written is superseded, and restore must not run under an open capture.
        snapshotWriter.abandonAndAwait();
        executor.awaitQuiescence();
        if (speculation != null) {
            speculation.reset(snapshot.instance());
        }
        byte[] deliveryState = restore(snapshot);
        nextSequence = snapshot.instance();
        executedBelow = nextSequence;
        lastSnapshot = snapshot.instance();
        bytesSinceSnapshot = 0;
        if (broadcast != null) {
            broadcast.snapshotInstalled(snapshot.instance(), deliveryState);
        }
    }

    /** Abandons a snapshot write in flight and waits for it to end (before an install). */
    void abandonSnapshotWrite() throws InterruptedException {
        snapshotWriter.abandonAndAwait();
    }

    /**
     * Replaces the sessions and the state machine with {@code snapshot}'s, with nothing executing;
     * returns the broadcast's delivery state it carries.
     */
    byte[] restore(dev.parallax.core.snapshot.SnapshotStore.Snapshot snapshot) throws java.io.IOException {
        byte[] deliveryState;
        try (java.nio.channels.ReadableByteChannel in = store.openBody(snapshot)) {
            java.io.DataInputStream d = new java.io.DataInputStream(java.nio.channels.Channels.newInputStream(in));
            SnapshotSessions.read(d, snapshot, sessions, perWorker != null);
            deliveryState = SnapshotSessions.readDeliveryState(d, snapshot);
            stateMachine.restore(in);
        }
        installs.increment();
        LOG.info("installed snapshot covering every instance below {}", snapshot.instance());
        return deliveryState;
    }

    /**
     * Abandons a snapshot write in flight (see {@link SnapshotWriter#close}); call after delivery
     * stopped. Idempotent.
     */
    @Override
    public void close() {
        snapshotWriter.close();
    }

    /** For tests: waits up to {@code timeout} until no snapshot write is in flight; false if one still is. */
    boolean awaitSnapshotWritten(java.time.Duration timeout) throws InterruptedException {
        return snapshotWriter.awaitIdle(timeout);
    }


}
