package dev.parallax.bench.scheduler;

import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.CommandClassifier;
import dev.parallax.scheduler.ConflictRelation;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import dev.parallax.scheduler.classmap.ClassMap;

/** The executors the scheduler benchmarks compare, by JMH parameter name. */
enum ExecutorKind {
    SEQUENTIAL,
    LATE,
    BARRIER,
    BUSY_WAIT,
    WS_QUEUE,
    WS_SEMI_BLOCKED,
    WS_NON_BLOCKED,
    WS_OPT;

    /** A new executor over {@code map}'s threads (the sequential one ignores them). */
    Executor create(ClassMap map, CommandClassifier classifier) {
        return switch (this) {
            case SEQUENTIAL -> Execution.sequential();
            case LATE -> Execution.lateScheduling(ConflictRelation.byClass(map, classifier), map.threadCount());
            default -> Execution.earlyScheduling(map, classifier, SyncMode.valueOf(name()));
        };
    }
}
