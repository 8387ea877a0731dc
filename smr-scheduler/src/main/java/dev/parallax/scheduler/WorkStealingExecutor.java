package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.scheduler.classmap.ClassMap;

import java.lang.invoke.VarHandle;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Early scheduling with work stealing (seed 001 §6.2). The scheduler is Alg. 7/10: each request
 * goes to the {@link ReadyQueue} of one (CONC) or all (SEQ) of its class's threads. A worker moves
 * its whole ready queue into its exec batch and runs it; a worker with nothing to do steals the
 * whole ready queue of a victim holding only CONC requests and not executing a SEQ one, runs the
 * stolen requests from its own steal buffer, then clears its marker at the victim.
 *
 * <p>Variants ({@link SyncMode}):
 * <ul>
 *   <li>{@code WS_QUEUE} (Alg. 8): steals only when its queue is empty; SEQ requests use two
 *       barriers, the lowest thread id executing;</li>
 *   <li>{@code WS_SEMI_BLOCKED} (Alg. 11): arrival by one counter per class; the last to arrive
 *       executes, the others steal non-conflicting work until it is done; then one barrier;</li>
 *   <li>{@code WS_NON_BLOCKED} (Alg. 13): two-cycle counters and no barrier; victims are tried
 *       from {@code (id + 1) mod n} on (§6.2.2.3, "smart" choice);</li>
 *   <li>{@code WS_OPT} (Alg. 14): as {@code WS_NON_BLOCKED}, the stealing conditions checked
 *       without the victim's lock before being checked again under it.</li>
 * </ul>
 * Errata applied (PROTOCOLS.md §6): every thread of a SEQ class, not only the executor, waits for
 * its stealers to finish before arriving at the request, since in the counter-based variants any of
 * them may be the executor and a stolen request may conflict with the SEQ one; stolen work goes to
 * the stealer's own buffer; the last arriver executes.
 *
 * <p>Idle workers try to steal, spin, yield, then park: in slices while commands are outstanding
 * (so that they keep trying to steal), without a time limit when there are none. The scheduler
 * wakes a worker it gives work to, and when that worker is busy with a CONC request, one worker
 * parked without a time limit, which may steal it.
 *
 * <p>Threads: see {@link WorkerPoolExecutor}.
 */
final class WorkStealingExecutor extends WorkerPoolExecutor {
    private static final long MIN_IDLE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    private static final long MAX_IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ClassPlan plan;
    private final SyncMode mode;
    private final ReadyQueue[] ready;
    private final CyclicBarrier[] barriers;
    private final java.util.concurrent.atomic.AtomicIntegerArray semiMarks;
    private final TwoCycleCounters counters;
    private final int batchCapacity;
    private final java.util.concurrent.atomic.AtomicInteger deepSleepers = new java.util.concurrent.atomic.AtomicInteger();

    WorkStealingExecutor(ClassMap map, CommandClassifier classifier, SyncMode mode, int queueCapacity) {
        super("ws-" + mode.name().substring(3).toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                map.threadCount());
        if (!mode.steals()) {
            throw new IllegalArgumentException("not a work-stealing mode: " + mode);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be >= 1, got " + queueCapacity);
        }
        this.plan = new ClassPlan(map, classifier);
        this.mode = mode;
        this.batchCapacity = queueCapacity;
        this.ready = new ReadyQueue[threadCount];
        for (int i = 0; i < threadCount; i++) {
            ready[i] = new ReadyQueue(queueCapacity, plan.classCount, threadCount);
        }
        this.barriers = new CyclicBarrier[plan.classCount];
        boolean usesBarriers = mode == SyncMode.WS_QUEUE || mode == SyncMode.WS_SEMI_BLOCKED;
        for (int c = 0; c < plan.classCount; c++) {
            if (usesBarriers && plan.seq[c] && plan.threads[c].length > 1) {
                barriers[c] = new CyclicBarrier(plan.threads[c].length);
            }
        }
        this.semiMarks = new java.util.concurrent.atomic.AtomicIntegerArray(plan.classCount * 16);
        this.counters = new TwoCycleCounters(plan.classCount);
    }

