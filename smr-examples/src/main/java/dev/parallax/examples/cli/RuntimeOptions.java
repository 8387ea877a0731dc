package dev.parallax.examples.cli;

import dev.parallax.core.stage.ThreadPlacement;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The command-line options that choose a replica's runtime, shared (as a picocli mixin) by
 * {@code parallax replica}, {@code demo}, {@code chaos} and {@code bench}: {@code --ordering},
 * {@code --execution}, {@code --execution-threads} and {@code --threads}. Each overrides the
 * cluster file's key of the same name ({@link ClusterFile#with}); an option not given leaves the
 * file's value (or its default). A bad value is a usage error naming the option and the accepted
 * values, before anything starts.
 *
 * <p>Filled in by picocli on the parsing thread, then read-only.
 */
public final class RuntimeOptions {

    @Option(names = "--ordering", paramLabel = "NAME", converter = OrderingConverter.class,
            completionCandidates = OrderingNames.class,
            description = "Ordering protocol: ${COMPLETION-CANDIDATES} (default: the cluster file's, else multi-paxos).")
    Orderings ordering;

    @Option(names = "--execution", paramLabel = "NAME", converter = ExecutionConverter.class,
            completionCandidates = ExecutionNames.class,
            description = "Executor: ${COMPLETION-CANDIDATES} (default: the cluster file's, else sequential; "
                    + "p-smr needs --ordering multi-ring or multicast).")
    Executions execution;

    @Option(names = "--execution-threads", paramLabel = "N", converter = WorkersConverter.class,
            description = "Workers of a parallel executor (default: the cluster file's, else "
                    + ClusterFile.DEFAULT_EXECUTION_THREADS + "; p-smr: one per group, multiring.rings or multicast.groups).")
    Integer executionThreads;

    @Option(names = "--threads", paramLabel = "PLACEMENT", converter = ThreadsConverter.class,
            completionCandidates = ThreadsNames.class,
            description = "Stage placement: ${COMPLETION-CANDIDATES} (default: the cluster file's, else auto: staged "
                    + "from " + ThreadPlacement.STAGED_FROM_CORES + " cores, compact below).")
    ThreadPlacement threads;

    /** Creates empty options (picocli fills them in). */
    public RuntimeOptions() {
    }

    /**
     * The cluster-file keys the options given set ({@code ordering}, {@code execution},
     * {@code execution.threads}, {@code threads}), in that order; empty if none was given.
     */
    public Map<String, String> clusterSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        if (ordering != null) {
            s.put(Orderings.KEY, ordering.configName());
        }
        if (execution != null) {
            s.put(Executions.KEY, execution.configName());
        }
        if (executionThreads != null) {
            s.put("execution.threads", Integer.toString(executionThreads));
        }
        if (threads != null) {
            s.put("threads", threads.configName());
        }
        return s;
    }

    private static <T> T convert(String value, Function<String, T> parse) {
        try {
            return parse.apply(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    static final class OrderingConverter implements ITypeConverter<Orderings> {
        @Override
        public Orderings convert(String value) {
            return RuntimeOptions.convert(value, Orderings::parse);
        }
    }

    static final class ExecutionConverter implements ITypeConverter<Executions> {
        @Override
        public Executions convert(String value) {
            return RuntimeOptions.convert(value, Executions::parse);
        }
    }

    static final class ThreadsConverter implements ITypeConverter<ThreadPlacement> {
        @Override
        public ThreadPlacement convert(String value) {
            return RuntimeOptions.convert(value, ThreadPlacement::parse);
        }
    }

    static final class WorkersConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return RuntimeOptions.convert(value, v -> {
                int n;
                try {
                    n = Integer.parseInt(v.trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("execution.threads is not a whole number: '" + v + "'");
                }
                if (n < 1) {
                    throw new IllegalArgumentException("execution.threads must be >= 1, got " + n);
                }
                return n;
            });
        }
    }

    static final class OrderingNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Orderings.names().iterator();
        }
    }

    static final class ExecutionNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Executions.names().iterator();
        }
    }

    static final class ThreadsNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(ThreadPlacement.values()).map(ThreadPlacement::configName).iterator();
        }
    }
}
