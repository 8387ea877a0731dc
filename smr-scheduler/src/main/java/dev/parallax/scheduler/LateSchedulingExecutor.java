package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.scheduler.classmap.ClassMap;

import java.lang.invoke.VarHandle;

/**
 * Late scheduling (CBASE; seed 001 §3.2, the baseline of chapters 5 and 7): the scheduling thread
 * inserts every delivered command into a {@link DependencyGraph}; any worker takes the oldest
 * command whose conflicting predecessors have all completed, runs it and removes it from the graph.
 * Conflicting commands thus run in delivery order and independent ones in parallel, with no
 * restriction from a class-to-threads map.
 *
 * <p>The graph is bounded: {@link #execute} blocks while it holds {@code capacity} commands. With a
 * {@link ConflictRelation.ClassConflictRelation} the class of each command is computed once, not
 * once per comparison. A command the classifier or relation throws on gets an error result and is
 * not inserted (the graph is left as it was). Idle workers spin, yield, then park; whoever makes a command ready wakes a
 * parked worker.
 *
 * <p>Threads: see {@link WorkerPoolExecutor}.
 */
final class LateSchedulingExecutor extends WorkerPoolExecutor {
    private final DependencyGraph graph;
    private final CommandClassifier classifier;
    /** The application's relation when it is not by class (then called per pair), else null. */
    private final ConflictRelation generic;
    private final WaitCheck noneReady;

    LateSchedulingExecutor(ConflictRelation relation, int threads, int capacity) {
        super("late", threads);
        java.util.Objects.requireNonNull(relation, "relation");
        DependencyGraph.ConflictTest test;
        if (relation instanceof ConflictRelation.ClassConflictRelation byClass) {
            ClassMap map = byClass.classMap();
            ClassPlan plan = new ClassPlan(map, byClass.classifier());
            this.classifier = plan::classify;
            boolean[][] matrix = new boolean[map.classCount()][map.classCount()];
            for (int a = 0; a < matrix.length; a++) {
                for (int b = 0; b < matrix.length; b++) {
                    matrix[a][b] = map.conflicts(a, b);
                }
            }
            test = (earlier, later) -> matrix[earlier.cls][later.cls];
            this.generic = null;
        } else {
            this.classifier = c -> 0;
            this.generic = relation;
            test = (earlier, later) -> conflicts(earlier.command, later.command);
        }
        this.graph = new DependencyGraph(test, capacity);
        this.noneReady = () -> graph.readyCount() == 0;
    }

    /**
     * With an application relation, the command is first compared with itself: which commands a new
     * one is compared with depends on timing (those still in the graph), so a relation that cannot
     * handle a command must fail on that probe for the outcome to be the same on every replica.
     */
    @Override
    void submit(Command command) throws InterruptedException {
        DependencyGraph.Node node = new DependencyGraph.Node(command, classifier.classify(command));
        if (generic != null) {
            conflicts(command, command);
        }
        if (!graph.hasSpace()) {
            awaitSpace(graph::hasSpace);
        }
        if (graph.insert(node)) {
            VarHandle.fullFence();
            wake(1, -1);
        }
    }

    @Override
    void workerLoop(int id) {
        int round = 0;
        while (running()) {
            DependencyGraph.Node node = graph.readyCount() == 0 ? null : graph.take();
            if (node == null) {
                if (round == 0) {
                    publishCompletions(id);
                }
                if (!Idle.spinOrYield(round++, Idle.SPINS)) {
                    park(id, noneReady);
                }
                continue;
            }
            round = 0;
            runCommand(id, node.command);
            int freed = graph.complete(node);
            wakeProducer();
            if (freed > 1) {
                VarHandle.fullFence();
                wake(freed - 1, id);
            }
        }
    }

    private boolean conflicts(Command earlier, Command later) {
        try {
            return generic.conflicts(earlier, later);
        } catch (RuntimeException e) {
            throw UnclassifiableCommandException.relationThrew(e);
        }
    }

    /** Wakes up to {@code count} parked workers other than {@code self}. */
    private void wake(int count, int self) {
        for (int t = 0; t < threadCount && count > 0; t++) {
            if (t != self && sleepers[t].isSleeping()) {
                sleepers[t].wake();
                count--;
            }
        }
    }
}
