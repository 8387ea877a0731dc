package dev.parallax.examples.cli;

import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.ConflictRelation;
import dev.parallax.scheduler.Execution;
import dev.parallax.scheduler.SyncMode;
import dev.parallax.scheduler.classmap.ClassMap;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The executors a cluster file can name with {@code execution=} (and {@code --execution} on the
 * command line), each built by {@link Execution} for the service the replica runs: the sequential
 * reference, late scheduling (a CBASE dependency graph over the class map's conflicts) and early
 * scheduling in each {@link SyncMode} (seed 001 ch. 4 and 6). Every executor but
 * {@link #SEQUENTIAL} needs the service's request classes ({@link ServiceClasses}) and runs on
 * {@code execution.threads} workers. Default {@link #SEQUENTIAL}.
 *
 * <p>Adding an executor is adding a constant here and a row in docs/operations.md. The plan of
 * issue 11 / wave 2: {@code p-smr} (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5) and
 * {@code s-smr} (seed 004 (S-SMR)), which also need a multicast ordering protocol; their factories
 * will check that the chosen {@link Orderings} provides one.
 *
 * <p>Immutable and thread-safe; {@link #create} builds a new, unstarted executor on each call and
 * does not block.
 */
public enum Executions {
    /** Each command on the delivering thread, in delivery order: the reference (seed 001 §1). */
    SEQUENTIAL("sequential", null),
    /** Late scheduling (seed 001 §3.2, CBASE) with the service's class conflicts as the relation. */
    LATE_SCHEDULING("late-scheduling", null),
    /** Early scheduling, two barriers per SEQ command (seed 001 §4.3). */
    EARLY_BARRIER("early-barrier", SyncMode.BARRIER),
    /** Early scheduling, two-cycle counters (seed 001 §6.1). */
    EARLY_BUSY_WAIT("early-busy-wait", SyncMode.BUSY_WAIT),
    /** Early scheduling, idle workers steal whole ready queues (seed 001 §6.2.1). */
    EARLY_WS_QUEUE("early-ws-queue", SyncMode.WS_QUEUE),
    /** Early scheduling, waiting workers steal, barrier after execution (seed 001 §6.2.2.1). */
    EARLY_WS_SEMI_BLOCKED("early-ws-semi-blocked", SyncMode.WS_SEMI_BLOCKED),
    /** Early scheduling, waiting workers steal, no barrier (seed 001 §6.2.2.2–6.2.2.3). */
    EARLY_WS_NON_BLOCKED("early-ws-non-blocked", SyncMode.WS_NON_BLOCKED),
    /** {@link #EARLY_WS_NON_BLOCKED} with optimistic stealing checks (seed 001 §6.2.2.4). */
    EARLY_WS_OPT("early-ws-opt", SyncMode.WS_OPT);

    /** The key that selects the executor in a cluster file. */
    public static final String KEY = "execution";
    /** The executor of a cluster file that names none. */
    public static final Executions DEFAULT = SEQUENTIAL;

    private final String configName;
    private final SyncMode earlyMode;

    Executions(String configName, SyncMode earlyMode) {
        this.configName = configName;
        this.earlyMode = earlyMode;
    }

    /** The name in cluster files and on the command line, e.g. {@code early-busy-wait}. */
    public String configName() {
        return configName;
    }

    /** Whether this executor needs the service's request classes and worker threads. */
    public boolean parallel() {
        return this != SEQUENTIAL;
    }

    /**
     * A new, unstarted executor of this kind for {@code service}.
     *
     * @param workers worker threads of a parallel executor ({@code execution.threads}); ignored by
     *                {@link #SEQUENTIAL}
     * @throws IllegalArgumentException if this executor is parallel and the service has no request
     *                                  classes (naming the service and what it accepts), or
     *                                  {@code workers < 1}
     */
    public Executor create(ServiceClasses service, int workers) {
        if (!parallel()) {
            return Execution.sequential();
        }
        if (workers < 1) {
            throw new IllegalArgumentException("execution.threads must be >= 1, got " + workers);
        }
        ClassMap classes = service.classMapOver(workers).orElseThrow(() -> new IllegalArgumentException(
                KEY + "=" + configName + " needs the request classes of the service, and the " + service.service()
                        + " has none; it runs only with " + KEY + "=" + SEQUENTIAL.configName));
        if (this == LATE_SCHEDULING) {
            return Execution.lateScheduling(ConflictRelation.byClass(classes, service.classifier()), workers);
        }
        return Execution.earlyScheduling(classes, service.classifier(), earlyMode);
    }

    /** Every accepted name, in declaration order. */
    public static List<String> names() {
        return Arrays.stream(values()).map(Executions::configName).toList();
    }

    /**
     * The executor called {@code name} (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the key and the accepted values
     */
    public static Executions parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (Executions e : values()) {
            if (e.configName.equals(n)) {
                return e;
            }
        }
        throw new IllegalArgumentException(KEY + " must be one of " + String.join(", ", names()) + "; got '" + name + "'");
    }
}
