package dev.parallax.core.stage;

import java.util.Locale;

/**
 * How a replica places its pipeline stages on threads. Stage logic never depends on the choice: a
 * {@link Stage} says what to do, the placement decides which thread runs it (Aeron's agent runner
 * versus its composite agent invoker).
 *
 * <ul>
 *   <li>{@link #STAGED}: one thread per stage, the JPaxos layout of seed 000 (JPaxos staged replica)
 *       §V: stages overlap (execution beside ordering, encoding beside both).</li>
 *   <li>{@link #COMPACT}: the pipeline stages share one thread, so a command crosses few thread
 *       hand-offs: the lowest latency and CPU for a lone command, but execution and ordering no
 *       longer overlap.</li>
 *   <li>{@link #AUTO}: the default; {@link #resolve(int)} picks by core count: compact below
 *       {@link #STAGED_FROM_CORES} cores, staged from there.</li>
 * </ul>
 *
 * <p>{@link StageThreads} applies the choice: under {@code STAGED} each pipeline stage gets a
 * {@link StageRunner}; under {@code COMPACT} all of them share one {@link CompositeStageRunner}
 * thread. One is as few as a replica needs: its I/O (Netty event loops) and its executor have
 * threads of their own, so the pipeline thread only moves commands between queues and the
 * protocol core, and on 2 or 3 cores a second pipeline thread would buy parallelism the machine
 * does not have at the price of more hand-offs. Stages that must keep time whatever the pipeline does
 * (the failure detector) get a dedicated thread under both.
 *
 * <p>Immutable and thread-safe.
 */
public enum ThreadPlacement {
    /** One thread per pipeline stage (seed 000 (JPaxos staged replica) §V). */
    STAGED,
    /** The pipeline stages on one shared thread. */
    COMPACT,
    /** {@link #STAGED} from {@link #STAGED_FROM_CORES} cores, {@link #COMPACT} below. */
    AUTO;

    /**
     * Cores from which {@link #AUTO} chooses {@link #STAGED}. Measured on 2 cores with 3 replica
     * JVMs and a load JVM, both placements with threads that park when idle (docs/benchmarks.md,
     * "Results"): compact gave 1.2–1.4× the throughput of staged at every load from 1 to 256
     * commands in flight per connection, at a lower p50. Each hand-off between stage threads costs
     * an unpark and a context switch, and on 2 cores the staged threads have no core of their own
     * to overlap on. From 4 cores the stages of one replica can run side by side, which is what
     * the staged layout of seed 000 (JPaxos staged replica) §V is for.
     */
    public static final int STAGED_FROM_CORES = 4;

    /**
     * The placement in effect on a machine with {@code cores} available processors: this one, or
     * for {@link #AUTO}, {@link #STAGED} from {@link #STAGED_FROM_CORES} cores and {@link #COMPACT}
     * below.
     *
     * @param cores the available processors
     * @return {@link #STAGED} or {@link #COMPACT}
     */
    public ThreadPlacement resolve(int cores) {
        if (this != AUTO) {
            return this;
        }
        return cores >= STAGED_FROM_CORES ? STAGED : COMPACT;
    }

    /**
     * The name used in cluster files and on the command line ({@code staged}, {@code compact}, {@code auto}).
     *
     * @return the lower-case name
     */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a {@link #configName()}, ignoring case and surrounding blanks.
     *
     * @param name the configured value
     * @return the placement
     * @throws IllegalArgumentException naming the accepted values
     * @throws NullPointerException if {@code name} is null
     */
    public static ThreadPlacement parse(String name) {
        for (ThreadPlacement p : values()) {
            if (p.configName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("threads must be staged, compact or auto, got '" + name + "'");
    }

    /** The system property naming the JVM-wide default placement. */
    public static final String PROPERTY = "parallax.threads";

    /**
     * The placement a replica uses when its configuration names none: the system property
     * {@value #PROPERTY} ({@code staged}, {@code compact} or {@code auto}) if set, else
     * {@link #AUTO}. The test build sets it to run every multi-replica test under both placements.
     *
     * @throws IllegalArgumentException if the property names no placement
     */
    public static ThreadPlacement jvmDefault() {
        String v = System.getProperty(PROPERTY);
        return v == null || v.isBlank() ? AUTO : parse(v);
    }
}
