package dev.parallax.examples.cli;

import dev.parallax.scheduler.ServiceClasses;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.config.Settings;
import dev.parallax.core.runtime.ExecutionProvider;
import dev.parallax.core.runtime.ExecutionRegistry;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The executors a cluster file can name with {@code execution=} (and {@code --execution} on the
 * command line), each built by {@link Execution} for the service the replica runs: the sequential
 * reference, late scheduling (a CBASE dependency graph over the class map's conflicts), early
 * scheduling in each {@code SyncMode} (seed 001 ch. 4 and 6), and P-SMR (seed 003 (Ring Paxos /
 * Multi-Ring / P-SMR) ch. 6, Alg. 1). Every executor but {@link #SEQUENTIAL} runs on
 * {@code execution.threads} workers ({@link #parallel()}). The scheduling executors need the
 * service's request classes ({@link #needsClasses()}, {@link ServiceClasses}); P-SMR needs none:
 * it has no scheduler, each command carries its group set γ, computed by the service's C-G
 * function at the entry (for the key-value store {@code KvRouter}, through {@link KvRouting}), and
 * it runs one worker per multicast group ({@link #oneWorkerPerGroup()}), so {@link ClusterFile}
 * accepts it only over an ordering with groups ({@code ordering=multi-ring} or {@code multicast})
 * with {@code execution.threads} equal to its group count ({@code multiring.rings} or
 * {@code multicast.groups}). Default {@link #SEQUENTIAL}.
 *
 * {@link #S_SMR} partitions the state instead (seed 004 (S-SMR)): it runs partitioned services
 * only ({@code service=kv} and {@code service=volery}), over {@code ordering=multi-ring} with one ring per partition.
 *
 * <p>The executors themselves are {@code ExecutionProvider}s registered by their modules
 * ({@link ExecutionRegistry}; a test checks the two lists agree); this enum is the command line's
 * view of them, with the traits the cluster-file checks need.
 *
 * <p>Immutable and thread-safe; {@link #create} builds a new, unstarted executor on each call and
 * does not block.
 */
public enum Executions {
    /** Each command on the delivering thread, in delivery order: the reference (seed 001 §1). */
    SEQUENTIAL("sequential"),
    /** Late scheduling (seed 001 §3.2, CBASE) with the service's class conflicts as the relation. */
    LATE_SCHEDULING("late-scheduling"),
    /** Early scheduling, two barriers per SEQ command (seed 001 §4.3). */
    EARLY_BARRIER("early-barrier"),
    /** Early scheduling, two-cycle counters (seed 001 §6.1). */
    EARLY_BUSY_WAIT("early-busy-wait"),
    /** Early scheduling, idle workers steal whole ready queues (seed 001 §6.2.1). */
    EARLY_WS_QUEUE("early-ws-queue"),
    /** Early scheduling, waiting workers steal, barrier after execution (seed 001 §6.2.2.1). */
    EARLY_WS_SEMI_BLOCKED("early-ws-semi-blocked"),
    /** Early scheduling, waiting workers steal, no barrier (seed 001 §6.2.2.2–6.2.2.3). */
    EARLY_WS_NON_BLOCKED("early-ws-non-blocked"),
    /** {@link #EARLY_WS_NON_BLOCKED} with optimistic stealing checks (seed 001 §6.2.2.4). */
    EARLY_WS_OPT("early-ws-opt"),
    /**
     * P-SMR (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6, Alg. 1): one worker per multicast
     * group, a command of one group executed by its worker alone, a command of several groups by
     * the lowest of its workers once all of them have met; no scheduler, no class map.
     */
    P_SMR("p-smr"),
    /**
     * S-SMR (seed 004 (S-SMR) §IV, Alg. 1): the state split into partitions, partition p replicated
     * by the replicas of multi-ring ring p and ordered by it plus the global ring; each replica runs
     * its partition's commands one at a time and exchanges signals and read values with the other
     * partitions a command involves. It runs partitioned services only (the key-value store split
     * by key, {@code KvPartition}, and Volery), built by the replica launcher: {@link #create} refuses every {@link ServiceClasses} service.
     */
    S_SMR("s-smr");

    /** The key that selects the executor in a cluster file. */
    public static final String KEY = "execution";
    /** The executor of a cluster file that names none. */
    public static final Executions DEFAULT = SEQUENTIAL;

    private final String configName;

    Executions(String configName) {
        this.configName = configName;
    }

    /** The name in cluster files and on the command line, e.g. {@code early-busy-wait}. */
    public String configName() {
        return configName;
    }

    /** Whether this executor runs on worker threads ({@code execution.threads}): every one but {@link #SEQUENTIAL}. */
    public boolean parallel() {
        return this != SEQUENTIAL && this != S_SMR;
    }

    /**
     * Whether this executor splits the service state into partitions, one per group ({@link #S_SMR}):
     * it needs {@code ordering=multi-ring} with each replica in exactly one group ring.
     */
    public boolean partitioned() {
        return this == S_SMR;
    }

    /** Whether this executor needs the service's request classes: the scheduling ones (late and early). */
    public boolean needsClasses() {
        return parallel() && this != P_SMR;
    }

    /**
     * Whether this executor runs one worker per multicast group and takes each command's workers
     * from its group set ({@link #P_SMR}): it needs an ordering with groups ({@code multi-ring} or {@code multicast})
     * and a service whose commands carry a C-G function's groups and whose state machine is
     * partitioned by them ({@link ServiceClasses#groupPartitioned()}).
     */
    public boolean oneWorkerPerGroup() {
        return this == P_SMR;
    }

    /**
     * A new, unstarted executor of this kind for {@code service}.
     *
     * @param workers worker threads of a parallel executor ({@code execution.threads}; for
     *                {@link #P_SMR} the number of groups, which {@link ClusterFile} checks);
     *                ignored by {@link #SEQUENTIAL}
     * @throws IllegalArgumentException if this executor needs request classes the service lacks,
     *                                  or is {@link #P_SMR} and the service is not
     *                                  {@linkplain ServiceClasses#groupPartitioned() partitioned by
     *                                  group} (naming the service and what it accepts), or
     *                                  {@code workers < 1}
     */
    public Executor create(ServiceClasses service, int workers) {
        if (this == S_SMR) {
            throw new IllegalArgumentException(KEY + "=" + configName + " runs partitioned services (service=kv: "
                    + "KvPartition, service=volery: VoleryPartition), whose replica builds its own S-SMR executor "
                    + "(parallax replica); it has no executor over the " + service.service() + "'s whole-state machine, "
                    + "which runs with " + KEY + "=" + SEQUENTIAL.configName
                    + (service.hasClasses() ? " or a scheduling executor" : ""));
        }
        if (parallel() && workers < 1) {
            throw new IllegalArgumentException("execution.threads must be >= 1, got " + workers);
        }
        // Built by the provider registered under this name (sequential: smr-core; the rest: smr-scheduler).
        return ExecutionRegistry.execution(configName).create(new ExecutionProvider.Context(Settings.of(Map.of()), workers,
                Map.of(ServiceClasses.class, service)));
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
