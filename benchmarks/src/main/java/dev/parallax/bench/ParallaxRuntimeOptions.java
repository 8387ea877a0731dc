package dev.parallax.bench;

import dev.parallax.bench.systems.ParallaxSpec;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.OrderingRegistry;
import dev.parallax.core.stage.ThreadPlacement;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code ./parallax bench}'s options that choose the parallax systems' runtime, named as
 * {@code parallax replica}'s: {@code --ordering}, {@code --execution}, {@code --execution-threads}
 * and {@code --threads}. Each becomes the cluster-file key of the same name in the spec the
 * systems run ({@link #clusterSettings()}, {@link ParallaxSpec#with}); an option not given leaves
 * the system's choice (or the default). The names are the library's registered ones
 * ({@link OrderingRegistry}, {@link ParallaxSpec#executions()}); a bad value is a usage error
 * naming the option and the accepted values, before anything starts.
 *
 * <p>Filled in by picocli on the parsing thread, then read-only.
 */
public final class ParallaxRuntimeOptions {

    @Option(names = "--ordering", paramLabel = "NAME", converter = OrderingConverter.class,
            completionCandidates = OrderingNames.class,
            description = "Ordering protocol: ${COMPLETION-CANDIDATES} (default: the system's, else multi-paxos).")
    String ordering;

    @Option(names = "--execution", paramLabel = "NAME", converter = ExecutionConverter.class,
            completionCandidates = ExecutionNames.class,
            description = "Executor: ${COMPLETION-CANDIDATES} (default: the system's, else sequential; "
                    + "p-smr needs --ordering multi-ring or multicast).")
    String execution;

    @Option(names = "--execution-threads", paramLabel = "N", converter = WorkersConverter.class,
            description = "Workers of a parallel executor (default " + ClusterConfig.DEFAULT_EXECUTION_THREADS
                    + "; p-smr: one per group, multiring.rings or multicast.groups).")
    Integer executionThreads;

    @Option(names = "--threads", paramLabel = "PLACEMENT", converter = ThreadsConverter.class,
            completionCandidates = ThreadsNames.class,
            description = "Stage placement: ${COMPLETION-CANDIDATES} (default auto: staged from "
                    + ThreadPlacement.STAGED_FROM_CORES + " cores, compact below).")
    String threads;

    /** Creates empty options (picocli fills them in). */
    public ParallaxRuntimeOptions() {
    }

    /**
     * The cluster-file keys the options given set ({@code ordering}, {@code execution},
     * {@code execution.threads}, {@code threads}), in that order; empty if none was given.
     */
    public Map<String, String> clusterSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        if (ordering != null) {
            s.put(ClusterConfig.ORDERING.name(), ordering);
        }
        if (execution != null) {
            s.put(ClusterConfig.EXECUTION.name(), execution);
        }
        if (executionThreads != null) {
            s.put(ClusterConfig.EXECUTION_THREADS.name(), Integer.toString(executionThreads));
        }
        if (threads != null) {
            s.put("threads", threads);
        }
        return s;
    }

    /** {@code value} trimmed and lower-cased if it is one of {@code names}, else a conversion error naming them. */
    private static String oneOf(String key, String value, Iterable<String> names) {
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        for (String n : names) {
            if (n.equals(v)) {
                return v;
            }
        }
        throw new TypeConversionException(key + " must be one of " + String.join(", ", names) + "; got '" + value + "'");
    }

    static final class OrderingConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return oneOf("ordering", value, ParallaxSpec.orderings());
        }
    }

    static final class ExecutionConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return oneOf("execution", value, ParallaxSpec.executions());
        }
    }

    static final class ThreadsConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                return ThreadPlacement.parse(value).configName();
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    static final class WorkersConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int n;
            try {
                n = Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("execution.threads is not a whole number: '" + value + "'");
            }
            if (n < 1) {
                throw new TypeConversionException("execution.threads must be >= 1, got " + n);
            }
            return n;
        }
    }

    static final class OrderingNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ParallaxSpec.orderings().iterator();
        }
    }

    static final class ExecutionNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ParallaxSpec.executions().iterator();
        }
    }

    static final class ThreadsNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(ThreadPlacement.values()).map(ThreadPlacement::configName).iterator();
        }
    }
}
