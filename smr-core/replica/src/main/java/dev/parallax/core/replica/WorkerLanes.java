package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.snapshot.SnapshotStore;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.WorkerDeliveryListener;
import dev.parallax.core.spi.WorkerExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The {@link ServiceManager}'s per-worker delivery lanes (P-SMR, seed 003 (Ring Paxos / Multi-Ring
 * / P-SMR) ch. 6 §6.2): worker i's stream, delivered by the broadcast on worker i's own thread,
 * goes straight into worker i of the {@link WorkerExecutor}, with no thread between ordering and
 * execution. Each lane decodes its batches and hands the worker every command whose worker set
 * contains it; the command's executing worker admits it through the session table of its stream
 * (one table per worker: a stream γ is admitted only by e(γ), in e's delivery order, so verdicts
 * and session recency are the same on every replica), executes it and answers.
 *
 * <p><b>Snapshots at a g_all barrier</b> (§6.2.3 leaves checkpoints to the implementation; see
 * docs/executors.md). When a snapshot is due (every {@code snapshotEvery} deliveries over all
 * lanes, or {@code snapshotLogBytes} delivered bytes), a lane proposes a <em>barrier</em>: an empty
 * batch multicast to every group. Every worker delivers it (it is in every stream) and they all
 * meet on it as on any command of every worker; its executing worker, worker 0, runs with every
 * other worker waiting inside the barrier, so the state machine, the session tables and every
 * stream's position ({@link AtomicBroadcast#deliveryState}) form one consistent cut. A barrier from
 * another replica serves too; one whose snapshot is not due is passed. A barrier proposed and lost
 * (its ring's coordinator failed) is proposed again after another interval. The snapshot's
 * sequence number is the sum of the workers' delivery counts at the barrier, the same on every
 * replica.
 *
 * <p><b>Installs</b> ({@link #install}): the lanes are paused at their {@link LaneGate} (workers
 * blocked inside a shared command are released), the state replaced, the broadcast's streams moved
 * to the snapshot's positions (closing the old ones) and the workers restarted with a fresh
 * signal state, then the lanes resume.
 *
 * <p><b>Threads.</b> {@link #deliver} for lane i on worker i's delivery thread (concurrently with
 * the other lanes); {@link #admit} on a command's executing worker's thread; {@link #install} from
 * the replica's start or its snapshot transfer thread, under the ServiceManager's lock.
 */
final class WorkerLanes implements WorkerDeliveryListener, WorkerExecutor.Admission {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerLanes.class);
    /** The barrier's bytes: an empty command batch. */
    private static final ByteBuffer BARRIER_BATCH = CommandBatch.encode(List.of()).asReadOnlyBuffer();

    private final ServiceManager manager;
    private final WorkerExecutor executor;
    private final LaneGate gate;
    private final boolean snapshots;
    private final long snapshotEvery;
    private final long snapshotLogBytes;
    private final long allWorkers;
    /** The command every worker delivers for a barrier: to every worker's groups 0..k-1. */
    private final Command barrier;
    /** Deliveries per lane since {@link #base} (lane i writes slot i). */
    private final AtomicLongArray counts;
    private final AtomicLong bytesSinceSnapshot = new AtomicLong();
    /** The position at which a barrier was proposed and not yet delivered, or -1. */
    private final AtomicLong barrierProposedAt = new AtomicLong(-1);
    /** Set when the replica stops: lanes released by the shutdown return quietly. */
    private volatile boolean stopping;
    /** The position of the last install (0 at start); written with every lane paused. */
    private volatile long base;
    /** The position of the last snapshot taken or installed; written by worker 0 at barriers and by installs. */
    private volatile long lastSnapshot;

    WorkerLanes(ServiceManager manager, WorkerExecutor executor, boolean snapshots, long snapshotEvery, long snapshotLogBytes) {
        this.manager = manager;
        this.executor = executor;
        int k = executor.workers();
        this.gate = new LaneGate(k);
        this.snapshots = snapshots;
        this.snapshotEvery = snapshotEvery;
        this.snapshotLogBytes = snapshotLogBytes;
        this.counts = new AtomicLongArray(k);
        GroupSet everyWorker = GroupSet.partition(k);
        this.allWorkers = k == 64 ? -1L : (1L << k) - 1;
        if (executor.workersOf(everyWorker) != allWorkers) {
            throw new IllegalArgumentException("the executor does not map groups 0.." + (k - 1) + " onto its " + k
                    + " workers; per-worker snapshots need a barrier every worker takes part in");
        }
        this.barrier = new Command(new CommandId(0, everyWorker, 0), ByteBuffer.allocate(0));
    }

    /**
     * The replica stops: its broadcast is about to close the workers' streams, which releases (and
     * interrupts) lanes inside shared commands; they return without an error. Any thread.
     */
    void stopping() {
        stopping = true;
    }

    /** The sum of the workers' delivery counts: the sequence number a snapshot taken now would have. */
    long position() {
        long p = base;
        for (int i = 0; i < counts.length(); i++) {
            p += counts.get(i);
        }
        return p;
    }

    @Override
    public void deliver(int worker, long sequence, GroupSet groups, ByteBuffer value) throws InterruptedException {
        gate.enter(worker);
        try {
            counts.set(worker, counts.get(worker) + 1);
            bytesSinceSnapshot.addAndGet(value.remaining());
            if (manager.failure() != null) {
                return; // this replica stopped executing
            }
            List<Command> commands = manager.decode(value, sequence);
            if (commands == null) {
                return;
            }
            long self = 1L << worker;
            try {
                if (commands.isEmpty()) {
                    if (executor.workersOf(groups) == allWorkers) {
                        executor.deliver(worker, barrier);
                    }
                } else {
                    for (Command c : commands) {
                        if ((executor.workersOf(c.groups()) & self) != 0) {
                            executor.deliver(worker, c);
                        }
                    }
                }
            } catch (IllegalStateException e) {
                if (gate.paused() || stopping || manager.failure() != null) {
                    return; // released for an install (the state is being replaced), the replica stops, or it failed
                }
                throw e;
            }
            proposeBarrierIfDue();
        } finally {
            gate.exit(worker);
        }
    }

    /** The executing worker's gate: a barrier is consumed here (a snapshot if due), commands admitted by their session. */
    @Override
    public boolean admit(Command command) {
        if (command == barrier) {
            atBarrier();
            return false;
        }
        return manager.admit(command);
    }

    private boolean due(long at) {
        return at - lastSnapshot >= snapshotEvery || bytesSinceSnapshot.get() >= snapshotLogBytes;
    }

    /** Worker 0, every other worker waiting inside the barrier: the consistent cut. */
    private void atBarrier() {
        barrierProposedAt.set(-1);
        long at = position();
        if (!snapshots || !due(at) || manager.deferredByWrite()) {
            return;
        }
        lastSnapshot = at;
        bytesSinceSnapshot.set(0);
        manager.captureAt(at);
    }

    private void proposeBarrierIfDue() {
        if (!snapshots) {
            return;
        }
        long at = position();
        long proposed = barrierProposedAt.get();
        if (!due(at) || (proposed >= 0 && at - proposed < snapshotEvery) || !barrierProposedAt.compareAndSet(proposed, at)) {
            return;
        }
        AtomicBroadcast b = manager.broadcast();
        boolean taken;
        try {
            taken = b != null && b.propose(b.laneOf(barrier.groups()), BARRIER_BATCH.duplicate());
        } catch (IllegalStateException e) {
            taken = false; // closing
        }
        if (!taken) {
            barrierProposedAt.compareAndSet(at, proposed); // back-pressure: a later delivery tries again
        }
    }

    /**
     * Installs {@code snapshot} if it is ahead of this replica's position: pauses every lane,
     * replaces the state, moves the broadcast's streams and restarts the workers.
     */
    void install(SnapshotStore.Snapshot snapshot) throws IOException, InterruptedException {
        if (snapshot.instance() <= position()) {
            return;
        }
        gate.pause(executor::releaseWorkers);
        try {
            manager.abandonSnapshotWrite();
            byte[] deliveryState = manager.restore(snapshot);
            for (int i = 0; i < counts.length(); i++) {
                counts.set(i, 0);
            }
            base = snapshot.instance();
            lastSnapshot = snapshot.instance();
            bytesSinceSnapshot.set(0);
            barrierProposedAt.set(-1);
            AtomicBroadcast b = manager.broadcast();
            if (b != null) {
                b.snapshotInstalled(snapshot.instance(), deliveryState);
            }
            LOG.debug("per-worker lanes resume at {}", snapshot.instance());
        } finally {
            try {
                executor.restartWorkers();
            } catch (IllegalStateException e) {
                LOG.warn("per-worker execution not restarted after the install: {}", e.getMessage());
            }
            gate.resume();
        }
    }
}