    @Override
    void submit(Command command) throws InterruptedException {
        int cls = plan.classify(command);
        if (plan.seq[cls]) {
            int[] ts = plan.threads[cls];
            for (int t : ts) {
                ReadyQueue q = ready[t];
                if (!q.hasSpace()) {
                    awaitSpace(q::hasSpace);
                }
            }
            for (int t : ts) {
                ready[t].put(command, cls, true);
            }
            VarHandle.fullFence();
            for (int t : ts) {
                sleepers[t].wake();
            }
        } else {
            int t = plan.nextConcThread(cls);
            ReadyQueue q = ready[t];
            if (!q.hasSpace()) {
                awaitSpace(q::hasSpace);
            }
            q.put(command, cls, false);
            VarHandle.fullFence();
            Sleeper owner = sleepers[t];
            if (owner.isSleeping()) {
                owner.wake();
            } else if (deepSleepers.get() > 0) {
                wakeDeepSleeper(t);
            }
        }
    }

    /**
     * The owner of the queue just given a CONC request is busy: wake one worker parked without a
     * time limit so that it can steal the request.
     */
    private void wakeDeepSleeper(int busy) {
        for (int t = 0; t < threadCount; t++) {
            if (t != busy && sleepers[t].isDeep()) {
                sleepers[t].wake();
                return;
            }
        }
    }

    /**
     * The {@code k}-th victim ({@code 1 <= k < n}) worker {@code id} of {@code n} tries: from
     * {@code (id + 1) mod n} on for {@code WS_NON_BLOCKED} and {@code WS_OPT} (§6.2.2.3, the
     * "smart" choice, which spreads stealers over victims), else the other workers lowest id first
     * (Alg. 8 and 11). Pure; package-private for the tests.
     */
    static int victim(SyncMode mode, int id, int k, int n) {
        boolean smart = mode == SyncMode.WS_NON_BLOCKED || mode == SyncMode.WS_OPT;
        return smart ? (id + k) % n : (k <= id ? k - 1 : k);
    }

    @Override
    void workerLoop(int id) throws InterruptedException, BrokenBarrierException {
        Worker w = new Worker(id);
        w.loop();
    }

    /** The private state of one worker thread (Alg. 8/11/13 "Worker-Thread t"). */
    private final class Worker {
        private final int id;
        private final ReadyQueue own;
        private final byte[] cycles;
        private final WaitCheck ownEmpty;
        private TaskBatch exec;
        private TaskBatch stealBuffer;
        private long idlePark = MIN_IDLE_PARK_NANOS;

        Worker(int id) {
            this.id = id;
            this.own = ready[id];
            this.cycles = new byte[plan.classCount];
            this.ownEmpty = () -> own.size() == 0;
            this.exec = new TaskBatch(batchCapacity);
            this.stealBuffer = new TaskBatch(batchCapacity);
        }

        void loop() throws InterruptedException, BrokenBarrierException {
            int round = 0;
            while (running()) {
                if (own.size() == 0) {
                    if (round == 0) {
                        publishCompletions(id);
                    }
                    if (steal(null)) {
                        round = 0;
                        continue;
                    }
                    idle(round++);
                    continue;
                }
                round = 0;
                idlePark = MIN_IDLE_PARK_NANOS;
                TaskBatch batch = own.transfer(exec);
                exec = batch;
                wakeProducer();
                runBatch(batch);
                batch.clear();
            }
        }

        private void runBatch(TaskBatch batch) throws InterruptedException, BrokenBarrierException {
            for (int i = 0, n = batch.size(); i < n; i++) {
                checkRunning();
                Command c = batch.command(i);
                int cls = batch.cls(i);
                if (plan.seq[cls]) {
                    awaitStealers();
                    if (plan.threads[cls].length == 1) {
                        runCommand(id, c);
                    } else {
                        switch (mode) {
                            case WS_QUEUE -> barrierSync(c, cls);
                            case WS_SEMI_BLOCKED -> semiBlockedSync(c, cls);
                            default -> nonBlockedSync(c, cls);
                        }
                    }
                } else {
                    runCommand(id, c);
                }
            }
        }

