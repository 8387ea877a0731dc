package dev.parallax.scheduler;

import dev.parallax.core.spi.Executor;
import dev.parallax.core.testkit.executor.ExecutorWorkload;
import dev.parallax.scheduler.classmap.ClassMap;

/** Every parallel executor this module offers, for tests that run them all. */
enum ExecutorKind {
    LATE(null),
    LATE_GENERIC(null),
    BARRIER(SyncMode.BARRIER),
    BUSY_WAIT(SyncMode.BUSY_WAIT),
    WS_QUEUE(SyncMode.WS_QUEUE),
    WS_SEMI_BLOCKED(SyncMode.WS_SEMI_BLOCKED),
    WS_NON_BLOCKED(SyncMode.WS_NON_BLOCKED),
    WS_OPT(SyncMode.WS_OPT);

    private final SyncMode mode;

    ExecutorKind(SyncMode mode) {
        this.mode = mode;
    }

    /** The executor for a contract workload: its class map and classifier, its capacity. */
    Executor create(ExecutorWorkload workload) {
        return create(ShardedTestMachineMaps.classMap(workload), ShardedTestMachineMaps.classifier(workload),
                workload.capacity());
    }

    Executor create(ClassMap map, CommandClassifier classifier, int capacity) {
        if (this == LATE) {
            return Execution.lateScheduling(ConflictRelation.byClass(map, classifier), map.threadCount(), capacity);
        }
        if (this == LATE_GENERIC) {
            ConflictRelation byClass = ConflictRelation.byClass(map, classifier);
            ConflictRelation generic = byClass::conflicts;
            return Execution.lateScheduling(generic, map.threadCount(), capacity);
        }
        return Execution.earlyScheduling(map, classifier, mode, capacity);
    }
}
