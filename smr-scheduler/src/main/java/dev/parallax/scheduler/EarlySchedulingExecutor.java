package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.scheduler.classmap.ClassMap;

import java.lang.invoke.VarHandle;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Early scheduling without work stealing (seed 001 §4.3 and §6.1): the scheduling thread puts each
 * CONC request on one thread of its class, round-robin, and each SEQ request on every thread of its
 * class, in delivery order (Alg. 2); each worker takes requests from its own bounded FIFO ring and
 * runs CONC requests at once. For a SEQ request the class's threads synchronize so that one of them
 * runs it while the others wait:
 * <ul>
 *   <li>{@link SyncMode#BARRIER}: two {@link CyclicBarrier} waits, the lowest thread id runs the
 *       request between them (Alg. 3);</li>
 *   <li>{@link SyncMode#BUSY_WAIT}: {@link TwoCycleCounters}, the last thread to arrive runs the
 *       request and resets the counter (Alg. 5 with the erratum: the last arriver executes).</li>
 * </ul>
 * A SEQ class with one thread needs no synchronization. Waiting workers spin, yield, then park.
 *
 * <p>Threads: see {@link WorkerPoolExecutor}.
 */
final class EarlySchedulingExecutor extends WorkerPoolExecutor {
    private final ClassPlan plan;
    private final SyncMode mode;
    private final TaskRing[] rings;
    private final CyclicBarrier[] barriers;
    private final TwoCycleCounters counters;

    EarlySchedulingExecutor(ClassMap map, CommandClassifier classifier, SyncMode mode, int queueCapacity) {
        super("early-" + mode.name().toLowerCase(java.util.Locale.ROOT), map.threadCount());
        if (mode != SyncMode.BARRIER && mode != SyncMode.BUSY_WAIT) {
            throw new IllegalArgumentException("not a non-stealing mode: " + mode);
        }
        this.plan = new ClassPlan(map, classifier);
        this.mode = mode;
        this.rings = new TaskRing[threadCount];
        for (int i = 0; i < threadCount; i++) {
            rings[i] = new TaskRing(queueCapacity);
        }
        this.barriers = new CyclicBarrier[plan.classCount];
        for (int c = 0; c < plan.classCount; c++) {
            if (plan.seq[c] && plan.threads[c].length > 1) {
                barriers[c] = new CyclicBarrier(plan.threads[c].length);
            }
        }
        this.counters = new TwoCycleCounters(plan.classCount);
    }

    @Override
    void submit(Command command) throws InterruptedException {
        int cls = plan.classify(command);
        if (plan.seq[cls]) {
            int[] ts = plan.threads[cls];
            for (int t : ts) {
                TaskRing r = rings[t];
                if (!r.hasSpace()) {
                    awaitSpace(r::hasSpace);
                }
            }
            for (int t : ts) {
                rings[t].put(command, cls);
            }
            // Pairs with the worker's announce-then-recheck in park(): no lost wake-up.
            VarHandle.fullFence();
            for (int t : ts) {
                sleepers[t].wake();
            }
        } else {
            int t = plan.nextConcThread(cls);
            TaskRing r = rings[t];
            if (!r.hasSpace()) {
                awaitSpace(r::hasSpace);
            }
            r.put(command, cls);
            VarHandle.fullFence();
            sleepers[t].wake();
        }
    }

    @Override
    void workerLoop(int id) throws InterruptedException, BrokenBarrierException {
        TaskRing ring = rings[id];
        WaitCheck empty = ring::isEmpty;
        byte[] cycles = new byte[plan.classCount];
        int round = 0;
        while (running()) {
            if (ring.isEmpty()) {
                if (round == 0) {
                    publishCompletions(id);
                }
                if (!Idle.spinOrYield(round++, Idle.SPINS)) {
                    park(id, empty);
                }
                continue;
            }
            round = 0;
            Command c = ring.peekCommand();
            int cls = ring.peekClass();
            ring.remove();
            wakeProducer();
            if (!plan.seq[cls] || plan.threads[cls].length == 1) {
                runCommand(id, c);
            } else if (mode == SyncMode.BARRIER) {
                barrierSync(id, c, cls);
            } else {
                busyWaitSync(id, c, cls, cycles);
            }
        }
    }

    private void barrierSync(int id, Command c, int cls) throws InterruptedException, BrokenBarrierException {
        CyclicBarrier b = barriers[cls];
        if (id == plan.minThread[cls]) {
            b.await();
            runCommand(id, c);
            b.await();
        } else {
            b.await();
            b.await();
        }
    }

    private void busyWaitSync(int id, Command c, int cls, byte[] cycles) {
        int cycle = cycles[cls] ^= 1;
        if (counters.arrive(cls, cycle) == plan.threads[cls].length) {
            runCommand(id, c);
            counters.release(cls, cycle);
            wakeOthers(cls, id);
            return;
        }
        int round = 0;
        while (!counters.released(cls, cycle)) {
            checkRunning();
            if (!Idle.spinOrYield(round++, Idle.BUSY_SPINS)) {
                park(id, () -> !counters.released(cls, cycle));
            }
        }
    }

    private void wakeOthers(int cls, int self) {
        for (int t : plan.threads[cls]) {
            if (t != self) {
                sleepers[t].wake();
            }
        }
    }
}