        /** Alg. 8 lines 15–16, applied by every class member (erratum). */
        private void awaitStealers() {
            int round = 0;
            while (own.hasStealers()) {
                checkRunning();
                if (!Idle.spinOrYield(round++, Idle.SPINS)) {
                    park(id, own::hasStealers);
                }
            }
        }

        /** Alg. 8 lines 14–22. */
        private void barrierSync(Command c, int cls) throws InterruptedException, BrokenBarrierException {
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

        /** Alg. 11 lines 17–24: one counter per class, then a barrier after execution. */
        private void semiBlockedSync(Command c, int cls) throws InterruptedException, BrokenBarrierException {
            int slot = cls * 16;
            if (semiMarks.incrementAndGet(slot) == plan.threads[cls].length) {
                runCommand(id, c);
                semiMarks.set(slot, 0);
                wakeOthers(cls);
            } else {
                int round = 0;
                while (semiMarks.get(slot) != 0) {
                    checkRunning();
                    if (steal(plan.conflictMask[cls])) {
                        round = 0;
                    } else if (!Idle.spinOrYield(round++, Idle.SPINS)) {
                        park(id, () -> semiMarks.get(slot) != 0);
                    }
                }
            }
            barriers[cls].await();
        }

        /** Alg. 13 lines 18–24: two-cycle counters; waiting threads steal. */
        private void nonBlockedSync(Command c, int cls) {
            int cycle = cycles[cls] ^= 1;
            if (counters.arrive(cls, cycle) == plan.threads[cls].length) {
                runCommand(id, c);
                counters.release(cls, cycle);
                wakeOthers(cls);
                return;
            }
            int round = 0;
            while (!counters.released(cls, cycle)) {
                checkRunning();
                if (steal(plan.conflictMask[cls])) {
                    round = 0;
                } else if (!Idle.spinOrYield(round++, Idle.SPINS)) {
                    park(id, () -> !counters.released(cls, cycle));
                }
            }
        }

        /**
         * {@code Steal(s, c)}: tries each other thread once, in the variant's order, and runs the
         * first successful steal to completion (Alg. 8 lines 27–41, Alg. 11 lines 29–46, Alg. 14).
         *
         * @param conflictMask classes conflicting with the SEQ request this thread waits for, or
         *                     {@code null} when idle
         * @return whether it stole and ran something
         */
        private boolean steal(long[] conflictMask) {
            int n = threadCount;
            for (int k = 1; k < n; k++) {
                int v = victim(mode, id, k, n);
                ReadyQueue victim = ready[v];
                if (mode == SyncMode.WS_OPT && !victim.stealable(conflictMask)) {
                    continue;
                }
                if (victim.size() == 0) {
                    continue;
                }
                TaskBatch stolen = victim.steal(stealBuffer, id, conflictMask);
                if (stolen == null) {
                    continue;
                }
                stealBuffer = stolen;
                wakeProducer();
                try {
                    for (int i = 0, m = stolen.size(); i < m; i++) {
                        runCommand(id, stolen.command(i));
                    }
                } finally {
                    stolen.clear();
                    victim.stealDone(id);
                    sleepers[v].wake();
                }
                return true;
            }
            return false;
        }

        private void idle(int round) {
            if (Idle.spinOrYield(round, Idle.SPINS)) {
                return;
            }
            Sleeper s = sleepers[id];
            s.announce();
            VarHandle.fullFence();
            try {
                if (own.size() == 0 && running()) {
                    if (submittedView() > completedTotal()) {
                        LockSupport.parkNanos(this, idlePark);
                        idlePark = Math.min(idlePark * 2, MAX_IDLE_PARK_NANOS);
                    } else {
                        s.deep(true);
                        deepSleepers.incrementAndGet();
                        try {
                            LockSupport.park(this);
                        } finally {
                            deepSleepers.decrementAndGet();
                            s.deep(false);
                        }
                    }
                }
            } finally {
                s.clear();
            }
            Thread.interrupted();
            checkRunning();
        }

        private void wakeOthers(int cls) {
            for (int t : plan.threads[cls]) {
                if (t != id) {
                    sleepers[t].wake();
                }
            }
        }
    }
}
