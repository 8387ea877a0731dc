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
 * the replicated {@link ClientSessions} (exactly-once, in order per client), hands the admitted
 * ones to the {@link Executor}, records results for duplicates and routes replies to the client's
 * connection.
 *
 * <p>Threads: {@link #deliver} is called by the ordering protocol's delivery thread, one batch at
 * a time; {@link #onResult} by the executor (the same thread for the sequential executor).
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
    private final dev.parallax.core.StateMachine stateMachine;
    private final dev.parallax.core.snapshot.SnapshotStore store;
    private final long snapshotEvery;
    private dev.parallax.core.spi.AtomicBroadcast broadcast;
    private long nextSequence;
    private long lastSnapshot;
    private final Counter snapshots;
    private final Counter installs;

    ServiceManager(ClientSessions sessions, Executor executor, ReplyRouter router, MeterRegistry registry, int replica,
                   dev.parallax.core.StateMachine stateMachine, dev.parallax.core.snapshot.SnapshotStore store, long snapshotEvery) {
        this.stateMachine = stateMachine;
        this.store = store;
        this.snapshotEvery = snapshotEvery;
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
    }

    /** The broadcast to tell about snapshots (set once before delivery starts). */
    void broadcast(dev.parallax.core.spi.AtomicBroadcast b) {
        this.broadcast = b;
    }

    @Override
    public synchronized void deliver(long sequence, ByteBuffer value) throws InterruptedException {
        if (sequence < nextSequence) {
            return; // covered by an installed snapshot
        }
        nextSequence = sequence + 1;
        try {
            apply(value, sequence);
        } finally {
            if (store != null && nextSequence - lastSnapshot >= snapshotEvery) {
                takeSnapshot();
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
                case EXECUTE -> executor.execute(c);
                case DUPLICATE -> {
                    duplicates.increment();
                    CommandResult r = sessions.cached(c.id());
                    if (r != null) {
                        router.reply(c.id(), r);
                    }
                }
                case GAP -> router.retryFrom(c.id(), sessions.next(c.id().clientId()));
                case EXPIRED -> router.expired(c.id());
            }
        }
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
     * counted; the replica goes on with its log uncompacted.
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
            snapshots.increment();
            if (broadcast != null) {
                broadcast.snapshotTaken(at);
            }
        } catch (java.io.IOException | RuntimeException e) {
            lastSnapshot = at; // retry after another interval, not on every delivery
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
        if (snapshot.instance() <= nextSequence) {
            return;
        }
        executor.awaitQuiescence();
        try (java.nio.channels.ReadableByteChannel in = store.openBody(snapshot)) {
            sessions.readFrom(new java.io.DataInputStream(java.nio.channels.Channels.newInputStream(in)));
            stateMachine.restore(in);
        }
        nextSequence = snapshot.instance();
        lastSnapshot = snapshot.instance();
        installs.increment();
        LOG.info("installed snapshot covering every instance below {}", snapshot.instance());
        if (broadcast != null) {
            broadcast.snapshotInstalled(snapshot.instance());
        }
    }


}
